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


def test_the_keep_off_advice_names_a_label_the_pools_carry():
    # a hand-written node group carries no nvidia.com/gpu.present: advising NotIn on it kept the finding
    from builders import daemonset, node_group, run

    from gpu_node_pool.policies.rules.daemonsets_tolerate_gpu_taints import POLICY

    (finding,) = run(POLICY, [node_group(labels={"example.com/pool": "gpu"}), daemonset()])
    assert "required node affinity (example.com/pool NotIn [gpu])" in finding["message"]
    # the advice, applied, clears the finding
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "example.com/pool", "operator": "NotIn", "values": ["gpu"]}]}]}}}
    assert run(POLICY, [node_group(labels={"example.com/pool": "gpu"}), daemonset(affinity=affinity)]) == []
    (finding,) = run(POLICY, [node_group(), daemonset()])
    assert "(nvidia.com/gpu.present NotIn [true])" in finding["message"]
    (finding,) = run(POLICY, [node_group(labels={}), daemonset()])
    assert "pools ['gpu'] declare no label to select on: add one to each" in finding["message"]
    # pools that share no label: one NotIn per pool's label, ANDed in one term, which keeps off them all
    two = [node_group(labels={"example.com/pool": "gpu"}), node_group("gpu-b", labels={"team": "b"})]
    (finding,) = run(POLICY, [*two, daemonset()])
    assert "(example.com/pool NotIn [gpu] AND team NotIn [b])" in finding["message"]
    both = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "example.com/pool", "operator": "NotIn", "values": ["gpu"]},
                              {"key": "team", "operator": "NotIn", "values": ["b"]}]}]}}}
    assert run(POLICY, [*two, daemonset(affinity=both)]) == []
