"""Policy daemonsets-tolerate-gpu-taints: each DaemonSet that should run on a GPU pool tolerates all of
its taints (key, value and effect; NoExecute with seconds is an eviction), with exemptions and extra
taints from the config; unknown tolerations leave only that DaemonSet undecided."""

from __future__ import annotations

import pytest
from builders import (
    EXISTS_GPU,
    cannot_run,
    daemonset,
    node_group,
    plugin,
    run,
)
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE as UNKNOWN

from gpu_node_pool.policies import evaluate
from gpu_node_pool.policies import rules as d


def test_case_a_device_plugin_tolerating_only_the_gpu_key_fails_on_a_dedicated_pool():
    stack = [node_group(taints=("dedicated=gpu:NoSchedule",)), plugin([EXISTS_GPU])]
    (found,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, stack)
    assert "dedicated=gpu:NoSchedule not tolerated" in found["message"] and "GPU pool 'gpu'" in found["message"]
    (covered,) = run(d.device_plugin_covers_gpu_pools.POLICY, stack)
    assert "dedicated=gpu:NoSchedule" in covered["message"]


def test_case_b_value_mismatch_fails_for_nfd_and_exists_passes_for_the_plugin():
    pool = node_group(taints=("nvidia.com/gpu=true:NoSchedule",))
    nfd = daemonset("nfd-worker", "node-feature-discovery", tolerations=[
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}])
    (found,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, [pool, nfd])
    assert "node-feature-discovery/nfd-worker" in found["message"]
    assert "nvidia.com/gpu=true:NoSchedule not tolerated" in found["message"]
    assert run(d.daemonsets_tolerate_gpu_taints.POLICY, [pool, plugin([EXISTS_GPU])]) == []
    assert run(d.device_plugin_covers_gpu_pools.POLICY, [pool, plugin([EXISTS_GPU])]) == []


def test_case_c_two_taints_fail_naming_the_arch_taint():
    stack = [node_group(taints=("kubernetes.io/arch=arm64:NoSchedule", "nvidia.com/gpu:NoSchedule")), plugin([EXISTS_GPU])]
    (found,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, stack)
    assert "kubernetes.io/arch=arm64:NoSchedule not tolerated" in found["message"]
    assert "nvidia.com/gpu:NoSchedule not tolerated" not in found["message"]
    (covered,) = run(d.device_plugin_covers_gpu_pools.POLICY, stack)
    assert "kubernetes.io/arch=arm64:NoSchedule" in covered["message"]


def test_a_noexecute_toleration_with_seconds_is_reported_as_eviction_not_a_pass():
    stack = [node_group(taints=("nvidia.com/gpu=present:NoExecute",)),
             daemonset(tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300.0}])]
    (found,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, stack)
    assert "tolerated for 300 s, then evicted" in found["message"]


def test_exemptions_and_extra_taints_come_from_the_config():
    stack = [node_group(), daemonset("fluent-bit", "logging")]
    assert run(d.daemonsets_tolerate_gpu_taints.POLICY, stack, {"daemonsets-tolerate-gpu-taints": {
        "exemptions": [{"namespace": "logging", "name": "fluent-bit"}]}}) == []
    outside = {"daemonsets-tolerate-gpu-taints": {"extraTaints": ["dedicated=gpu:NoSchedule"]}}
    (found,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, [daemonset(tolerations=[EXISTS_GPU])], outside)
    assert "outside this stack" in found["message"] and "dedicated=gpu:NoSchedule" in found["message"]


def test_a_daemonset_pinned_to_another_pool_keeps_off_this_one():
    stack = [node_group(labels={"nvidia.com/gpu.present": "true", "gpu-node-pools/pool": "training"}),
             daemonset(node_selector={"gpu-node-pools/pool": "inference"})]
    assert run(d.daemonsets_tolerate_gpu_taints.POLICY, stack) == []


def test_unknown_tolerations_leave_the_daemonset_undecided_but_others_judged():
    unknown = daemonset("mystery")
    unknown.inputs["spec"]["template"]["spec"]["tolerations"] = UNKNOWN
    stack = [node_group(), unknown, daemonset("fluent-bit", "logging")]
    findings = evaluate(stack, policies=[d.daemonsets_tolerate_gpu_taints.POLICY])
    assert [f["enforcement"] for f in findings] == ["mandatory", "advisory"]
    assert "logging/fluent-bit" in findings[0]["message"]
    assert "DaemonSet mystery" in findings[1]["message"] and ".spec.template.spec.tolerations" in findings[1]["message"]


POLICY = d.daemonsets_tolerate_gpu_taints.POLICY


# --- node selection judged by the shared placement: the labels the pool's nodes will carry ------------------


@pytest.mark.parametrize("selector", [{"node.kubernetes.io/instance-type": "m5.large"}, {"kubernetes.io/arch": "arm64"}])
def test_a_daemonset_pinned_off_the_pool_by_a_platform_label_keeps_off_it(selector):
    # the pool's nodes are g6.xlarge and amd64: the selection refuses every one of them
    stack = [node_group(), daemonset("agent", "logging", node_selector=selector)]
    assert run(POLICY, stack) == [] and cannot_run(POLICY, stack) == []


def test_a_platform_label_whose_value_is_known_only_at_launch_is_not_judged_not_a_finding():
    # the node group's name (eks.amazonaws.com/nodegroup) is not in its inputs: Pulumi names it at creation
    stack = [node_group(), daemonset("agent", "logging", node_selector={"eks.amazonaws.com/nodegroup": "cpu-ng"})]
    assert run(POLICY, stack) == []
    (note,) = cannot_run(POLICY, stack)
    assert ("not judged: its node selection reads eks.amazonaws.com/nodegroup: the pool's nodes carry it with a value "
            "known only once they launch") in note["message"]


def test_a_label_nothing_sets_is_not_judged_when_it_would_admit_and_taken_as_absent_when_it_refuses():
    only_if_labelled = [node_group(), daemonset("agent", "logging", node_selector={"example.com/role": "cpu"})]
    assert run(POLICY, only_if_labelled) == []
    (note,) = cannot_run(POLICY, only_if_labelled)
    assert "not judged: its node selection reads example.com/role" in note["message"]
    not_in = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "type", "operator": "NotIn", "values": ["virtual-kubelet"]}]}]}}}
    (found,) = run(POLICY, [node_group(), daemonset("agent", "logging", affinity=not_in)])
    assert found["enforcement"] == "mandatory" and "nvidia.com/gpu=present:NoSchedule not tolerated" in found["message"]

