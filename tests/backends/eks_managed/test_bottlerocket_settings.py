"""eks-managed ``bottlerocket: {settings}``: TOML user data in the component's launch template, which EKS merges
with its own (EKS user guide launch-templates); MIG on Bottlerocket written there; what EKS owns, what breaks the
join and what EKS's TOML merge refuses are refused with the path."""

from __future__ import annotations

import base64
import datetime
import tomllib

import pytest
from builders import config_errors, config_issues
from conftest import base

from gpu_node_pool import GpuNodePool, GpuNodePoolArgs
from gpu_node_pool.backends._shared import user_data
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.plan import record

LT = "aws:ec2/launchTemplate:LaunchTemplate"
NG = "aws:eks/nodeGroup:NodeGroup"
TAG = "aws:autoscaling/tag:Tag"
BR = {"amiType": "BOTTLEROCKET_x86_64_NVIDIA"}
MIG = BR | {"instanceTypes": ["p4d.24xlarge"], "mig": {"strategy": "single", "profile": "1g.5gb"}}


def declare(provider=None, **pool):
    cfg = base()
    cfg["pools"][0] |= pool
    if provider:
        cfg["devicePlugin"] = {"provider": provider}
    stack = validate_stack_config(cfg)
    resources, _ = record(lambda: [GpuNodePool(p.name, GpuNodePoolArgs(pool=p, cluster=stack.cluster)) for p in stack.pools])
    return resources


def _toml(resources):
    (lt,) = [r.inputs for r in resources if r.type == LT]
    return base64.b64decode(lt["userData"]).decode()


def test_bottlerocket_settings_reach_the_nodes_as_toml_in_the_launch_template():
    settings = {"kubernetes": {"max-pods": 110, "eviction-hard": {"memory.available": "10%"}},
                "kernel": {"sysctl": {"vm.max_map_count": "262144"}}}
    resources = declare(**BR, bottlerocket={"settings": settings})
    (ng,) = [r.inputs for r in resources if r.type == NG]
    assert "launchTemplate" in ng and ng["amiType"] == "BOTTLEROCKET_x86_64_NVIDIA"
    text = _toml(resources)
    assert tomllib.loads(text) == {"settings": settings}
    # no cluster settings: EKS adds them when it merges the user data (no custom AMI)
    assert "cluster-name" not in text and "api-server" not in text
    # read back as the policies read it: Bottlerocket, registering nothing of its own
    assert user_data.detect_format(text) == "bottlerocket"
    assert user_data.read_registration(text).taints == () and not user_data.read_registration(text).labels


@pytest.mark.parametrize("provider", ["nvidia-device-plugin", "gpu-operator"])
def test_mig_single_on_eks_managed_bottlerocket_writes_the_mig_settings_and_tags_the_mig_devices(provider):
    resources = declare(provider, **MIG)
    text = _toml(resources)
    # Bottlerocket's MIG manager: bottlerocket-os/bottlerocket sources/nvidia-migmanager (mig_profile.rs)
    assert tomllib.loads(text) == {"settings": {"kubelet-device-plugins": {"nvidia": {
        "device-partitioning-strategy": "mig", "mig": {"profile": {"a100.40gb": "1g.5gb"}}}}}}
    # the single strategy advertises the 7 x 8 MIG devices as nvidia.com/gpu: the autoscaler is told exactly that
    tags = {r.inputs["tag"]["key"]: r.inputs["tag"]["value"] for r in resources if r.type == TAG}
    assert tags["k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu"] == "56"
    assert not [k for k in tags if "/resources/nvidia.com/mig-" in k]


def test_mig_settings_merge_with_the_users_bottlerocket_settings():
    resources = declare(**MIG, bottlerocket={"settings": {
        "kubernetes": {"max-pods": 50},
        "kubelet-device-plugins": {"nvidia": {"device-partitioning-strategy": "mig", "pass-device-specs": True}}}})
    assert tomllib.loads(_toml(resources))["settings"] == {
        "kubernetes": {"max-pods": 50},
        "kubelet-device-plugins": {"nvidia": {"device-partitioning-strategy": "mig", "pass-device-specs": True,
                                              "mig": {"profile": {"a100.40gb": "1g.5gb"}}}}}


def test_mig_mixed_on_eks_managed_bottlerocket_stays_refused_with_the_source():
    cfg = base()
    cfg["pools"][0] |= MIG | {"mig": {"strategy": "mixed", "profile": "1g.5gb"}}
    assert any("single strategy only" in e and "bottlerocket-os/bottlerocket#4483" in e for e in config_errors(cfg))


