"""Policy gpu-workloads-select-gpu-nodes: a workload that tolerates the GPU taint also selects GPU nodes
or requests a GPU; otherwise the toleration never attracts it there (advisory)."""

from __future__ import annotations

import pytest
from builders import (
    EXISTS_GPU,
    daemonset,
    deployment,
    node_group,
    run,
)

from gpu_node_pool.policies import rules as d


def test_a_gpu_toleration_without_selection_or_gpu_request_is_advised_against():
    (found,) = run(d.gpu_workloads_select_gpu_nodes.POLICY, [deployment(tolerations=[EXISTS_GPU])])
    assert found["enforcement"] == "advisory" and "never attracts" in found["message"]


@pytest.mark.parametrize(
    "resource",
    [
        deployment(tolerations=[EXISTS_GPU], node_selector={"nvidia.com/gpu.present": "true"}),
        deployment(tolerations=[EXISTS_GPU], resources={"limits": {"nvidia.com/gpu": 1}}),
        deployment(tolerations=[EXISTS_GPU], affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "nvidia.com/gpu.present", "operator": "In", "values": ["true"]}]}]}}}),
        daemonset(tolerations=[EXISTS_GPU]),
        deployment(tolerations=[{"operator": "Exists"}]),
        deployment(tolerations=[]),
    ],
    ids=["nodeSelector", "gpu-limit", "affinity", "daemonset", "catch-all", "no-toleration"],
)
def test_gpu_workloads_that_select_or_request_gpus_pass(resource):
    assert run(d.gpu_workloads_select_gpu_nodes.POLICY, [resource]) == []


def test_selecting_a_stack_pool_label_counts():
    stack = [node_group(labels={"gpu-node-pools/pool": "training"}),
             deployment(tolerations=[EXISTS_GPU], node_selector={"gpu-node-pools/pool": "training"})]
    assert run(d.gpu_workloads_select_gpu_nodes.POLICY, stack) == []
