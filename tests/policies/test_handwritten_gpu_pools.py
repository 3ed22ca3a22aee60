"""GPU pools written by hand are recognised from the instance types their requirements
can select (the catalog's requirement evaluator), and a GPU limit of 0 means "no GPUs"."""

from __future__ import annotations

from builders import karpenter_pool, run

from gpu_node_pool.policies import rules as d
from gpu_node_pool.policies.pools import gpu_pool_of
from gpu_node_pool.sdk.policy_props import to_policy_props


def req(key: str, *values: str, op: str = "In") -> dict:
    return {"key": key, "operator": op, "values": list(values)}


def _pool(res):
    return gpu_pool_of(res.type, to_policy_props(res.inputs), res.name, res.urn)


def test_auto_mode_and_category_nodepools_without_taints_are_gpu_pools_and_fail():
    auto = karpenter_pool(requirements=[req("eks.amazonaws.com/instance-family", "g5", "g6", "p5")])
    auto.inputs["spec"]["template"]["spec"]["nodeClassRef"] = {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"}
    category = karpenter_pool(requirements=[req("karpenter.k8s.aws/instance-category", "g", "p")])
    for pool in (auto, category):
        assert _pool(pool) is not None
        (found,) = run(d.gpu_pool_declares_taint.POLICY, [pool])
        assert "ordinary pods will be scheduled on its GPU nodes" in found["message"] and found["enforcement"] == "mandatory"


def test_a_cpu_nodepool_with_a_zero_gpu_limit_is_not_a_gpu_pool():
    cpu = karpenter_pool(requirements=[req("karpenter.k8s.aws/instance-category", "c", "m", "r")],
                         limits={"cpu": "1000", "nvidia.com/gpu": "0"})
    assert _pool(cpu) is None
    assert run(d.gpu_pool_declares_taint.POLICY, [cpu]) == [] and run(d.scale_from_zero_hints.POLICY, [cpu]) == []


def test_a_general_purpose_nodepool_is_not_called_a_gpu_pool_but_a_gpu_limit_makes_one():
    general = karpenter_pool(requirements=[req("kubernetes.io/arch", "amd64")])
    assert _pool(general) is None
    assert _pool(karpenter_pool(requirements=[req("kubernetes.io/arch", "amd64")], limits={"nvidia.com/gpu": 8})) is not None


def test_the_keep_off_advice_names_labels_that_mark_gpu_nodes():
    from builders import daemonset, node_group, run

    from gpu_node_pool.policies.rules.daemonsets_tolerate_gpu_taints import POLICY

    (finding,) = run(POLICY, [node_group(), daemonset()])
    assert "required node affinity (nvidia.com/gpu.present NotIn [true])" in finding["message"]
    # a hand-written node group without the GPU label: its label keys are offered, not quoted with values
    # (a team label may be on CPU nodes too, and a value may be a secret)
    (finding,) = run(POLICY, [node_group(labels={"example.com/pool": "gpu"}), daemonset()])
    assert ("a label only the GPU nodes carry NotIn its value for pool 'gpu' (one of its labels "
            "example.com/pool, if only its GPU nodes carry it)") in finding["message"]
    assert "NotIn [gpu]" not in finding["message"]
    (finding,) = run(POLICY, [node_group(labels={}), daemonset()])
    assert "pool 'gpu', which declares no label: add one" in finding["message"]
    # a pool with the GPU label and one without: the term holds both parts
    two = [node_group(), node_group("gpu-b", labels={"team": "b"})]
    (finding,) = run(POLICY, [*two, daemonset()])
    assert "(nvidia.com/gpu.present NotIn [true] AND a label only the GPU nodes carry NotIn its value for pool " \
        "'gpu-b'" in finding["message"]
    # the advice, applied with the GPU label, clears the finding
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "nvidia.com/gpu.present", "operator": "NotIn", "values": ["true"]}]}]}}}
    assert run(POLICY, [node_group(), daemonset(affinity=affinity)]) == []
