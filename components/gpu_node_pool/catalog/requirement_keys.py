"""The label keys of Karpenter NodePool requirements as the catalog reads them: which it evaluates against instance
types, which select offerings instead, which every type carries, and the deprecated keys Karpenter rewrites. Pure.

Sources: aws/karpenter-provider-aws ``pkg/apis/v1/labels.go`` (the ``karpenter.k8s.aws/instance-*`` keys) and
awsdocs/amazon-eks-user-guide ``latest/ug/automode/create-node-pool.adoc`` (EKS Auto Mode's
``eks.amazonaws.com/instance-*`` keys, same suffixes and meanings); aws/karpenter-provider-aws@1d927085
``pkg/providers/instancetype/types.go`` ``computeRequirements`` (what every type carries); kubernetes-sigs/karpenter
``pkg/apis/v1/labels.go``@046bcdae ``NormalizedLabels``.
"""

from __future__ import annotations

__all__ = [
    "ARCH_KEY",
    "AUTO_MODE_PREFIX",
    "CARRIED_BY_EVERY_TYPE",
    "GPU_SUFFIXES",
    "INSTANCE_LABELS",
    "KARPENTER_PREFIX",
    "NORMALIZED_LABELS",
    "PASS_THROUGH_KEYS",
    "TYPE_KEY",
    "key_suffix",
]

KARPENTER_PREFIX = "karpenter.k8s.aws/"
AUTO_MODE_PREFIX = "eks.amazonaws.com/"
#: Label suffixes the catalog evaluates (under either prefix); integer-valued ones take Gt/Lt.
INSTANCE_LABELS = {
    "instance-family": False, "instance-category": False, "instance-generation": True, "instance-size": False,
    "instance-cpu": True, "instance-memory": True, "instance-gpu-count": True, "instance-gpu-name": False,
    "instance-gpu-manufacturer": False, "instance-gpu-memory": True,
}  # fmt: skip
#: The label suffixes that types without GPUs lack (``DoesNotExist`` in ``computeRequirements``).
GPU_SUFFIXES = frozenset(s for s in INSTANCE_LABELS if s.startswith("instance-gpu-"))
ARCH_KEY = "kubernetes.io/arch"
TYPE_KEY = "node.kubernetes.io/instance-type"
#: Well-known keys that select capacity offerings or nodes, not instance types.
PASS_THROUGH_KEYS = frozenset(
    {"karpenter.sh/capacity-type", "topology.kubernetes.io/zone", "topology.kubernetes.io/region", "kubernetes.io/os"}
)
#: Keys every instance type or offering carries as ``In`` (``computeRequirements``: arch, os, zone, region, capacity
#: type), so a NodePool whose requirements on one reduce to ``DoesNotExist`` matches no type and launches nothing
#: (``Requirements.Intersects``); on any other key (a custom label) it launches nodes without the label.
CARRIED_BY_EVERY_TYPE = PASS_THROUGH_KEYS | {ARCH_KEY}
#: Karpenter's ``NormalizedLabels``: a deprecated key in a requirement is read as its stable key.
NORMALIZED_LABELS = {
    "failure-domain.beta.kubernetes.io/zone": "topology.kubernetes.io/zone",
    "beta.kubernetes.io/arch": ARCH_KEY,
    "beta.kubernetes.io/os": "kubernetes.io/os",
    "beta.kubernetes.io/instance-type": TYPE_KEY,
    "failure-domain.beta.kubernetes.io/region": "topology.kubernetes.io/region",
}


def key_suffix(key: str) -> str | None:
    """The :data:`INSTANCE_LABELS` suffix of ``key`` under either prefix (``karpenter.k8s.aws/instance-gpu-count`` ->
    ``instance-gpu-count``), or None for any other key."""
    for prefix in (KARPENTER_PREFIX, AUTO_MODE_PREFIX):
        if key.startswith(prefix) and key[len(prefix):] in INSTANCE_LABELS:
            return key[len(prefix):]
    return None
