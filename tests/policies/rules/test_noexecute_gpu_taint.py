"""Policy noexecute-gpu-taint: a NoExecute taint on a GPU pool is advised against (NoSchedule instead)."""

from __future__ import annotations

from builders import (
    GPU,
    node_group,
    run,
)

from gpu_node_pool.policies import rules as d


def test_a_noexecute_gpu_taint_is_advised_against():
    (found,) = run(d.noexecute_gpu_taint.POLICY, [node_group(taints=(GPU, "workload=training:NoExecute"))])
    assert found["enforcement"] == "advisory" and "Prefer workload=training:NoSchedule" in found["message"]
    assert run(d.noexecute_gpu_taint.POLICY, [node_group()]) == []
    assert run(d.noexecute_gpu_taint.POLICY, [node_group(taints=("x=y:NoExecute",), types=("m7i.large",), ami="AL2023_x86_64_STANDARD")]) == []