@pytest.mark.parametrize(
    ("settings", "needles"),
    [
        ({"kubernetes": {"cluster-name": "ml"}}, ["settings.kubernetes.cluster-name", "EKS supplies it"]),
        ({"kubernetes": {"api-server": "https://x"}}, ["settings.kubernetes.api-server", "EKS supplies it"]),
        ({"kubernetes": {"standalone-mode": True}}, ["settings.kubernetes.standalone-mode", "no longer join"]),
        ({"kernel": {"sysctl": {"a": 'say "hi"'}}}, ["settings.kernel.sysctl.a", "escaped quotes"]),
        ({"ntp": {"time-servers": ["a", 1]}}, ["settings.ntp.time-servers", "mixed-type arrays"]),
        ({"host-containers": {"my.admin": {"enabled": True}}}, ["settings.host-containers['my.admin']", "bracketed header"]),
        ({"kernel": {"lockdown": None}}, ["settings.kernel.lockdown", "null"]),
        ({"motd": {"since": datetime.date(2026, 1, 1)}}, ["settings.motd.since", "date is not a Bottlerocket setting value"]),
        ({"kubernetes": {"max-pods": 2**70}}, ["settings.kubernetes.max-pods", "64-bit"]),
        ({"kubernetes": {"kube-api-qps": float("nan")}}, ["settings.kubernetes.kube-api-qps", "not a finite number"]),
        ({"kubernetes": {"kube-api-burst": float("-inf")}}, ["settings.kubernetes.kube-api-burst", "nan or inf"]),
        ({"kubernetes": {"node-taints": {"dedicated": "ml:NO_SCHEDULE"}}}, ["node-taints.dedicated"]),
        ({"kubernetes": {"node-labels": {"team": 3}}}, ["node-labels"]),
        # a dotted YAML key is one key: TOML "kubernetes.max-pods" = 110, a setting Bottlerocket does not have
        ({"kubernetes.max-pods": 110}, ["settings['kubernetes.max-pods']", "{kubernetes: {max-pods: 110}}"]),
        ({"kernel.sysctl": {"vm.max_map_count": "262144"}}, ["settings['kernel.sysctl']", "{kernel: {sysctl: {...}}}"]),
    ],
)
def test_bad_bottlerocket_settings_are_refused_with_the_path(settings, needles):
    cfg = base()
    cfg["pools"][0] |= BR | {"bottlerocket": {"settings": settings}}
    errors = config_errors(cfg)
    assert any(e.startswith("pools[0]") and all(n in e for n in needles) for e in errors), errors


@pytest.mark.parametrize(
    ("settings", "path"),
    [
        ({"": 1}, "settings['']"),
        ({"motd": {"ключ": 1}}, "settings.motd.ключ"),
        ({"kernel": {"sysctl": {"vm max_map_count": "1"}}}, "settings.kernel.sysctl.vm max_map_count"),
        ({"kubernetes": {"eviction-hard": {"memory:available": "10%"}}}, "settings.kubernetes.eviction-hard.memory:available"),
        ({"kubernetes": {"eviction-hard": {"": "10%"}}}, "settings.kubernetes.eviction-hard['']"),
    ],
)
def test_a_key_bottlerocket_does_not_take_is_refused_at_its_path_before_it_is_rendered(settings, path):
    # Bottlerocket's settings keys are made of A-Za-z0-9 _ - / (a dot only inside a quoted key) and are never empty
    # (bottlerocket-os/bottlerocket-core-kit sources/api/datastore/src/key.rs): TOML writes "" = 1 or "ключ" = 1,
    # but the node's settings API refuses them.
    cfg = base()
    cfg["pools"][0] |= BR | {"bottlerocket": {"settings": settings}}
    issues = config_issues(cfg)
    assert [p for p, _ in issues] == [f"pools[0].bottlerocket.{path}"], issues
    ((_, message),) = issues
    assert "A-Za-z0-9" in message and "datastore/src/key.rs" in message and "settings reference" in message


