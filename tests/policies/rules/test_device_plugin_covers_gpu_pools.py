"""Policy device-plugin-covers-gpu-pools: a GPU pool that needs NVIDIA's device plugin gets one that
tolerates its taints and whose affinity matches its labels; pools that bring their own plugin need
none; NVIDIA's plugin on a GKE-managed pool conflicts; Helm releases are judged from their values."""

from __future__ import annotations

import pytest
from builders import (
    EXISTS_GPU,
    GPU,
    GPU_LABELS,
    cannot_run,
    gke_pool,
    node_group,
    plugin,
    run,
)
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE as UNKNOWN

from gpu_node_pool.policies import StackResource
from gpu_node_pool.policies import rules as d


def test_pools_that_need_nvidias_plugin_fail_without_one():
    (found,) = run(d.device_plugin_covers_gpu_pools.POLICY, [node_group()])
    assert "No NVIDIA device plugin" in found["message"]


@pytest.mark.parametrize(
    "pool",
    [node_group(ami="BOTTLEROCKET_x86_64_NVIDIA"), gke_pool(taints=(GPU,)), node_group(taints=(), types=("m7i.large",), ami="AL2023_x86_64_STANDARD")],
    ids=["bottlerocket", "gke-managed", "cpu"],
)
def test_pools_that_bring_their_own_plugin_need_none(pool):
    assert run(d.device_plugin_covers_gpu_pools.POLICY, [pool]) == []


def test_a_plugin_whose_affinity_waits_for_discovery_labels_is_not_judged_never_a_finding():
    # the chart's default affinity reads NFD/GFD labels; with no NFD in the stack nobody sets them
    stack = [node_group(labels={"team": "ml"}), plugin([EXISTS_GPU])]
    assert [f for f in run(d.device_plugin_covers_gpu_pools.POLICY, stack) if "can't run" not in f["message"]] == []
    (why,) = cannot_run(d.device_plugin_covers_gpu_pools.POLICY, stack)
    assert "not judged: its node selection reads nvidia.com/gpu.present, a label that appears only once NVIDIA GPU " \
        "Feature Discovery or the NVIDIA GPU Operator runs on the node, and the stack installs no such agent" in why["message"]


def test_a_plugin_whose_affinity_excludes_the_pool_labels_fails():
    selective = plugin([EXISTS_GPU])
    selective.inputs["spec"]["template"]["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["p5.48xlarge"]}]}]}}}
    (found,) = run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(labels={"team": "ml"}), selective])
    assert "excludes 1 of the pool's 1 kind(s) of node: instance type g6.xlarge (by node.kubernetes.io/instance-type)" in found["message"]


def test_nvidias_plugin_on_a_gke_managed_pool_is_a_conflict():
    stack = [gke_pool(taints=(GPU,)), plugin([EXISTS_GPU])]
    (found,) = run(d.device_plugin_covers_gpu_pools.POLICY, stack)
    assert "gke-no-default-nvidia-gpu-device-plugin=true" in found["message"]
    opted_out = gke_pool(taints=(GPU,), labels={**GPU_LABELS, "gke-no-default-nvidia-gpu-device-plugin": "true"})
    assert run(d.device_plugin_covers_gpu_pools.POLICY, [opted_out, plugin([EXISTS_GPU])]) == []


def test_a_helm_release_is_judged_from_its_values_and_chart_defaults():
    release = StackResource("kubernetes:helm.sh/v3:Release", "nvdp", {
        "chart": "nvidia-device-plugin", "namespace": "nvidia-device-plugin", "values": {}})
    # chart defaults: tolerate nvidia.com/gpu NoSchedule, affinity includes nvidia.com/gpu.present In [true]
    assert run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(), release]) == []
    (found,) = run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(taints=("dedicated=gpu:NoSchedule",)), release])
    assert "chart nvidia-device-plugin" in found["message"]
    release.inputs["values"] = UNKNOWN
    assert cannot_run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(), release])


def test_two_device_plugins_on_one_pool_are_a_conflict_naming_both():
    # the kubelet keeps one endpoint per resource name: the second registration replaces the first
    second = plugin([EXISTS_GPU], namespace="kube-system")
    (found,) = run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(), plugin([EXISTS_GPU]), second])
    assert "2 NVIDIA device plugins would run on" in found["message"]
    assert "nvidia-device-plugin/nvidia-device-plugin" in found["message"] and "kube-system/nvidia-device-plugin" in found["message"]
    # one plugin per pool: no conflict; two plugins whose affinities keep them apart: none either
    assert run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(), plugin([EXISTS_GPU])]) == []
    elsewhere = plugin([EXISTS_GPU], affinity_label=("example.com/other-pool", "true"), namespace="kube-system")
    assert run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(), plugin([EXISTS_GPU]), elsewhere]) == []


def test_a_device_plugin_on_a_pool_whose_image_runs_its_own_is_a_conflict():
    # Bottlerocket NVIDIA variants run NVIDIA's device plugin on the host
    (found,) = run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(ami="BOTTLEROCKET_x86_64_NVIDIA"), plugin([EXISTS_GPU])])
    assert "already runs NVIDIA's device plugin" in found["message"]
    assert "nvidia.com/gpu.deploy.device-plugin=false" in found["message"]


def _component_plugin(serves: str):
    """The DaemonSet an NvidiaDevicePlugin component renders for the pools given to it: a child of the component
    (its URN's type chain), with a required node affinity on the pool label of those pools."""
    ds = plugin([EXISTS_GPU], affinity_label=("gpu-node-pools/pool", serves))
    ds.urn = ("urn:pulumi:s::p::gpu-node-pools:index:NvidiaDevicePlugin$kubernetes:helm.sh/v4:Chart"
              "$kubernetes:apps/v1:DaemonSet::nvidia-device-plugin")
    return ds


def test_a_pool_not_given_to_nvidiadeviceplugin_is_told_to_be_passed_to_it_excluded_by_its_pool_label():
    late = node_group("b", labels={"gpu-node-pools/pool": "b"})
    (found,) = run(d.device_plugin_covers_gpu_pools.POLICY, [late, _component_plugin(serves="a")])
    message = found["message"]
    assert "excludes every node of the pool by the pool's label gpu-node-pools/pool=b, a value it does not admit" in message
    assert "instance type g6.xlarge" not in message  # the instance type is not what excludes it
    assert "to NvidiaDevicePluginArgs(pools=[...])" in message
    assert "chart values nodeSelector" not in message and "NvidiaDevicePlugin does" not in message


def test_a_hand_written_plugin_excluding_a_pool_label_is_told_to_widen_its_selection():
    late = node_group("b", labels={"gpu-node-pools/pool": "b"})
    hand_written = plugin([EXISTS_GPU], affinity_label=("gpu-node-pools/pool", "a"))
    (found,) = run(d.device_plugin_covers_gpu_pools.POLICY, [late, hand_written])
    assert "by the pool's label gpu-node-pools/pool=b" in found["message"]
    assert "widen its node selection (the chart values nodeSelector / affinity)" in found["message"]
    assert "NvidiaDevicePluginArgs(pools=[...])" not in found["message"]
