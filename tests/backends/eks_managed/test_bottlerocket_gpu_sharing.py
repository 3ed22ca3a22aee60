"""GPU sharing on Bottlerocket NVIDIA nodes: the pool's ``gpuSharing`` becomes Bottlerocket's own
``settings.kubelet-device-plugins.nvidia`` in the TOML user data, written so that the node advertises what the plan
promises (``rename-by-default = false``: renamed, the node would advertise ``nvidia.com/gpu.shared``); a pool's own
setting that contradicts it, and a pinned Bottlerocket release without the setting, are refused with the path."""

from __future__ import annotations

import base64
import json
import tomllib

import pytest
from builders import config_issues
from conftest import base
from stack_texts import EKS_DEV

from gpu_node_pool.cli.commands import main
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.gpu_agents.pools import agent_pool
from gpu_node_pool.gpu_agents.sharing import sharing_problems

LT = "aws:ec2/launchTemplate:LaunchTemplate"
TAG = "aws:autoscaling/tag:Tag"

STACK = EKS_DEV + """    - name: shared
      backend: eks-managed
      instanceTypes: [g6.12xlarge]
      amiType: BOTTLEROCKET_x86_64_NVIDIA
      scaling: {minSize: 0, maxSize: 4}
      taints: [nvidia.com/gpu=present:NoSchedule]
      gpuSharing: {strategy: timeSlicing, replicas: 4}
"""


def _plan(temp_project, capsys, text: str) -> tuple[int, dict]:
    project = temp_project("brshare", text)
    code = main(["plan", "--stack", "brshare", "--project-dir", str(project), "--json"])
    return code, json.loads(capsys.readouterr().out)


def _toml(report: dict) -> dict:
    (lt,) = [r for r in report["resources"] if r["type"] == LT]
    return tomllib.loads(base64.b64decode(lt["inputs"]["userData"]).decode())


def test_time_slicing_on_eks_managed_bottlerocket_plans_and_writes_bottlerocket_s_own_settings(temp_project, capsys):
    code, report = _plan(temp_project, capsys, STACK)
    assert code == 0, report.get("configErrors")
    assert _toml(report) == {"settings": {"kubelet-device-plugins": {"nvidia": {
        "device-sharing-strategy": "time-slicing",
        "time-slicing": {"replicas": 4, "rename-by-default": False, "fail-requests-greater-than-one": False}}}}}
    # g6.12xlarge carries 4 L4s: 4 x 4 replicas, the same figure the chart path gives, told to Cluster Autoscaler
    (pool,) = report["pools"]
    assert pool["gpus"]["mechanism"] == "time-slicing" and "Bottlerocket" in pool["gpus"]["by"]
    assert pool["gpus"]["advertised"] == {"nvidia.com/gpu": 16}
    assert pool["gpus"]["autoscaler"] == pool["gpus"]["autoscaler"] | {"resources": {"nvidia.com/gpu": 16}, "agrees": True}
    tags = {r["inputs"]["tag"]["key"]: r["inputs"]["tag"]["value"] for r in report["resources"] if r["type"] == TAG}
    assert tags["k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu"] == "16"


def test_the_plan_text_says_who_shares_and_what_the_node_advertises(temp_project, capsys):
    project = temp_project("brshare", STACK)
    assert main(["plan", "--stack", "brshare", "--project-dir", str(project)]) == 0
    out = capsys.readouterr().out
    assert "time-slicing by Bottlerocket's device plugin" in out
    assert "advertises      nvidia.com/gpu: 16 per node" in out


def test_a_user_setting_that_contradicts_the_sharing_is_refused_with_its_path(temp_project, capsys):
    text = STACK + "      bottlerocket:\n        settings:\n          kubelet-device-plugins:\n            nvidia:\n" \
                   "              time-slicing: {rename-by-default: true}\n"
    code, report = _plan(temp_project, capsys, text)
    assert code == 2
    (error,) = report["configErrors"]
    # at the setting's own path (and line), with the value it holds
    assert error["path"] == "pools[0].bottlerocket.settings.kubelet-device-plugins.nvidia.time-slicing.rename-by-default"
    assert error["message"].startswith("true contradicts the pool")
    assert "gpuSharing (timeSlicing, replicas 4) writes false there" in error["message"]
    assert "https://bottlerocket.dev/" in error["message"]


