"""Policy gpu-pool-declares-taint: every GPU pool (EKS node group, GKE node pool, Karpenter NodePool,
self-managed launch template) carries a NoSchedule or NoExecute taint; CPU pools need none; unreadable
taints are reported and unknown ones not judged."""

from __future__ import annotations

import pytest
from builders import (
    GPU,
    cannot_run,
    gke_pool,
    karpenter_pool,
    node_group,
    nodeadm_launch_template,
    run,
)
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE as UNKNOWN

from gpu_node_pool.policies import rules as d


@pytest.mark.parametrize(
    "resource",
    [
        node_group(taints=()),
        node_group(taints=("nvidia.com/gpu=present:PreferNoSchedule",)),
        node_group(taints=(), ami="AL2023_x86_64_STANDARD", types=("p5.48xlarge",)),
        gke_pool(taints=()),
        gke_pool(taints=(), accelerators=(), machine="a3-highgpu-8g"),
        karpenter_pool(taints=()),
        karpenter_pool(taints=(), requirements=[], limits={"nvidia.com/gpu": 8}),
        karpenter_pool(taints=(), requirements=[{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6", "g6e"]}]),
    ],
    ids=lambda r: f"{r.type}:{r.inputs.get('amiType', '')}",
)
def test_a_gpu_pool_without_a_repelling_taint_fails(resource):
    (found,) = run(d.gpu_pool_declares_taint.POLICY, [resource])
    assert "NoSchedule" in found["message"] and found["enforcement"] == "mandatory"


@pytest.mark.parametrize(
    "resource",
    [
        node_group(),
        node_group(taints=("dedicated=gpu:NoExecute",)),
        node_group(taints=(), ami="AL2023_x86_64_STANDARD", types=("m7i.large",)),
        gke_pool(taints=(GPU,)),
        gke_pool(taints=(), accelerators=(), machine="n2-standard-8"),
        karpenter_pool(taints=(GPU,)),
        karpenter_pool(taints=(), requirements=[{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["m7i", "g6"]}]),
    ],
    ids=lambda r: r.type,
)
def test_a_tainted_gpu_pool_or_a_cpu_pool_passes(resource):
    assert run(d.gpu_pool_declares_taint.POLICY, [resource]) == []


def test_a_self_managed_launch_template_is_judged_by_its_kubelet_registration():
    assert run(d.gpu_pool_declares_taint.POLICY, [nodeadm_launch_template(taints=(GPU,))]) == []
    (found,) = run(d.gpu_pool_declares_taint.POLICY, [nodeadm_launch_template()])
    assert "self-managed" in found["message"] and "registerWithTaints" in found["message"]


def test_unreadable_pool_taints_are_reported_not_raised():
    bad = node_group()
    bad.inputs["taints"] = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]  # Kubernetes spelling on EKS
    (found,) = run(d.gpu_pool_declares_taint.POLICY, [bad])
    assert "its taints are not valid (" in found["message"] and "NO_SCHEDULE" in found["message"]


def test_unknown_pool_taints_cannot_be_judged():
    pool = node_group()
    pool.inputs["taints"] = UNKNOWN
    assert run(d.gpu_pool_declares_taint.POLICY, [pool]) == []
    assert cannot_run(d.gpu_pool_declares_taint.POLICY, [pool])