def test_keys_bottlerocket_takes_quoted_stay_accepted():
    # a dot inside a key is one key segment (quoted in TOML): the settings reference's own examples
    settings = {"kubernetes": {"eviction-hard": {"memory.available": "10%"},
                               "node-labels": {"example.com/team": "ml"}},
                "kernel": {"sysctl": {"net.ipv4.ip_forward": "1"}}}
    cfg = base()
    cfg["pools"][0] |= BR | {"bottlerocket": {"settings": settings}}
    validate_stack_config(cfg)


@pytest.mark.parametrize(
    ("pool", "needle"),
    [
        (BR | {"bottlerocket": {"settings": {"kubelet-device-plugins": {"nvidia": {"device-partitioning-strategy": "mig"}}}}},
         "the pool has no mig"),
        (MIG | {"bottlerocket": {"settings": {"kubelet-device-plugins": {"nvidia": {"mig": {"profile": {"a100.40gb": "3g.20gb"}}}}}}},
         "writes \"1g.5gb\" there"),
        (MIG | {"bottlerocket": {"settings": {"kubelet-device-plugins": {"nvidia": {"device-partitioning-strategy": "none"}}}}},
         "writes \"mig\" there"),
        (BR | {"bottlerocket": {"settings": {"kubelet-device-plugins": {"nvidia": {"time-slicing": {"replicas": 4}}}}}},
         "time-slicing.replicas: 4 contradicts the pool"),
    ],
)
def test_device_plugin_settings_that_contradict_the_pools_mig_are_refused(pool, needle):
    cfg = base()
    cfg["pools"][0] |= pool
    errors = config_errors(cfg)
    assert any("bottlerocket.settings.kubelet-device-plugins.nvidia." in e and needle in e for e in errors), errors


def test_bottlerocket_settings_are_refused_on_al2023_with_the_fix_and_take_a_launch_template():
    cfg = base()
    cfg["pools"][0]["bottlerocket"] = {"settings": {"kubernetes": {"max-pods": 110}}}
    assert any("use kubelet" in e for e in config_errors(cfg))
    cfg = base()
    cfg["pools"][0] |= BR | {"bottlerocket": {"settings": {"kubernetes": {"max-pods": 110}}}, "diskSize": 200}
    assert any("diskSize cannot be set" in e for e in config_errors(cfg))
    cfg = base()
    cfg["pools"][0] |= MIG | {"launchTemplate": {"id": "lt-0123456789abcdef0", "version": "3"}}
    assert any("a managed node group takes one template" in e for e in config_errors(cfg))


def test_settings_whose_toml_is_more_than_ec2s_16_kb_of_user_data_are_refused():
    sysctl = {f"net.core.option{i}": "1" * 40 for i in range(400)}  # ~24 KB of TOML
    cfg = base()
    cfg["pools"][0] |= BR | {"bottlerocket": {"settings": {"kernel": {"sysctl": sysctl}}}}
    errors = config_errors(cfg)
    assert any(e.startswith("pools[0]") and "bytes of user data" in e and "16384" in e and "EKS" in e for e in errors), errors


def test_mig_on_instance_types_of_two_gpus_names_the_mix_not_an_unknown_gpu():
    cfg = base()
    cfg["pools"][0] |= MIG | {"instanceTypes": ["p4d.24xlarge", "p4de.24xlarge"]}  # A100 40GB and A100 80GB
    (error,) = [e for e in config_errors(cfg) if e.startswith("pools[0].mig:")]
    assert "different GPUs (NVIDIA A100 40GB, NVIDIA A100 80GB)" in error
    assert "not in the component's table" not in error and "one GPU" in error


def test_a_bad_setting_is_pointed_at_on_its_own_line_of_the_stack_file(tmp_path, capsys):
    from pathlib import Path

    from gpu_node_pool.cli import main

    root = Path(__file__).resolve().parents[3]
    text = (root / "stacks" / "Pulumi.dev.yaml").read_text().replace(
        "amiType: AL2023_x86_64_NVIDIA",
        "amiType: BOTTLEROCKET_x86_64_NVIDIA\n      bottlerocket:\n        settings:\n"
        "          kubernetes:\n            max-pods: 110\n            cluster-name: mine")
    (tmp_path / "Pulumi.yaml").write_text("name: gpu-node-pools\nruntime: python\n")
    stack = tmp_path / "Pulumi.dev.yaml"
    stack.write_text(text)
    line = text.splitlines().index("            cluster-name: mine") + 1
    assert main(["validate", "--file", str(stack), "--project-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f":{line}:13: pools[0].bottlerocket.settings.kubernetes.cluster-name: EKS supplies it" in err
