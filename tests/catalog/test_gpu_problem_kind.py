"""Why a NodePool launches no node a GPU pod can use is told as data (``Evaluation.gpu_problem().kind``), one kind per
cause, and its sentence is written once: the catalog's config errors and the hand-written NodePool's note read the same
words. Causes: GPU keys reduced so that only types without GPUs match (``Requirements.Intersects``, kubernetes-sigs/
karpenter ``pkg/scheduling/requirements.go``); ``limits`` ``nvidia.com/gpu`` below one node of every GPU type
(``filterByRemainingResources``, ``pkg/controllers/provisioning/scheduling/scheduler.go``); no type at all; only
fractional-GPU types, which Karpenter gives 0 ``nvidia.com/gpu`` (aws/karpenter-provider-aws#8368)."""

from __future__ import annotations

import pytest
from builders import karpenter_pool

from gpu_node_pool.backends._shared.nodepool_detect import nodepool_gpu_node_problem
from gpu_node_pool.catalog.requirements import ZERO_GPU_LIMIT, GpuProblemKind, evaluate

FAMILY = "karpenter.k8s.aws/instance-family"
COUNT = "karpenter.k8s.aws/instance-gpu-count"
NV = {"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]}
G6F = [NV, {"key": FAMILY, "operator": "In", "values": ["g6f"]}]
NONE_LEFT = [NV, {"key": FAMILY, "operator": "In", "values": ["g6"]}, {"key": FAMILY, "operator": "NotIn", "values": ["g6"]}]
WITHOUT_GPUS = [{"key": COUNT, "operator": "In", "values": ["1"]}, {"key": COUNT, "operator": "NotIn", "values": ["1"]}]


@pytest.mark.parametrize(("requirements", "limits", "kind", "first_words"), [
    (WITHOUT_GPUS, None, GpuProblemKind.ONLY_TYPES_WITHOUT_GPUS, "its requirements select only types without GPUs ("),
    ([NV], {"nvidia.com/gpu": 0}, GpuProblemKind.GPU_LIMIT, "the NodePool launches no GPU node while limits"),
    (NONE_LEFT, None, GpuProblemKind.NO_TYPE, "Karpenter can launch no instance type for this NodePool"),
    (G6F, None, GpuProblemKind.FRACTIONAL_ONLY, "every candidate type (g6f."),
])
def test_each_cause_has_its_kind_and_its_sentence_is_the_first_line(requirements, limits, kind, first_words):
    problem = evaluate(requirements, limits).gpu_problem()
    assert problem is not None and problem.kind is kind
    assert problem.sentence.startswith(first_words), problem.sentence
    assert evaluate(requirements, limits).gpu_problems()[0].startswith(problem.sentence)


def test_a_pool_whose_gpu_pods_get_a_node_has_no_problem():
    assert evaluate([NV], {"nvidia.com/gpu": 8}).gpu_problem() is None


def test_the_gpu_limit_problem_carries_the_limit_as_written_and_the_types_left():
    p5 = {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["p5.48xlarge"]}  # 8 GPUs a node
    problem = evaluate([NV, p5], {"nvidia.com/gpu": "4"}).gpu_problem()
    assert problem.kind is GpuProblemKind.GPU_LIMIT and problem.gpu_limit == "4" and not problem.gpu_limit_zero
    assert problem.types == "no instance type"


def test_a_zero_gpu_limit_besides_only_fractional_types_is_said_before_the_other_cause():
    # g6f has 0 nvidia.com/gpu, so a zero limit drops nothing: the fractional-only cause is the kind, the limit a second
    problem = evaluate(G6F, {"nvidia.com/gpu": 0}).gpu_problem()
    assert problem.kind is GpuProblemKind.FRACTIONAL_ONLY and problem.gpu_limit_zero and problem.gpu_limit == ""
    said = nodepool_gpu_node_problem(G6F, {"nvidia.com/gpu": 0})
    assert said.startswith(f"launches no GPU node: {ZERO_GPU_LIMIT}, and besides {problem.sentence} ("), said
    assert "filterByRemainingResources" in said and "aws/karpenter-provider-aws/issues/8368" in said


def test_the_gpu_limit_sentence_is_the_notes_own_words():
    said = nodepool_gpu_node_problem([NV], {"nvidia.com/gpu": 0})
    assert said.startswith(evaluate([NV], {"nvidia.com/gpu": 0}).gpu_problem().sentence + " ("), said
    assert ZERO_GPU_LIMIT not in said and not said.startswith("launches no GPU node:")


def test_a_handwritten_nodepool_with_only_fractional_types_notes_it():
    from gpu_node_pool.policies.pools import gpu_pool_of
    from gpu_node_pool.sdk.policy_props import to_policy_props

    res = karpenter_pool(taints=["nvidia.com/gpu:NoSchedule"], requirements=G6F, limits={"nvidia.com/gpu": 8})
    pool = gpu_pool_of(res.type, to_policy_props(res.inputs), res.name, res.urn)
    said = pool.extra["launches_no_gpu_node"]
    assert said.startswith("launches no GPU node: every candidate type (g6f."), said
    assert "0 nvidia.com/gpu capacity" in said
