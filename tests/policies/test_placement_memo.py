"""The placement verdicts stay right when their inputs are computed once and kept: a pool whose
labels or instance types change gets new kinds of node, and a NodePool's requirements evaluated a
second time give the same types as the first."""

from __future__ import annotations

from gpu_node_pool.backends._shared.gpu_pool import GpuPool
from gpu_node_pool.catalog import requirements
from gpu_node_pool.k8s.taints import Taint
from gpu_node_pool.policies.placement import pool_nodes


def _pool(types: list[str], labels: dict[str, str]) -> GpuPool:
    pool = GpuPool("eks-managed", "aws:eks/nodeGroup:NodeGroup", "gpu", "", [Taint.parse("nvidia.com/gpu=present:NoSchedule")],
                   labels, "test")
    pool.instance_types = types
    return pool


def test_a_pool_whose_types_or_labels_change_gets_new_kinds_of_node():
    pool = _pool(["g6.xlarge"], {"team": "a"})
    first = pool_nodes(pool)
    assert {k.labels["node.kubernetes.io/instance-type"] for k in first} == {"g6.xlarge"}
    assert pool_nodes(pool) == first  # kept
    pool.instance_types = ["g6.xlarge", "p5.48xlarge"]
    pool.labels = {"team": "b"}
    again = pool_nodes(pool)
    assert {k.labels["node.kubernetes.io/instance-type"] for k in again} == {"g6.xlarge", "p5.48xlarge"}
    assert {k.labels["team"] for k in again} == {"b"}


def test_requirements_evaluated_twice_give_the_same_types_and_a_changed_one_differs():
    reqs = [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6"]}]
    one = requirements.evaluate(reqs)
    two = requirements.evaluate([dict(r) for r in reqs])
    assert [t.name for t in one.candidates] == [t.name for t in two.candidates]
    assert one.candidates and all(t.name.startswith("g6.") for t in one.candidates)
    other = requirements.evaluate([{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["p5"]}])
    assert {t.name for t in other.candidates}.isdisjoint(t.name for t in one.candidates)


def test_placements_kept_per_content_are_the_verdicts_place_gives():
    from gpu_node_pool.k8s.taints import Toleration
    from gpu_node_pool.policies.placement import PoolPlacements, place
    from gpu_node_pool.policies.workloads import NodeSelection

    pool = _pool(["g6.xlarge", "p5.48xlarge"], {"team": "a"})
    placed = PoolPlacements(pool, pool_nodes(pool))
    gpu = [Toleration("nvidia.com/gpu", "Exists", None, "NoSchedule")]
    anywhere = NodeSelection.of({})
    g6_only = NodeSelection.of({"nodeSelector": {"node.kubernetes.io/instance-type": "g6.xlarge"}})
    for _ in range(2):  # asked again: the kept verdict
        for tolerations, selection in ((gpu, anywhere), ([], anywhere), (gpu, g6_only)):
            assert placed(tolerations, selection) == place(tolerations, selection, pool)
    assert placed(gpu, anywhere).status == "runs"
    assert placed([], anywhere).status == "doesNotRun"
    assert placed(gpu, g6_only).status == "partial"


def test_stack_placements_keep_verdicts_per_pool_object_and_per_set_of_discovery_agents():
    from gpu_node_pool.k8s.discovery import GFD, NFD
    from gpu_node_pool.k8s.taints import Toleration
    from gpu_node_pool.policies.placement import StackPlacements, place
    from gpu_node_pool.policies.workloads import NodeSelection

    gpu = [Toleration("nvidia.com/gpu", "Exists", None, "NoSchedule")]
    on_gpus = NodeSelection.of({"nodeSelector": {"nvidia.com/gpu.present": "true"}})  # a label GFD adds
    g6_only = NodeSelection.of({"nodeSelector": {"node.kubernetes.io/instance-type": "g6.xlarge"}})
    # same name and backend, other types and taints: a pool is told apart by what it is, not by its name
    g6, p5 = _pool(["g6.xlarge"], {"team": "a"}), _pool(["p5.48xlarge"], {"team": "a"})
    p5.taints = [Taint.parse("other=x:NoSchedule")]
    for order in ([(GFD,), (), (NFD,)], [(), (NFD,), (GFD,)]):  # whichever set of agents asks first
        placed = StackPlacements()
        for _ in range(2):  # asked again: the kept verdict
            for agents in order:
                for pool in (g6, p5):
                    for selection in (on_gpus, g6_only):
                        assert placed(pool, gpu, selection, discovered=agents) == place(gpu, selection, pool, discovered=agents)
        assert placed(g6, gpu, on_gpus, discovered=(GFD,)).status == "runs"
        assert placed(g6, gpu, on_gpus).status == placed(g6, gpu, on_gpus, discovered=(NFD,)).status == "notJudged"
        assert placed(g6, gpu, g6_only).status == "runs" and placed(p5, gpu, g6_only, discovered=(GFD,)).status == "keptOff"
        assert placed(p5, gpu, on_gpus, discovered=(GFD,)).status == "doesNotRun"


def test_the_rules_of_one_evaluation_share_placements_and_the_sdk_args_do_not():
    from types import SimpleNamespace

    from gpu_node_pool.policies.rules._shared import _stack_placements

    shared = SimpleNamespace(derived={})
    assert _stack_placements(shared) is _stack_placements(shared)
    assert _stack_placements(SimpleNamespace(derived={})) is not _stack_placements(shared)
    sdk = SimpleNamespace()  # the SDK's args offer no cache: a new one each time
    assert _stack_placements(sdk) is not _stack_placements(sdk)