@pytest.mark.parametrize(("nvidia", "leaf", "value"), [
    ({"time-slicing": {"replicas": 8}}, "time-slicing.replicas", "8"),
    ({"device-sharing-strategy": "mps"}, "device-sharing-strategy", "\"mps\""),
    ({"enabled": False}, "enabled", "false"),
])
def test_other_contradictions_are_refused_too(nvidia, leaf, value):
    cfg = base()
    cfg["pools"][0] |= {"amiType": "BOTTLEROCKET_x86_64_NVIDIA", "gpuSharing": {"strategy": "timeSlicing", "replicas": 4},
                        "bottlerocket": {"settings": {"kubelet-device-plugins": {"nvidia": nvidia}}}}
    ((path, message),) = config_issues(cfg)
    assert path == f"pools[0].bottlerocket.settings.kubelet-device-plugins.nvidia.{leaf}"
    assert message.startswith(f"{value} contradicts the pool")


def test_the_component_s_own_values_and_a_user_s_fail_requests_choice_are_accepted():
    cfg = base()
    mine = {"device-sharing-strategy": "time-slicing",
            "time-slicing": {"replicas": 4, "rename-by-default": False, "fail-requests-greater-than-one": True}}
    cfg["pools"][0] |= {"amiType": "BOTTLEROCKET_x86_64_NVIDIA", "gpuSharing": {"strategy": "timeSlicing", "replicas": 4},
                        "bottlerocket": {"settings": {"kubelet-device-plugins": {"nvidia": mine}}}}
    (pool,) = validate_stack_config(cfg).pools
    from gpu_node_pool.backends.eks_managed.bottlerocket import node_settings

    # fail-requests-greater-than-one changes what a pod may request, not what the node advertises: the user's stays
    assert node_settings(pool)["kubelet-device-plugins"]["nvidia"] == mine


def test_mps_writes_the_mps_table():
    cfg = base()
    cfg["pools"][0] |= {"amiType": "BOTTLEROCKET_x86_64_NVIDIA", "gpuSharing": {"strategy": "mps", "replicas": 3}}
    (pool,) = validate_stack_config(cfg).pools
    from gpu_node_pool.backends.eks_managed.launch_template import launch_template_args

    text = base64.b64decode(launch_template_args(pool)["user_data"]).decode()
    assert tomllib.loads(text)["settings"]["kubelet-device-plugins"]["nvidia"] == {
        "device-sharing-strategy": "mps", "mps": {"replicas": 3, "rename-by-default": False}}


MIG_1G = {"instanceTypes": ["p4d.24xlarge"], "mig": {"strategy": "single", "profile": "1g.5gb"}}


@pytest.mark.parametrize(("gpus", "release", "since"), [
    ({"gpuSharing": {"strategy": "mps", "replicas": 2}}, "1.53.0-25e1f1a4", "1.54.0"),   # MPS came with 1.54.0
    ({"gpuSharing": {"strategy": "mps", "replicas": 2}}, "1.54.0-5043decc", None),
    ({"gpuSharing": {"strategy": "timeSlicing", "replicas": 2}}, "1.24.1-0d1b2c3a", "1.25.0"),  # time-slicing: 1.25.0
    ({"gpuSharing": {"strategy": "timeSlicing", "replicas": 2}}, "1.25.0-388e105a", None),
    (MIG_1G, "1.33.0-0d1b2c3a", "1.34.0"),  # MIG came with 1.34.0
    (MIG_1G, "1.34.0-388e105a", None),
], ids=["mps-old", "mps", "ts-old", "ts", "mig-old", "mig"])
def test_a_pinned_release_without_the_setting_is_refused_at_releaseVersion_with_the_release_that_has_it(gpus, release, since):
    cfg = base()
    cfg["pools"][0] |= {"amiType": "BOTTLEROCKET_x86_64_NVIDIA", "releaseVersion": release, **gpus}
    if since is None:
        assert validate_stack_config(cfg).pools[0].release_version == release
        return
    issues = dict(config_issues(cfg))
    message = issues["pools[0].releaseVersion"]  # at the pin's own line
    assert message.startswith(f"{release!r} pins Bottlerocket") and f"pin a release {since} or later" in message
    assert "bottlerocket-os/bottlerocket#" in message


