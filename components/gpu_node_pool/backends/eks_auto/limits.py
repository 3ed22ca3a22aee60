"""What EKS Auto Mode accepts in a ``karpenter.sh/v1`` NodePool and an ``eks.amazonaws.com/v1`` NodeClass.

Pure data and rule functions (no pydantic models, no Pulumi): the well-known requirement
keys, the NVIDIA families Auto Mode launches, the restricted label domains and tags, and the
config keys Auto Mode has no place for (custom AMIs, user data, kubelet settings).

Sources (awsdocs/amazon-eks-user-guide, files under ``latest/ug/automode/``; commits read):
  * ``create-node-pool.adoc`` @01385604 "EKS Auto Mode Supported Labels" (the
    ``eks.amazonaws.com/`` keys below; "EKS Auto Mode uses different labels than Karpenter"),
    "Not Supported Labels" (``kubernetes.io/os``, ``node.kubernetes.io/windows-build``: Linux only).
  * ``create-node-class.adoc`` @0026c9df "Node Class Specification" (``role``,
    ``subnetSelectorTerms``, ``securityGroupSelectorTerms``, ``ephemeralStorage`` ranges,
    ``tags`` and its restricted tags; "Do not name your custom node class ``default``").
  * ``automode-learn-instances.adoc`` @06faff14 "supported instance reference" (the
    accelerated families) and "AMI Support" ("AWS determines the operating system and image";
    managed instances: "You can't directly access or install software").
  * ``auto-accelerated.adoc`` @031299c7: the NVIDIA driver and device plugin are included and
    "not visible as a daemon set"; NodePools reference ``group: eks.amazonaws.com, kind: NodeClass``.
  * ``facts/aws-gpu-capacity.md`` §3c (Karpenter vs Auto Mode label columns).
"""

from __future__ import annotations

from ...k8s.labels import in_domain
from .._shared import nodepool as _nodepool

AUTO_PREFIX = "eks.amazonaws.com/"
NODE_CLASS_GROUP = "eks.amazonaws.com"
NODE_CLASS_KIND = "NodeClass"
NODE_CLASS_API_VERSION = "eks.amazonaws.com/v1"
#: The NodeClass EKS creates with the built-in node pools (``auto-accelerated.adoc`` prerequisites).
BUILT_IN_NODE_CLASS = "default"

#: "EKS Auto Mode Supported Labels" of ``create-node-pool.adoc`` in the eks.amazonaws.com domain.
AUTO_WELL_KNOWN_KEYS = frozenset(
    AUTO_PREFIX + name
    for name in (
        "instance-hypervisor", "compute-type", "instance-encryption-in-transit-supported",
        "instance-category", "instance-generation", "instance-family", "instance-size", "instance-cpu",
        "instance-cpu-manufacturer", "instance-memory", "instance-ebs-bandwidth", "instance-network-bandwidth",
        "instance-gpu-name", "instance-gpu-manufacturer", "instance-gpu-count", "instance-gpu-memory",
        "instance-local-nvme",
    )
)
#: Labels Auto Mode does not support (Linux only): "EKS Auto Mode Not Supported Labels".
AUTO_UNSUPPORTED_KEYS = ("kubernetes.io/os", "node.kubernetes.io/windows-build")

#: The NVIDIA families in the "Accelerated Computing (P/G/Inf/Trn)" row of the Auto Mode
#: supported instance reference (g4ad, inf*, trn* are not NVIDIA).
AUTO_NVIDIA_FAMILIES = frozenset(
    {"p6-b200", "p6-b300", "p5", "p5e", "p5en", "p4d", "p4de", "p3dn", "g7e", "g6", "gr6", "g6e", "g5g", "g5", "g4dn"}
)

