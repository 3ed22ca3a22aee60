"""A NodePool whose requirements on an ``instance-gpu-*`` key reduce to ``DoesNotExist`` (``In [1]`` with ``NotIn [1]``:
``Requirements.Add``, kubernetes-sigs/karpenter ``pkg/scheduling/requirements.go``) is judged as Karpenter judges it:
types without GPUs carry the key as ``DoesNotExist`` (aws/karpenter-provider-aws ``pkg/providers/instancetype/types.go``
``computeRequirements``) and ``Requirements.Intersects`` lets ``DoesNotExist`` meet ``DoesNotExist``, so its nodes have
no GPU. A stack pool cannot select them (the component requires ``instance-gpu-manufacturer In [nvidia]``): a GPU key
reduced so leaves it no type, which is refused with the reduction named."""

from __future__ import annotations

import re

from builders import config_issues, karpenter_pool

from gpu_node_pool.backends.eks_auto.detect import detect as auto_detect
from gpu_node_pool.catalog.requirements import evaluate
from gpu_node_pool.policies.pools import gpu_pool_of
from gpu_node_pool.sdk.policy_props import to_policy_props

COUNT = "karpenter.k8s.aws/instance-gpu-count"
CONTRADICT = [{"key": COUNT, "operator": "In", "values": ["1"]}, {"key": COUNT, "operator": "NotIn", "values": ["1"]}]


def _pool(res):
    return gpu_pool_of(res.type, to_policy_props(res.inputs), res.name, res.urn)


def test_the_catalog_leaves_only_types_without_gpus_and_says_why():
    result = evaluate(CONTRADICT)
    names = {t.name for t in result.candidates}
    assert "m5.large" in names and "g6.xlarge" not in names and "p5.48xlarge" not in names
    assert all(t.ec2_gpus == 0 and not t.is_nvidia for t in result.candidates)
    head = result.gpu_problems()[0]
    assert head.startswith("its requirements select only types without GPUs (")
    assert ("requirements[0], requirements[1] on karpenter.k8s.aws/instance-gpu-count reduce to DoesNotExist" in head
            and "Requirements.Intersects" in head and "require the GPUs you want with In" in head), head
    alone, left = map(int, re.findall(r"\d+", result.explanation()[0].split(":", 1)[1]))
    assert alone < 100 < left, result.explanation()[0]  # alone as written (types with one GPU); left: Karpenter's


def test_a_handwritten_nodepool_so_reduced_is_not_a_gpu_pool():
    assert _pool(karpenter_pool(requirements=CONTRADICT, limits={"cpu": 1000})) is None
    assert _pool(karpenter_pool(requirements=CONTRADICT[:1], limits={"cpu": 1000})) is not None  # In [1] alone is


def test_with_a_gpu_limit_it_is_gpu_intended_and_its_note_says_it_selects_only_types_without_gpus():
    pool = _pool(karpenter_pool(taints=["nvidia.com/gpu:NoSchedule"], requirements=CONTRADICT,
                                limits={"nvidia.com/gpu": 8}))
    assert pool is not None
    said = pool.extra["launches_no_gpu_node"]
    assert said.startswith("launches no GPU node: its requirements select only types without GPUs"), said
    assert "reduce to DoesNotExist" in said, said


def test_an_auto_mode_nodepool_so_reduced_without_a_gpu_limit_is_not_a_gpu_pool():
    key = "eks.amazonaws.com/instance-gpu-count"
    props = {"metadata": {"name": "gpu"}, "spec": {"limits": {"cpu": 1000}, "template": {"spec": {
        "nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"},
        "requirements": [{"key": key, "operator": "In", "values": ["1"]},
                         {"key": key, "operator": "NotIn", "values": ["1"]}]}}}}
    assert auto_detect("kubernetes:karpenter.sh/v1:NodePool", props, "auto", "urn:auto", {}) is None
    props["spec"]["template"]["spec"]["requirements"].pop()
    assert auto_detect("kubernetes:karpenter.sh/v1:NodePool", props, "auto", "urn:auto", {}) is not None


def test_a_stack_pool_whose_gpu_key_reduces_to_does_not_exist_is_refused_with_the_reduction():
    memory = "karpenter.k8s.aws/instance-gpu-memory"
    pool = {"name": "burst", "backend": "karpenter", "instanceFamilies": ["g6e"], "nodeClass": {},
            "limits": {"nvidia.com/gpu": 8}, "requirements": [
                {"key": memory, "operator": "Gt", "values": ["100000"]}, {"key": memory, "operator": "Lt", "values": ["10"]}]}
    issues = config_issues({"cluster": {"name": "ml-prod", "nodeRoleArn": "arn:aws:iam::444455556666:role/n"},
                            "pools": [pool]})
    [message] = [m for path, m in issues if path == "pools[0]"]
    assert "Karpenter can launch no instance type for this NodePool" in message, message
    assert "requirements[4], requirements[5] on karpenter.k8s.aws/instance-gpu-memory reduce to DoesNotExist" in message
    assert "kubernetes-sigs/karpenter pkg/scheduling/requirements.go" in message