def test_sharing_and_mig_together_stay_refused_on_bottlerocket():
    cfg = base()
    cfg["pools"][0] |= {"amiType": "BOTTLEROCKET_x86_64_NVIDIA", "instanceTypes": ["p4d.24xlarge"],
                        "mig": {"strategy": "single", "profile": "1g.5gb"},
                        "gpuSharing": {"strategy": "mps", "replicas": 2}}
    issues = dict(config_issues(cfg))
    assert "MPS is not supported on MIG-enabled devices" in issues["pools[0].gpuSharing"]


def test_a_bottlerocket_pool_whose_backend_writes_no_settings_is_refused_naming_the_backends_that_do():
    cfg = base()
    cfg["pools"][0] |= {"amiType": "BOTTLEROCKET_x86_64_NVIDIA", "gpuSharing": {"strategy": "timeSlicing", "replicas": 2}}
    (pool,) = validate_stack_config(cfg).pools
    from dataclasses import replace

    elsewhere = replace(agent_pool(pool), bottlerocket_settings=False)  # e.g. a Karpenter Bottlerocket NodeClass
    (problem,) = sharing_problems(elsewhere, "pools[0].gpuSharing")
    assert "writes no Bottlerocket settings" in problem.message and "BOTTLEROCKET_* amiType" in problem.message


def test_every_contradicting_setting_is_reported_in_one_pass_with_the_fix_once():
    cfg = base()
    nvidia = {"device-sharing-strategy": "mps", "time-slicing": {"replicas": 8, "rename-by-default": True}}
    cfg["pools"][0] |= {"amiType": "BOTTLEROCKET_x86_64_NVIDIA", "gpuSharing": {"strategy": "timeSlicing", "replicas": 4},
                        "bottlerocket": {"settings": {"kubelet-device-plugins": {"nvidia": nvidia}}}}
    ((path, message),) = config_issues(cfg)
    assert path == "pools[0].bottlerocket.settings.kubelet-device-plugins.nvidia"
    for sentence in ('device-sharing-strategy: "mps" contradicts', "time-slicing.replicas: 8 contradicts",
                     "time-slicing.rename-by-default: true contradicts"):
        assert sentence in message, message
    assert message.count("set mig or gpuSharing on the pool instead") == 1
    # a node-taints conflict of the same pool hides none of them
    nvidia_taint = {"kubernetes": {"node-taints": {"nvidia.com/gpu": "absent:NoSchedule"}}}
    cfg["pools"][0]["taints"] = ["nvidia.com/gpu=present:NoSchedule"]
    cfg["pools"][0]["bottlerocket"]["settings"] |= nvidia_taint
    ((path, message),) = config_issues(cfg)
    assert path == "pools[0]"
    assert "node-taints" in message and "time-slicing.rename-by-default: true contradicts" in message, message


def test_replicas_beyond_bottlerocket_s_bound_are_refused_at_replicas():
    cfg = base()
    cfg["pools"][0] |= {"amiType": "BOTTLEROCKET_x86_64_NVIDIA", "gpuSharing": {"strategy": "timeSlicing", "replicas": 2**31}}
    issues = dict(config_issues(cfg))
    assert "2147483647" in issues["pools[0].gpuSharing.replicas"]  # at the value's own line