#: Requirement keys the pool's dedicated fields write (neither ``requirements`` nor ``labels`` may).
AUTO_MANAGED_KEYS = {
    AUTO_PREFIX + "instance-category": "instanceCategories",
    AUTO_PREFIX + "instance-family": "instanceFamilies",
    "node.kubernetes.io/instance-type": "instanceTypes",
    AUTO_PREFIX + "instance-gpu-manufacturer": "(always nvidia)",
    AUTO_PREFIX + "instance-gpu-count": "gpuCounts",
    AUTO_PREFIX + "instance-gpu-name": "gpuNames",
    "karpenter.sh/capacity-type": "capacityTypes",
    "kubernetes.io/arch": "architecture",
    "topology.kubernetes.io/zone": "zones",
}
#: Well-known keys outside eks.amazonaws.com that Auto Mode NodePools take as requirements.
_CORE_WELL_KNOWN = ("topology.kubernetes.io/zone", "node.kubernetes.io/instance-type", "kubernetes.io/arch",
                    "karpenter.sh/capacity-type")

#: NodeClass ``tags`` Auto Mode refuses (``create-node-class.adoc``, comment under ``tags``).
AUTO_RESTRICTED_TAGS = ("karpenter.sh/provisioner-name", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim",
                        "karpenter.sh/managed-by", "eks.amazonaws.com/nodeclass")

#: ``ephemeralStorage`` ranges (``create-node-class.adoc``): size 1-59000Gi / 1-64000G / 1-58Ti / 1-64T.
EPHEMERAL_SIZE_MAX = {"Gi": 59000, "G": 64000, "Ti": 58, "T": 64}
EPHEMERAL_IOPS = (3000, 16000)
EPHEMERAL_THROUGHPUT = (125, 1000)

_WHY_NO_IMAGE = (
    "EKS Auto Mode chooses and patches the node image itself and takes no user data (EKS user guide "
    "automode-learn-instances: 'AWS determines the operating system and image'; create-node-class: the "
    "NodeClass has no AMI, user data or kubelet fields)"
)
#: Config keys that ask for what Auto Mode does not offer -> the fix. Pool level.
REFUSED_POOL_KEYS = {
    "amiType": "remove it; Auto Mode picks the NVIDIA image for GPU instances",
    "amiId": "remove it, or use the karpenter or self-managed backend for a custom AMI",
    "amiAlias": "remove it; Auto Mode picks the NVIDIA image for GPU instances",
    "amiSelectorTerms": "remove it, or use the karpenter backend (EC2NodeClass) for a custom AMI",
    "userData": "remove it; declare taints and labels in taints/labels, which the NodePool carries",
    "launchTemplate": "remove it; Auto Mode launches managed instances without your launch template",
    "registerWithTaints": "remove it; taints go in taints (NodePool spec.template.spec.taints)",
    "kubeletExtraArgs": "remove it; Auto Mode does not take kubelet flags",
    "kubelet": "remove it; Auto Mode does not take kubelet settings",
    "bootstrap": "remove it; Auto Mode nodes bootstrap themselves",
}
#: The same for a created ``nodeClass``.
REFUSED_NODE_CLASS_KEYS = {
    "amiSelectorTerms": REFUSED_POOL_KEYS["amiSelectorTerms"],
    "amiFamily": "remove it; the NodeClass has no AMI family",
    "amiAlias": REFUSED_POOL_KEYS["amiAlias"],
    "userData": REFUSED_POOL_KEYS["userData"],
    "kubelet": REFUSED_POOL_KEYS["kubelet"],
    "blockDeviceMappings": "use ephemeralStorage {size, iops, throughput, kmsKeyId} instead",
    "instanceProfile": "give the node IAM role name in role instead",
    "metadataOptions": "remove it; Auto Mode enforces IMDSv2 with hop limit 1 and it cannot be changed",
}


def refused_key_message(key: str, fix: str) -> str:
    """One sentence: why Auto Mode has no place for ``key``, and the fix."""
    return f"{key!r}: {_WHY_NO_IMAGE}; {fix}"


