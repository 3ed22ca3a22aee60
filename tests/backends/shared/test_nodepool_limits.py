"""NodePool ``limits`` in both backends that write one (karpenter, eks-auto): one sentence per bad value,
quantities read by value as apimachinery reads them, and what reaches the NodePool is what was written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from builders import config_issues
from nodepool_stacks import BACKENDS, CLUSTER, POOLS

from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.plan import plan_stack


def stack(backend: str, gpus: Any) -> dict[str, Any]:
    return {"cluster": CLUSTER, "pools": [{**POOLS[backend], "limits": {"nvidia.com/gpu": gpus}}]}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("gpus", "expected"),
    [
        (True, "nvidia.com/gpu: true must be a Kubernetes quantity: an integer or a string"),
        (1.5, "nvidia.com/gpu: 1.5 is an unquoted decimal number; a limit is a Kubernetes quantity, written as an integer or a quoted string: write '1.5'"),
        ([1], "nvidia.com/gpu: [1] must be a Kubernetes quantity"),
        ("1.5", "nvidia.com/gpu: '1.5' is 1.5 GPUs; the limit must be a whole number of GPUs"),
        ("500m", "nvidia.com/gpu: '500m' is 0.5 GPUs; the limit must be a whole number of GPUs"),
        (-1, "nvidia.com/gpu: -1 is negative"),
        (2**53 + 1, "nvidia.com/gpu: 9007199254740993 is above 2^53-1: Pulumi sends resource properties as protobuf "
                    "Struct numbers (doubles), so the NodePool would get 9007199254740992; write it as a quoted string"),
        (10**400, "does not fit one at all"),
    ],
)
def test_a_bad_gpu_limit_is_one_issue_at_the_limits_path(backend, gpus, expected):
    issues = config_issues(stack(backend, gpus))
    assert len(issues) == 1, issues  # not one per member of the int-or-string union
    path, message = issues[0]
    assert path == "pools[0].limits"
    assert expected in message
    assert ".int" not in path and ".str" not in path


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("gpus", [32, "32", "1e3", "8k", "2E1", 2**53 - 1, "9007199254740993"])
def test_whole_gpu_quantities_in_any_spelling_are_accepted(backend, gpus):
    pool = validate_stack_config(stack(backend, gpus)).pools[0]
    assert pool.limits == {"nvidia.com/gpu": gpus}


STACK = """config:
  gpu-node-pools:cluster:
    name: ml-auto
    nodeRoleArn: arn:aws:iam::111122223333:role/ml-auto-node
    subnetIds: [subnet-0a1b2c3d4e5f60718]
  gpu-node-pools:pools:
    - name: inference
      backend: eks-auto
      instanceFamilies: [g6e]
      taints: ["nvidia.com/gpu=present:NoSchedule"]
      limits:
        nvidia.com/gpu: {gpus}
"""


@pytest.mark.parametrize(("written", "sent"), [("'9007199254740993'", "9007199254740993"), ("'8k'", "8k"), ("16", 16)])
def test_the_nodepool_registered_through_pulumi_carries_the_limit_as_written(temp_project, written, sent):
    project: Path = temp_project("auto", STACK.format(gpus=written))
    result = plan_stack("auto", project)
    assert not result.config_issues, result.config_issues
    nodepool = next(r for r in result.resources if r.type == "kubernetes:karpenter.sh/v1:NodePool")
    assert nodepool.inputs["spec"]["limits"] == {"nvidia.com/gpu": sent}
