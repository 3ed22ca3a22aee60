"""A gke pool's ``imageType`` (``node_config.image_type``): ``COS_CONTAINERD`` or ``UBUNTU_CONTAINERD``
(https://cloud.google.com/kubernetes-engine/docs/concepts/node-images), written only when set, Windows and anything else
refused; and the driver installer of an ``INSTALLATION_DISABLED`` pool follows it: Google's COS manifest as
``kube-system/nvidia-driver-installer``, Google's Ubuntu manifest (``tests/data/gke_driver_installer/ubuntu-daemonset-preloaded.yaml``,
a copy of GoogleCloudPlatform/container-engine-accelerators ``nvidia-driver-installer/ubuntu/daemonset-preloaded.yaml``
at 992db81257553607f1477945f1b3219632991829) as ``kube-system/nvidia-driver-installer-ubuntu``, each on its own pools."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import get_args

import pytest
import yaml
from conftest import ROOT, shipped_project

from gpu_node_pool.backends.gke.driver import stack_warnings
from gpu_node_pool.backends.gke.image import GkeImageType
from gpu_node_pool.backends.gke.render import node_pool_args
from gpu_node_pool.cli.commands import main as cli_main
from gpu_node_pool.config import ConfigError
from gpu_node_pool.config.loading import load_stack_config
from gpu_node_pool.gpu_agents.gke_driver_installer.values import MANIFESTS, installer_daemonsets
from gpu_node_pool.gpu_agents.pools import agent_pool

UPSTREAM = Path(__file__).parents[2] / "data" / "gke_driver_installer" / "ubuntu-daemonset-preloaded.yaml"
RAW = ("https://raw.githubusercontent.com/GoogleCloudPlatform/container-engine-accelerators/"
       "992db81257553607f1477945f1b3219632991829/nvidia-driver-installer")
DS = "kubernetes:apps/v1:DaemonSet"


def gke_dev(*, ubuntu_driver: str | None = "INSTALLATION_DISABLED", cos_driver: str = "INSTALLATION_DISABLED",
            gpu_agents: dict | None = None) -> dict:
    """stacks/Pulumi.gke-dev.yaml with its pool ``l4-inference`` (no image type, ``cos_driver``) and, unless
    ``ubuntu_driver`` is None, a copy ``l4-ubuntu`` on ``UBUNTU_CONTAINERD`` with ``ubuntu_driver`` and a
    taint of its own."""
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.gke-dev.yaml").read_text())
    pools = doc["config"]["gpu-node-pools:pools"]
    pools[0]["accelerator"]["gpuDriverVersion"] = cos_driver
    if ubuntu_driver is not None:
        ubuntu = copy.deepcopy(pools[0])
        ubuntu.update(name="l4-ubuntu", imageType="UBUNTU_CONTAINERD")
        ubuntu["accelerator"]["gpuDriverVersion"] = ubuntu_driver
        ubuntu["taints"] = [*ubuntu["taints"], "example.com/ubuntu=yes:NoSchedule"]
        pools.append(ubuntu)
    if gpu_agents is not None:
        doc["config"]["gpu-node-pools:gpuAgents"] = gpu_agents
    return doc


def load(doc: dict):
    return load_stack_config(dict(doc["config"]), "test")


def refusal(image_type) -> str:
    doc = gke_dev(ubuntu_driver=None)
    doc["config"]["gpu-node-pools:pools"][0]["imageType"] = image_type
    with pytest.raises(ConfigError) as err:
        load(doc)
    return str(err.value)


def test_the_node_pool_gets_image_type_only_when_the_pool_sets_it():
    stack = load(gke_dev())
    cos, ubuntu = (node_pool_args(p, stack.cluster)["node_config"] for p in stack.pools)
    assert "image_type" not in cos
    assert ubuntu["image_type"] == "UBUNTU_CONTAINERD"
    doc = gke_dev(ubuntu_driver=None)
    doc["config"]["gpu-node-pools:pools"][0]["imageType"] = "COS_CONTAINERD"
    stack = load(doc)
    assert node_pool_args(stack.pools[0], stack.cluster)["node_config"]["image_type"] == "COS_CONTAINERD"


def test_a_value_in_another_case_is_refused_with_the_allowed_values_and_the_one_meant():
    assert ("pools[0].imageType: 'ubuntu_containerd': must be 'COS_CONTAINERD' or 'UBUNTU_CONTAINERD'; did you mean "
            "UBUNTU_CONTAINERD?") in refusal("ubuntu_containerd")
    assert "pools[0].imageType: 'COS': must be 'COS_CONTAINERD' or 'UBUNTU_CONTAINERD'" in refusal("COS")


@pytest.mark.parametrize("image", ["WINDOWS_LTSC_CONTAINERD", "windows_ltsc_containerd", "WINDOWS_SAC"])
def test_windows_images_are_refused_as_out_of_scope_with_the_source(image):
    message = refusal(image)
    assert f"pools[0].imageType: {image!r} is a Windows Server node image " in message
    assert "https://cloud.google.com/kubernetes-engine/docs/concepts/node-images" in message
    assert "GPU node pools on Windows are not this product's scope" in message
    assert "nvidia-driver-installer/cos and nvidia-driver-installer/ubuntu" in message
    assert "write COS_CONTAINERD or UBUNTU_CONTAINERD, or leave imageType out" in message


def test_latest_on_ubuntu_is_taken_with_a_warning_that_quotes_the_api_reference():
    stack = load(gke_dev(ubuntu_driver="LATEST", cos_driver="LATEST"))
    cos, ubuntu = (dict(p.config_warnings()) for p in stack.pools)
    assert "accelerator.gpuDriverVersion" not in cos
    message = ubuntu["accelerator.gpuDriverVersion"]
    assert message.startswith("LATEST with imageType UBUNTU_CONTAINERD: the GKE API reference describes LATEST as "
                              "'\"Latest\" GPU driver in COS'")
    assert "Write gpuDriverVersion: DEFAULT" in message
    assert "accelerator.gpuDriverVersion" not in dict(load(gke_dev(ubuntu_driver="DEFAULT")).pools[1].config_warnings())


def test_every_image_type_has_an_installer_manifest():
    assert list(get_args(GkeImageType)) == list(MANIFESTS)


def test_each_image_gets_its_own_installer_on_its_own_pools_only():
    specs = load(gke_dev()).pools
    found = dict(installer_daemonsets([agent_pool(p) for p in specs], {p.name: p.image_type for p in specs}))
    assert list(found) == ["COS_CONTAINERD", "UBUNTU_CONTAINERD"]
    cos, ubuntu = found["COS_CONTAINERD"], found["UBUNTU_CONTAINERD"]
    assert cos["metadata"]["name"] == "nvidia-driver-installer"
    pod = cos["spec"]["template"]["spec"]
    assert pod["initContainers"][0]["image"] == "cos-nvidia-installer:fixed"
    assert pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0][
        "matchExpressions"][-1] == {"key": "gpu-node-pools/pool", "operator": "In", "values": ["l4-inference"]}
    assert {"key": "example.com/ubuntu", "operator": "Exists", "effect": "NoSchedule"} not in pod["tolerations"]

    expected = yaml.safe_load(UPSTREAM.read_text())
    name = "nvidia-driver-installer-ubuntu"
    expected["metadata"].update(name=name, labels={"k8s-app": name})
    expected["spec"]["selector"]["matchLabels"] = {"k8s-app": name}
    expected["spec"]["template"]["metadata"]["labels"] = {"name": name, "k8s-app": name}
    pod = expected["spec"]["template"]["spec"]
    assert pod["tolerations"] == [{"operator": "Exists"}]
    pod["tolerations"] = [{"key": "CriticalAddonsOnly", "operator": "Exists"},
                          {"key": "example.com/ubuntu", "operator": "Exists", "effect": "NoSchedule"},
                          {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    term = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]
    term["matchExpressions"].append({"key": "gpu-node-pools/pool", "operator": "In", "values": ["l4-ubuntu"]})
    assert ubuntu == expected


def test_the_warnings_name_the_manifest_of_each_pools_image():
    cos, ubuntu = (dict(p.config_warnings())["accelerator.gpuDriverVersion"] for p in load(gke_dev()).pools)
    assert ("installs Google's COS installer on the pool as kube-system/nvidia-driver-installer "
            "(GoogleCloudPlatform/container-engine-accelerators nvidia-driver-installer/cos/daemonset-preloaded.yaml@"
            "992db81257553607f1477945f1b3219632991829") in cos
    assert "the pool names no image type, so its nodes run GKE's default COS_CONTAINERD" in cos
    assert f"If the image type is changed outside the stack, that installer no longer fits the nodes (Ubuntu nodes " \
           f"need kubectl apply -f {RAW}/ubuntu/daemonset-preloaded.yaml): set imageType in the stack instead" in cos
    assert ("installs Google's Ubuntu installer on the pool as kube-system/nvidia-driver-installer-ubuntu "
            "(GoogleCloudPlatform/container-engine-accelerators nvidia-driver-installer/ubuntu/daemonset-preloaded.yaml@")\
        in ubuntu
    assert "the pool's imageType is UBUNTU_CONTAINERD" in ubuntu
    assert f"COS nodes need kubectl apply -f {RAW}/cos/daemonset-preloaded.yaml" in ubuntu
    [off] = stack_warnings(load(gke_dev(gpu_agents={"gkeDriverInstaller": {"enabled": False}})))
    assert (f"on COS nodes (pools[0] 'l4-inference'): kubectl apply -f {RAW}/cos/daemonset-preloaded.yaml; on Ubuntu "
            f"nodes (pools[1] 'l4-ubuntu'): kubectl apply -f {RAW}/ubuntu/daemonset-preloaded.yaml") in off.message
    assert "apply the Ubuntu one under another name" in off.message


def plan(tmp_path: Path, doc: dict, capsys) -> tuple[int, dict]:
    shipped_project(tmp_path, {"g": yaml.safe_dump(doc, sort_keys=False)})
    code = cli_main(["plan", "--stack", "g", "--project-dir", str(tmp_path), "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_a_stack_of_a_cos_and_an_ubuntu_pool_without_drivers_plans_clean_with_two_installers(tmp_path, capsys):
    code, doc = plan(tmp_path, gke_dev(), capsys)
    daemonsets = {r["inputs"]["metadata"]["name"]: r["inputs"] for r in doc["resources"] if r.get("type") == DS
                  and r["inputs"]["metadata"]["name"].startswith("nvidia-driver-installer")}
    assert sorted(daemonsets) == ["nvidia-driver-installer", "nvidia-driver-installer-ubuntu"]
    pools = {name: ds["spec"]["template"]["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
             ["nodeSelectorTerms"][0]["matchExpressions"][-1]["values"] for name, ds in daemonsets.items()}
    assert pools == {"nvidia-driver-installer": ["l4-inference"], "nvidia-driver-installer-ubuntu": ["l4-ubuntu"]}
    node_pools = [r["inputs"]["nodeConfig"] for r in doc["resources"] if r.get("type") == "gcp:container/nodePool:NodePool"]
    assert sorted(n.get("imageType", "-") for n in node_pools) == ["-", "UBUNTU_CONTAINERD"]
    assert doc["configErrors"] == [] and doc["notJudged"] == [], (doc["configErrors"], doc["notJudged"])
    assert doc["violations"] == [], doc["violations"]
    assert code == 0, doc


def test_without_the_stacks_installers_the_pack_reports_both_pools(tmp_path, capsys):
    code, doc = plan(tmp_path, gke_dev(gpu_agents={"gkeDriverInstaller": {"enabled": False}}), capsys)
    messages = [v["message"] for v in doc["violations"]]
    assert any(m.startswith('No NVIDIA driver installer covers GPU pool pools[0] "l4-inference"') for m in messages)
    assert any(m.startswith('No NVIDIA driver installer covers GPU pool pools[1] "l4-ubuntu"') for m in messages)
    assert code == 1