def auto_key_problem(key: str) -> str | None:
    """Why an Auto Mode NodePool refuses ``key`` as a requirement key or template label, or None.

    Rules, in order:

    1. ``karpenter.k8s.aws/...``: the self-managed Karpenter provider's keys; Auto Mode nodes
       carry ``eks.amazonaws.com/...`` instead (create-node-pool: "EKS Auto Mode uses different
       labels than Karpenter"), so such a requirement never matches a node.
    2. ``eks.amazonaws.com/...`` other than the documented well-known keys
       (:data:`AUTO_WELL_KNOWN_KEYS`): the domain is EKS's own.
    3. The NodePool CRD's restricted keys (``karpenter.sh`` domain but ``capacity-type``,
       ``karpenter.sh/nodepool``, ``kubernetes.io/hostname``), mirrored as in the karpenter backend.
    4. ``kubernetes.io/os``, ``node.kubernetes.io/windows-build``: not supported (Linux only).
    """
    if in_domain(key, "karpenter.k8s.aws"):
        suffix = key.partition("/")[2]
        fix = f"write {AUTO_PREFIX + suffix}" if AUTO_PREFIX + suffix in AUTO_WELL_KNOWN_KEYS else "remove it"
        return (
            f"{key!r} is a key of self-managed Karpenter's AWS provider; EKS Auto Mode nodes carry "
            f"eks.amazonaws.com/ labels instead (EKS user guide create-node-pool: 'EKS Auto Mode uses different "
            f"labels than Karpenter'), so it would never match a node; {fix}"
        )
    if in_domain(key, NODE_CLASS_GROUP) and key not in AUTO_WELL_KNOWN_KEYS:
        return (
            f"{key!r} is in the eks.amazonaws.com domain, which EKS reserves; only its documented well-known "
            "labels (e.g. eks.amazonaws.com/instance-family, -gpu-name, -gpu-memory; EKS user guide "
            "create-node-pool 'EKS Auto Mode Supported Labels') may be used; use your own domain, e.g. example.com/"
            + key.rpartition("/")[2]
        )
    if key in AUTO_UNSUPPORTED_KEYS:
        return (
            f"{key!r} is not supported by EKS Auto Mode, which runs Linux nodes only (EKS user guide "
            "create-node-pool 'EKS Auto Mode Not Supported Labels'); remove it"
        )
    if key == "karpenter.sh/nodepool" or key == "kubernetes.io/hostname" or (
        _nodepool.cel_label_domain(key).endswith("karpenter.sh") and key != "karpenter.sh/capacity-type"
    ):
        return (
            f"{key!r} is restricted by the karpenter.sh/v1 NodePool (CRD rules: label domain \"karpenter.sh\" is "
            "restricted but karpenter.sh/capacity-type; \"karpenter.sh/nodepool\" and \"kubernetes.io/hostname\" "
            "are restricted); use the pool's fields or your own domain"
        )
    return None


def auto_label_problem(key: str) -> str | None:
    """Why an Auto Mode NodePool template label ``key`` is refused, or None.

    :func:`auto_key_problem`, plus: no key in the ``kubernetes.io`` or ``k8s.io`` domains
    ("The kubernetes.io/ and k8s.io/ prefixes are reserved for Kubernetes core components",
    kubernetes.io docs, Labels and Selectors: syntax and character set); architecture,
    zone and instance type are set with ``architecture``, ``zones`` and ``instanceTypes``.
    """
    problem = auto_key_problem(key)
    if problem:
        return problem
    for domain in ("kubernetes.io", "k8s.io"):
        if in_domain(key, domain):
            return (
                f"{key!r} is in the {domain} domain, which Kubernetes reserves for its core components (Kubernetes "
                "docs, Labels and Selectors); use your own domain, e.g. example.com/role=gpu, or the pool's "
                "architecture/zones/instanceTypes fields"
            )
    return None


def auto_requirement_problems(key, operator, values, min_values) -> list[str]:  # noqa: ANN001 - any YAML value
    """Every reason an Auto Mode NodePool refuses a requirement: the NodePool rules
    (:func:`~gpu_node_pool.backends._shared.nodepool.nodepool_requirement_problems`) with
    :func:`auto_key_problem` for the key; ``kubernetes.io`` keys other than the well-known
    ones are left to the NodePool (custom keys of your own domain are allowed)."""
    return _nodepool.nodepool_requirement_problems(key, operator, values, min_values, auto_key_problem)


def core_well_known(key: str) -> bool:
    """A well-known key outside eks.amazonaws.com (zone, instance type, arch, capacity type)."""
    return key in _CORE_WELL_KNOWN
