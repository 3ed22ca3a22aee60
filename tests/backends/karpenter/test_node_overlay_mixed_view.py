"""A Karpenter MIG ``mixed`` pool with its NodeOverlay: Karpenter still assumes the physical ``nvidia.com/gpu`` beside
the overlay's MIG devices, while the node advertises no whole GPU. The plan's autoscaler line and the config warning
say so in the same words; neither says "matches"."""

from __future__ import annotations

from typing import Any

from gpu_node_pool.backends.karpenter import node_overlay
from gpu_node_pool.backends.karpenter.render import nodepool_manifest
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.config.warnings import stack_warnings
from gpu_node_pool.gpu_agents.promise import pool_promise, promise_lines

EKS = {"name": "ml", "nodeRoleArn": "arn:aws:iam::123456789012:role/n", "karpenterVersion": "1.14"}


def stack(strategy: str = "mixed", limits: dict[str, Any] | None = None) -> Any:
    pool = {"name": "burst", "backend": "karpenter", "instanceFamilies": ["p5"], "gpuCounts": [8], "nodeClass": {},
            "limits": limits or {"nvidia.com/gpu": 64}, "mig": {"strategy": strategy, "profile": "1g.10gb"},
            "nodeOverlay": {"enabled": True}}
    return validate_stack_config({"cluster": EKS, "devicePlugin": {"provider": "gpu-operator"}, "pools": [pool]})


def view_of(s: Any) -> dict[str, Any]:
    pool = s.pools[0]
    overlays = [(o["metadata"]["name"], o) for o in node_overlay.manifests(pool)]
    return node_overlay.karpenter_view(pool, nodepool_manifest(pool, s.cluster), overlays)


def test_the_physical_gpus_karpenter_assumes_on_a_mixed_node_are_a_difference():
    view = view_of(stack())
    assert view["agrees"] is False
    (sentence,) = view["differs"]
    assert sentence.startswith("Karpenter's simulation assumes nvidia.com/gpu: 8, nvidia.com/mig-1g.10gb: 56 on "
                               "p5.48xlarge while the node advertises nvidia.com/mig-1g.10gb: 56 and no nvidia.com/gpu")
    assert "internal/rm/device_map.go" in sentence and "request nvidia.com/mig-1g.10gb only" in sentence


def test_the_autoscaler_line_says_differs_and_what_each_side_counts():
    s = stack()
    view = view_of(s)
    lines = promise_lines(pool_promise(s.pools[0], "gpu-operator", karpenter=view))
    (autoscaler,) = [line for line in lines if line.lstrip().startswith("autoscaler")]
    assert "(matches" not in autoscaler
    assert autoscaler.startswith("  autoscaler      karpenter: nvidia.com/gpu: 8, nvidia.com/mig-1g.10gb: 56 (DIFFERS "
                                 "from the node;")
    assert "while the node advertises nvidia.com/mig-1g.10gb: 56 and no nvidia.com/gpu" in autoscaler


def test_the_config_warning_is_the_plans_sentence():
    s = stack()
    (sentence,) = view_of(s)["differs"]
    mixed = [w.message for w in stack_warnings(s) if w.message.startswith("MIG mixed:")]
    assert mixed == [f"MIG mixed: {sentence}"]


def test_a_mixed_pool_is_told_its_gpu_limit_caps_only_launching_nodes_until_it_limits_the_mig_devices():
    (sentence,) = view_of(stack())["differs"]
    assert "a running node counts no nvidia.com/gpu: limits['nvidia.com/gpu'] caps only the nodes still launching" in sentence
    assert sentence.endswith("cap the pool with limits['nvidia.com/mig-1g.10gb'] (56 per node)")
    (capped,) = view_of(stack(limits={"nvidia.com/gpu": 64, "nvidia.com/mig-1g.10gb": 448}))["differs"]
    assert "cap the pool with" not in capped


def test_mig_single_still_matches():
    s = stack("single")
    view = view_of(s)
    assert view["agrees"] is True and view["differs"] == []
    assert not any(w.message.startswith("MIG mixed:") for w in stack_warnings(s))
