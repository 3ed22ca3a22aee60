"""``GkeDriverInstaller`` and ``EfaDevicePlugin`` built by hand in a user's program with no pool to serve (an empty list,
pools of another backend, GKE pools whose driver GKE installs, pools without EFA) or with a ``GpuNodePool`` where its
``.spec`` belongs: one ``ConfigError`` of the args class naming ``pools``, the pools given, the rule and the fix,
before the component registers anything; ``gpupool plan`` of such a program says so and exits 2, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import ROOT, base
from programs import team_program, team_project

from gpu_node_pool import GpuNodePool, GpuNodePoolArgs
from gpu_node_pool.cli.commands import main
from gpu_node_pool.config import ConfigError, validate_stack_config
from gpu_node_pool.gpu_agents import EfaDevicePlugin, EfaDevicePluginArgs
from gpu_node_pool.gpu_agents.gke_driver_installer.component import GkeDriverInstaller, GkeDriverInstallerArgs
from gpu_node_pool.k8s.wellknown import EFA_DEVICE_PLUGIN_TYPE, GKE_DRIVER_INSTALLER_TYPE
from gpu_node_pool.plan import record

INSTALLER_TYPES = {GKE_DRIVER_INSTALLER_TYPE, "kubernetes:apps/v1:DaemonSet"}
EFA_TYPES = {EFA_DEVICE_PLUGIN_TYPE, "kubernetes:helm.sh/v4:Chart", "kubernetes:core/v1:Namespace"}


def gke_config(driver: str) -> dict:
    """The shipped GKE stack's config (``stacks/Pulumi.gke-dev.yaml``) as a mapping, its pool's driver set to ``driver``."""
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.gke-dev.yaml").read_text())["config"]
    cfg = {key.split(":", 1)[1]: value for key, value in doc.items() if key.startswith("gpu-node-pools:")}
    cfg["pools"][0]["accelerator"]["gpuDriverVersion"] = driver
    return cfg


def refused(cfg: dict, make, types: set[str]) -> ConfigError:
    """Declare the pools of ``cfg``, then ``make(pools)``: the ConfigError it raises; nothing of ``types`` registered."""
    stack = validate_stack_config(cfg)
    registered: list = []

    def program():
        make([GpuNodePool(p.name, GpuNodePoolArgs(pool=p, cluster=stack.cluster)) for p in stack.pools])

    with pytest.raises(ConfigError) as err:
        record(program, sink=registered)
    assert [r.type for r in registered if r.type in types] == []
    return err.value


def installer(pools):
    return GkeDriverInstaller("gke-driver-installer", GkeDriverInstallerArgs("ml", pools))


def efa(pools):
    return EfaDevicePlugin("efa-device-plugin", EfaDevicePluginArgs("ml", pools))


def test_an_installer_with_no_pool_is_refused_naming_the_rule_and_the_fix():
    err = refused(base(), lambda pools: installer([]), INSTALLER_TYPES)
    assert str(err).startswith("1 error in the GkeDriverInstallerArgs; no resource was registered:\n  pools: no pool to serve")
    assert [i.path for i in err.issues] == ["pools"]
    message = err.issues[0].message
    assert "serves GKE pools with accelerator.gpuDriverVersion: INSTALLATION_DISABLED" in message
    assert "https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#installing_drivers" in message
    assert "pools is empty" in message and "Pass the .spec of the GKE pools with INSTALLATION_DISABLED" in message


def test_an_installer_for_pools_of_another_backend_names_each_pool_and_why():
    err = refused(base(), lambda pools: installer([p.spec for p in pools]), INSTALLER_TYPES)
    assert ("none of the pools given is one: inference is not on GKE's node image (backend eks-managed); its DaemonSet"
            in str(err))


def test_an_installer_for_a_gke_pool_whose_driver_gke_installs_is_refused():
    err = refused(gke_config("LATEST"), lambda pools: installer([p.spec for p in pools]), INSTALLER_TYPES)
    assert ("none of the pools given is one: GKE installs the driver of l4-inference (gpuDriverVersion is not "
            "INSTALLATION_DISABLED); its DaemonSet, placed on the pools it serves, would select no node" in str(err))


def test_an_installer_for_a_gke_pool_without_a_driver_is_declared():
    stack = validate_stack_config(gke_config("INSTALLATION_DISABLED"))
    registered: list = []

    def program():
        pool = GpuNodePool("l4-inference", GpuNodePoolArgs(pool=stack.pools[0], cluster=stack.cluster))
        installer([pool.spec])

    record(program, sink=registered)
    [daemonset] = [r for r in registered if r.type == "kubernetes:apps/v1:DaemonSet"]
    assert daemonset.inputs["metadata"]["name"] == "nvidia-driver-installer"


def test_efa_plugin_with_no_pool_or_no_efa_pool_is_refused_naming_the_rule_and_the_fix():
    err = refused(base(), lambda pools: efa([]), EFA_TYPES)
    assert str(err).startswith("1 error in the EfaDevicePluginArgs; no resource was registered:\n  pools: no pool to serve")
    assert "pools is empty" in str(err) and "https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html" in str(err)
    err = refused(base(), lambda pools: efa([p.spec for p in pools]), EFA_TYPES)
    assert "none of the pools given has it: inference has no efa: {enabled: true}. Pass" in str(err)
    assert "Pass the .spec of the pools with efa.enabled" in str(err)
    err = refused(gke_config("LATEST"), lambda pools: efa([p.spec for p in pools]), EFA_TYPES)
    assert "none of the pools given has it: l4-inference is of a backend without efa (gke). Pass" in str(err)


@pytest.mark.parametrize("make, types, source", [(installer, INSTALLER_TYPES, "GkeDriverInstallerArgs"),
                                                 (efa, EFA_TYPES, "EfaDevicePluginArgs")])
def test_a_gpu_node_pool_in_pools_instead_of_its_spec_names_the_fix(make, types, source):
    err = refused(base(), make, types)
    assert str(err) == (f"1 error in the {source}; no resource was registered:\n"
                        "  pools[0]: is the GpuNodePool 'inference'; pass its validated model: pools=[inference.spec, ...]")
    err = refused(base(), lambda pools: make(pools[0].spec), types)
    assert ("pools: expected a list of pool models (GpuNodePool.spec), got an EksManagedPool (pool 'inference') "
            "on its own; put it in a list: pools=[inference.spec]") in str(err)


STACK = """\
config:
  gpu-node-pools:cluster:
    name: ml
    nodeRoleArn: arn:aws:iam::111122223333:role/ml-nodes
    subnetIds: [subnet-0a1b2c3d4e5f60718]
  gpu-node-pools:pools:
  - {name: gpu, backend: eks-managed, instanceTypes: [g6.xlarge], scaling: {minSize: 0, maxSize: 2},
     taints: ["nvidia.com/gpu=present:NoSchedule"]}
"""


@pytest.mark.parametrize("lines, source", [
    (("from gpu_node_pool.gpu_agents.gke_driver_installer.component import GkeDriverInstaller, GkeDriverInstallerArgs",
      'GkeDriverInstaller("gke-driver-installer", GkeDriverInstallerArgs("ml", [gpu.spec]))'), "GkeDriverInstallerArgs"),
    (("from gpu_node_pool.gpu_agents import EfaDevicePlugin, EfaDevicePluginArgs",
      'EfaDevicePlugin("efa-device-plugin", EfaDevicePluginArgs("ml", [gpu.spec]))'), "EfaDevicePluginArgs"),
])
def test_plan_of_a_program_declaring_an_agent_with_no_pool_to_serve_exits_2_with_the_error(capsys, tmp_path: Path,
                                                                                          lines, source):
    root = team_project(tmp_path / "proj", team_program(*lines), stack_text=STACK)
    code = main(["plan", "--stack", "ci", "--project-dir", str(root)])
    out = capsys.readouterr()
    text = out.out + out.err
    assert code == 2, text
    assert f"1 error in the {source}" in text and "pools: no pool to serve" in text and "none of the pools given" in text
    assert "Traceback" not in text and "internal error" not in text and "ValueError" not in text
