"""With a NodeOverlay that declares GPUs x replicas (or MIG devices) as ``nvidia.com/gpu``, Karpenter checks
``limits['nvidia.com/gpu']`` against the overlaid capacity (kubernetes-sigs/karpenter v1.14.1 scheduler.go
``filterByRemainingResources``, the types overlaid by ``overlay/cloudprovider.go``), not against physical GPUs: a
warning at the limit says what it caps in physical GPUs and the limit that caps what was meant."""

from __future__ import annotations

from typing import Any

from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.config.warnings import stack_warnings

EKS = {"name": "ml", "nodeRoleArn": "arn:aws:iam::123456789012:role/n", "karpenterVersion": "1.14"}
PATH = "pools[0].limits['nvidia.com/gpu']"


def warnings_of(limit: Any = 32, sharing: dict[str, Any] | None = None, overlay: bool = True,
                **extra: Any) -> dict[str, str]:
    pool = {"name": "burst", "backend": "karpenter", "instanceFamilies": ["g6e", "g6"], "gpuCounts": [1],
            "nodeClass": {}, "limits": {"nvidia.com/gpu": limit},
            "gpuSharing": sharing or {"strategy": "timeSlicing", "replicas": 4}} | extra
    if overlay:
        pool["nodeOverlay"] = {"enabled": True}
    raw: dict[str, Any] = {"cluster": EKS, "pools": [pool]}
    if pool.get("mig"):
        raw["devicePlugin"] = {"provider": "gpu-operator"}
    return {w.path: w.message for w in stack_warnings(validate_stack_config(raw))}


def test_time_slicing_with_the_overlay_divides_the_physical_gpu_cap_by_the_replicas():
    message = warnings_of()[PATH]
    assert message.startswith("32 counts time-slicing replicas (gpuSharing.replicas 4), not physical GPUs")
    assert "filterByRemainingResources" in message and "overlay/cloudprovider.go@v1.14.1" in message
    assert "the pool tops out at 8 physical GPUs (32 / 4)" in message
    assert message.endswith("for 32 physical GPUs, limits['nvidia.com/gpu']: 128")


def test_mps_and_a_quoted_limit_are_read_as_written():
    message = warnings_of("64", {"strategy": "mps", "replicas": 2})[PATH]
    assert message.startswith("64 counts MPS replicas (gpuSharing.replicas 2)")
    assert "tops out at 32 physical GPUs (64 / 2)" in message and message.endswith("limits['nvidia.com/gpu']: 128")


def test_mig_single_counts_mig_devices():
    message = warnings_of(64, None, instanceFamilies=["p5"], gpuCounts=[8], gpuSharing=None,
                          mig={"strategy": "single", "profile": "1g.10gb"})[PATH]
    assert message.startswith("64 counts MIG devices (mig.profile 1g.10gb: 7 per GPU)")
    assert "tops out at 9 physical GPUs (64 / 7)" in message


def test_without_the_overlay_or_with_mig_mixed_there_is_no_such_warning():
    assert PATH not in warnings_of(overlay=False)
    assert PATH not in warnings_of(None, None, instanceFamilies=["p5"], gpuCounts=[8], gpuSharing=None,
                                   mig={"strategy": "mixed", "profile": "1g.10gb"}, limits={"nvidia.com/gpu": 64})
