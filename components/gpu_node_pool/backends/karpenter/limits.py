"""Karpenter v1.14.1 CRD limits and the CEL/Go rules mirrored at config time (tests/backends/karpenter/test_karpenter.py checks them against the CRDs)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import (
    Field,
)

from ...k8s.integers import INT32_MAX, INT32_MIN
from ...k8s.wellknown import NVIDIA_GPU_RESOURCE
from .._shared.nodepool import (
    KARPENTER_QUANTITY_RE,
    NodePoolRequirement,
    cel_label_domain,
    nodepool_requirement_problems,
)
from .._shared.nodepool_crd import NODEPOOL_CRD_SOURCE

#: Where the NodePool CRD rules quoted in messages live.
KARPENTER_MAX_SELECTOR_TERM_TAGS = 20  # EC2NodeClass *SelectorTerms[].tags maxProperties
KARPENTER_ALIAS_MAX = 30  # EC2NodeClass amiSelectorTerms[].alias maxLength
#: AMI alias families that have NVIDIA variants Karpenter picks for GPU instances (al2 AMIs
#: stopped being published on 2025-11-26; Windows has no NVIDIA EKS AMI).
KARPENTER_GPU_ALIAS_FAMILIES = ("al2023", "bottlerocket")
#: NodePool label CEL rule: of the karpenter.sh domain only these keys pass
#: (``karpenter.sh/nodepool`` is listed there but refused by its own rule).
KARPENTER_SH_ALLOWED_LABELS = ("karpenter.sh/capacity-type",)
#: NodePool label and requirement-key CEL rule: the karpenter.k8s.aws keys that pass (v1.14.1).
KARPENTER_AWS_ALLOWED_LABELS = frozenset(
    "karpenter.k8s.aws/" + name
    for name in (
        "instance-tenancy", "capacity-reservation-type", "capacity-reservation-id",
        "capacity-reservation-interruptible", "ec2nodeclass", "instance-encryption-in-transit-supported",
        "instance-category", "instance-hypervisor", "instance-family", "instance-generation",
        "instance-local-nvme", "instance-size", "instance-cpu", "instance-cpu-manufacturer",
        "instance-cpu-sustained-clock-speed-mhz", "instance-memory", "instance-ebs-bandwidth",
        "instance-network-bandwidth", "instance-gpu-name", "instance-gpu-manufacturer", "instance-gpu-count",
        "instance-gpu-memory", "instance-accelerator-name", "instance-accelerator-manufacturer",
        "instance-accelerator-count", "instance-capability-flex", "placement-group-id",
        "placement-group-partition",
    )
)
#: Set by Karpenter on every node to its EC2NodeClass's name; allowed by the NodePool CEL rule above but not
#: a well-known label of the provider's ``init()`` (aws/karpenter-provider-aws ``pkg/apis/v1/labels.go``@v1.14.1),
#: so Karpenter's ``RuntimeValidate`` (kubernetes-sigs/karpenter ``IsRestrictedLabel``) refuses it.
KARPENTER_NODE_CLASS_LABEL = "karpenter.k8s.aws/ec2nodeclass"
#: Requirement keys the pool's dedicated fields write; neither ``requirements`` nor
#: ``labels`` may set them too (Karpenter would intersect both silently).
KARPENTER_MANAGED_KEYS = {
    "karpenter.k8s.aws/instance-family": "instanceFamilies",
    "node.kubernetes.io/instance-type": "instanceTypes",
    "karpenter.k8s.aws/instance-gpu-manufacturer": "(always nvidia)",
    "karpenter.k8s.aws/instance-gpu-count": "gpuCounts",
    "karpenter.k8s.aws/instance-gpu-name": "gpuNames",
    "karpenter.sh/capacity-type": "capacityTypes",
    "kubernetes.io/arch": "architecture",
    "topology.kubernetes.io/zone": "zones",
}
#: The resource every GPU NodePool must limit.
KARPENTER_GPU_RESOURCE = NVIDIA_GPU_RESOURCE

# EC2NodeClass CRD rules, v1.14.1 (the NodePool's are in backends/_shared/nodepool.py).
#: ``amiSelectorTerms[].alias``: ``family@version``, e.g. ``al2023@latest``.
KARPENTER_ALIAS_RE = re.compile(r"^[a-zA-Z0-9]+@.+$")
#: ``tags`` keys EKS or Karpenter set themselves, refused on an EC2NodeClass (CEL rules; keys
#: starting with ``kubernetes.io/cluster`` are refused too).
KARPENTER_RESTRICTED_TAGS = ("eks:eks-cluster-name", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim",
                             "karpenter.k8s.aws/ec2nodeclass")

# EC2NodeClass ``spec.kubelet`` (openAPIV3Schema and x-kubernetes-validations, v1.14.1).
#: Where the kubelet rules come from, as messages cite it.
KARPENTER_KUBELET_SOURCE = (
    "EC2NodeClass CRD spec.kubelet, aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml"
)
#: The keys ``evictionHard``, ``evictionSoft`` and ``evictionSoftGracePeriod`` take (CEL "valid keys for ...").
KARPENTER_EVICTION_SIGNALS = ("memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available",
                              "imagefs.inodesFree", "pid.available")
#: The keys ``kubeReserved`` and ``systemReserved`` take (CEL "valid keys for ...").
KARPENTER_RESERVED_RESOURCES = ("cpu", "memory", "ephemeral-storage", "pid")
#: ``evictionHard`` / ``evictionSoft`` values: a percentage up to 100% (two decimals at most), a
#: quantity, or empty (the CRD pattern, as written there).
KARPENTER_EVICTION_VALUE_RE = re.compile(
    r"^((\d{1,2}(\.\d{1,2})?|100(\.0{1,2})?)%||(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
    r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?)$"
)
#: ``kubeReserved`` / ``systemReserved`` values: a quantity (the CRD pattern), not negative (CEL rule).
KARPENTER_RESERVED_VALUE_RE = KARPENTER_QUANTITY_RE
#: The integer fields of ``spec.kubelet`` (all ``format: int32``) -> (minimum, maximum).
KARPENTER_KUBELET_INTS = {
    "maxPods": (0, INT32_MAX),
    "podsPerCore": (0, INT32_MAX),
    "evictionMaxPodGracePeriod": (INT32_MIN, INT32_MAX),
    "imageGCHighThresholdPercent": (0, 100),
    "imageGCLowThresholdPercent": (0, 100),
}


def karpenter_release(version: str) -> tuple[int, int]:
    """``(major, minor)`` of a ``cluster.karpenterVersion`` the config accepted (``1.11``, ``v1.11.2``), to compare
    with the release a feature needs."""
    major, minor = version.lstrip("v").split(".")[:2]
    return int(major), int(minor)


def karpenter_label_problem(key: str) -> str | None:
    """Why Karpenter refuses ``key`` as a NodePool label or requirement key, or None.

    Rules (NodePool CRD v1.14.1, ``x-kubernetes-validations`` on
    ``spec.template.metadata.labels`` and on ``requirements[].key``), checked in this order:

    1. ``karpenter.sh/nodepool``: Karpenter sets it ("label "karpenter.sh/nodepool" is restricted").
    2. ``kubernetes.io/hostname``: refused ("label "kubernetes.io/hostname" is restricted").
    3. A key whose domain (the text before the first ``/``, or the whole key) ends with
       ``karpenter.sh``, other than ``karpenter.sh/capacity-type``
       ("label domain "karpenter.sh" is restricted").
    4. A key whose domain ends with ``karpenter.k8s.aws``, other than the well-known
       :data:`KARPENTER_AWS_ALLOWED_LABELS` ("label domain "karpenter.k8s.aws" is restricted").
    5. ``karpenter.k8s.aws/ec2nodeclass`` (:data:`KARPENTER_NODE_CLASS_LABEL`): the CEL rule allows it, but
       Karpenter's Go ``IsRestrictedLabel`` refuses it at run time (the NodePool is never ready).
    6. ``eks.amazonaws.com/instance-*``: EKS Auto Mode's spelling of the well-known labels
       (EKS user guide automode/create-node-pool: "EKS Auto Mode uses different labels than
       Karpenter"); self-managed Karpenter's nodes never carry them, so nothing would launch.

    Not refused here: keys in ``kubernetes.io`` and ``k8s.io`` (``foo.kubernetes.io/x``). Since
    kubernetes-sigs/karpenter v1.9.0 (commit 37f5de7a, "simplify RestrictedLabel filtering and relax cel
    restrictions") ``RestrictedLabelDomains`` holds only ``karpenter.sh`` (the AWS provider adds
    ``karpenter.k8s.aws``), and the provider keeps such labels out of the kubelet's flags
    (``RejectForbiddenLabels``, ``pkg/providers/amifamily/resolver.go``@v1.14.1) while Karpenter puts them
    on the Node itself; older releases refuse them, which
    :func:`gpu_node_pool.backends.karpenter.label_domains.version_issue` judges against ``cluster.karpenterVersion``.
    """
    if key == "karpenter.sh/nodepool":
        return (
            "'karpenter.sh/nodepool' is set by Karpenter to the NodePool name (NodePool CRD rule: label "
            f"\"karpenter.sh/nodepool\" is restricted, {NODEPOOL_CRD_SOURCE}); select the pool with gpu-node-pools/pool instead"
        )
    if key == "kubernetes.io/hostname":
        return (
            "'kubernetes.io/hostname' is the node's own name and cannot be set for a whole pool (NodePool CRD rule: "
            f"label \"kubernetes.io/hostname\" is restricted, {NODEPOOL_CRD_SOURCE}); remove it"
        )
    domain = cel_label_domain(key)
    if domain.endswith("karpenter.sh") and key not in KARPENTER_SH_ALLOWED_LABELS:
        return (
            f"{key!r} is in the karpenter.sh domain, which Karpenter reserves for itself (NodePool CRD rule: label "
            f"domain \"karpenter.sh\" is restricted, {NODEPOOL_CRD_SOURCE}; only karpenter.sh/capacity-type is allowed); "
            "use your own domain, e.g. example.com/" + key.rpartition("/")[2]
        )
    if key == KARPENTER_NODE_CLASS_LABEL:
        return (
            f"{key!r} is set by Karpenter to the EC2NodeClass name; the NodePool CRD lets it in, but Karpenter's "
            "runtime validation refuses it (kubernetes-sigs/karpenter pkg/apis/v1/labels.go IsRestrictedLabel: the "
            "karpenter.k8s.aws domain is restricted and ec2nodeclass is not among aws/karpenter-provider-aws "
            "pkg/apis/v1/labels.go@v1.14.1 WellKnownLabels), so the NodePool is not ready and launches nothing; remove "
            "it and choose the class with nodeClass or nodeClassRef"
        )
    if domain.endswith("karpenter.k8s.aws") and key not in KARPENTER_AWS_ALLOWED_LABELS:
        return (
            f"{key!r} is in the karpenter.k8s.aws domain, which Karpenter reserves (NodePool CRD: label domain "
            "\"karpenter.k8s.aws\" is restricted; only its well-known labels such as "
            "karpenter.k8s.aws/instance-family are allowed); use your own domain, e.g. example.com/"
            + key.rpartition("/")[2]
        )
    if key.startswith("eks.amazonaws.com/instance-"):
        suffix = key.partition("/")[2]
        fix = (f"write karpenter.k8s.aws/{suffix}" if "karpenter.k8s.aws/" + suffix in KARPENTER_AWS_ALLOWED_LABELS
               else "remove it")
        return (
            f"{key!r} is EKS Auto Mode's label; self-managed Karpenter's nodes carry karpenter.k8s.aws/ labels instead "
            f"(EKS user guide create-node-pool: 'EKS Auto Mode uses different labels than Karpenter'), so it would "
            f"never match a node; {fix}, or use backend: eks-auto"
        )
    return None


def selector_tags_problem(tags: Mapping[str, str], what: str) -> str | None:
    """Why the ``tags`` of an EC2NodeClass selector term are refused, or None when they are fine.

    ``what`` names the term in the sentence (e.g. ``"the selector"``). Rules of
    ``*SelectorTerms[].tags``: at least one tag, at most
    :data:`KARPENTER_MAX_SELECTOR_TERM_TAGS` (CRD ``maxProperties``), no empty key or value (CEL
    "empty tag keys or values aren't supported"; ``*`` matches any value).
    """
    if not tags:
        return f"{what} must hold at least one tag"
    if len(tags) > KARPENTER_MAX_SELECTOR_TERM_TAGS:
        return f"{what} has {len(tags)} tags; a Karpenter selector term takes at most {KARPENTER_MAX_SELECTOR_TERM_TAGS}"
    empty = [k for k, v in tags.items() if k == "" or v == ""]
    if empty:
        return f"{what}: tag {empty[0]!r} has an empty key or value, which Karpenter does not support (use '*' for any value)"
    return None


class KarpenterRequirement(NodePoolRequirement):
    """An extra NodePool requirement (``spec.template.spec.requirements[]``).

    ``{key, operator, values, minValues}``: ``key`` a qualified name up to 316 characters outside
    the restricted Karpenter domains; ``operator`` one of In, NotIn, Exists, DoesNotExist, Gt, Lt,
    Gte, Lte; ``In`` needs values; Gt/Lt/Gte/Lte need exactly one non-negative integer; Exists and
    DoesNotExist take no values; ``minValues`` 1-50 and at most the number of values.
    Sources: NodePool CRD v1.14.1 and ``nodeclaim_validation.go`` ``ValidateRequirement``. Gte and Lte need
    Karpenter >= v1.9.0, judged against ``cluster.karpenterVersion`` by
    :func:`gpu_node_pool.backends.karpenter.requirement_operators.version_issues`.
    """

    key: str = Field(description="Label key, e.g. karpenter.k8s.aws/instance-gpu-memory.")

    def _problems(self) -> list[str]:
        return karpenter_requirement_problems(self.key, self.operator, self.values, self.min_values)


def karpenter_requirement_problems(key: Any, operator: Any, values: list[Any], min_values: int | None) -> list[str]:
    """Every reason Karpenter refuses a NodePool requirement; empty when it is fine.

    The NodePool rules of :func:`~gpu_node_pool.backends._shared.nodepool.nodepool_requirement_problems`
    with Karpenter's restricted keys (:func:`karpenter_label_problem`).
    """
    return nodepool_requirement_problems(key, operator, values, min_values, karpenter_label_problem)
