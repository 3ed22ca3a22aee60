"""Config of ``eks-auto`` pools: an EKS Auto Mode NodePool, its NodeClass (built-in, existing or created), stack rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from ...catalog import instances
from ...config.common import AwsTags, Model, fail
from ...config.errors import ConfigIssue
from ...k8s.patterns import full_match
from ...text.listing import listed
from .._shared.nodepool import (
    K8S_OBJECT_NAME_RE,
    KARPENTER_ARCHITECTURES,
    KARPENTER_CAPACITY_TYPES,
    KARPENTER_MAX_REQUIREMENTS,
    KarpenterDisruption,
    NodePoolRequirement,
)
from .._shared.nodepool_config import NodeClassBase
from .._shared.nodepool_startup import StartupTaintsPool
from .feasibility import feasibility_issues, is_validated
from .limits import (
    AUTO_MANAGED_KEYS,
    AUTO_NVIDIA_FAMILIES,
    AUTO_PREFIX,
    AUTO_RESTRICTED_TAGS,
    BUILT_IN_NODE_CLASS,
    EPHEMERAL_IOPS,
    EPHEMERAL_SIZE_MAX,
    EPHEMERAL_THROUGHPUT,
    NODE_CLASS_GROUP,
    NODE_CLASS_KIND,
    REFUSED_NODE_CLASS_KEYS,
    REFUSED_POOL_KEYS,
    auto_label_problem,
    auto_requirement_problems,
    refused_key_message,
)

#: EKS user guide "Deploy an accelerated workload": Auto Mode "includes the NVIDIA device plugin for
#: Kubernetes. This plugin runs automatically and isn't visible as a daemon set in your cluster."
AUTO_ACCELERATED_URL = "https://docs.aws.amazon.com/eks/latest/userguide/auto-accelerated.html"
_SOURCE_FAMILIES = "EKS user guide automode-learn-instances, 'EKS Auto Mode supported instance reference'"


def _object_name_problem(name: str) -> str | None:
    if len(name) > 253 or not full_match(K8S_OBJECT_NAME_RE, name):
        return f"{name!r} is not a Kubernetes object name (lower-case DNS subdomain, e.g. gpu-l40s)"
    return None


class AutoRequirement(NodePoolRequirement):
    """An extra NodePool requirement ``{key, operator, values, minValues}`` in Auto Mode's keys.

    The NodePool rules (operators, values, ``minValues``; Karpenter v1.14.1 CRD) and Auto Mode's
    keys: ``eks.amazonaws.com/`` well-known keys only, no ``karpenter.k8s.aws/`` keys
    (:func:`~gpu_node_pool.backends.eks_auto.limits.auto_key_problem`).
    """

    key: str = Field(description="Label key, e.g. eks.amazonaws.com/instance-gpu-memory.")

    def _problems(self) -> list[str]:
        return auto_requirement_problems(self.key, self.operator, self.values, self.min_values)


class AutoNodeClassRef(Model):
    """An existing Auto Mode NodeClass (``nodeClassRef``); default: the built-in ``default``.

    ``group``/``kind`` may be given but must be ``eks.amazonaws.com`` / ``NodeClass``: Auto Mode
    NodePools reference Auto Mode NodeClasses (EKS user guide auto-accelerated, create-node-pool).
    """

    name: str = Field(BUILT_IN_NODE_CLASS, description="NodeClass name; default: the built-in 'default'.")
    group: str = Field(NODE_CLASS_GROUP, description="eks.amazonaws.com (the only value).")
    kind: str = Field(NODE_CLASS_KIND, description="NodeClass (the only value).")

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        problem = _object_name_problem(name)
        if problem:
            raise fail(problem)
        return name

    @field_validator("kind")
    @classmethod
    def _kind(cls, kind: str) -> str:
        if kind != NODE_CLASS_KIND:
            hint = " (an EC2NodeClass belongs to self-managed Karpenter: use backend: karpenter)" if kind == "EC2NodeClass" else ""
            raise fail(
                f"{kind!r}: an EKS Auto Mode NodePool references a NodeClass (group eks.amazonaws.com, kind NodeClass; "
                f"EKS user guide create-node-pool){hint}; write kind: NodeClass or leave it out"
            )
        return kind

    @field_validator("group")
    @classmethod
    def _group(cls, group: str) -> str:
        if group != NODE_CLASS_GROUP:
            hint = " (karpenter.k8s.aws is self-managed Karpenter's: use backend: karpenter)" if group == "karpenter.k8s.aws" else ""
            raise fail(
                f"{group!r}: an EKS Auto Mode NodePool's nodeClassRef group is eks.amazonaws.com (EKS user guide "
                f"create-node-pool){hint}; write group: eks.amazonaws.com or leave it out"
            )
        return group


class AutoEphemeralStorage(Model):
    """``spec.ephemeralStorage`` of a NodeClass (EKS user guide create-node-class, Node Class Specification).

    ``size``: a quantity, 1-59000Gi, 1-64000G, 1-58Ti or 1-64T (e.g. ``"500Gi"``); ``iops``
    3000-16000; ``throughput`` 125-1000 (MiB/s); ``kmsKeyId``: KMS key ID, key ARN, alias name
    or alias ARN (rendered as ``kmsKeyID``).
    """

    size: str | None = Field(None, description="e.g. 500Gi (1-59000Gi | 1-64000G | 1-58Ti | 1-64T).")
    iops: int | None = Field(None, description=f"{EPHEMERAL_IOPS[0]}-{EPHEMERAL_IOPS[1]}.")
    throughput: int | None = Field(None, description=f"{EPHEMERAL_THROUGHPUT[0]}-{EPHEMERAL_THROUGHPUT[1]} MiB/s.")
    kms_key_id: str | None = Field(None, description="KMS key ID, key ARN, alias name or alias ARN.")

    @field_validator("size")
    @classmethod
    def _size(cls, size: str | None) -> str | None:
        if size is None:
            return size
        number, unit = size.rstrip("GiT"), size[len(size.rstrip("GiT")):]
        if unit not in EPHEMERAL_SIZE_MAX or not number.isdigit() or not 1 <= int(number) <= EPHEMERAL_SIZE_MAX[unit]:
            ranges = ", ".join(f"1-{m}{u}" for u, m in EPHEMERAL_SIZE_MAX.items())
            raise fail(f"{size!r} must be a size of {ranges} (NodeClass ephemeralStorage.size), e.g. 500Gi")
        return size

    @field_validator("iops")
    @classmethod
    def _iops(cls, iops: int | None) -> int | None:
        if iops is not None and not EPHEMERAL_IOPS[0] <= iops <= EPHEMERAL_IOPS[1]:
            raise fail(f"{iops} is outside {EPHEMERAL_IOPS[0]}-{EPHEMERAL_IOPS[1]} (NodeClass ephemeralStorage.iops)")
        return iops

    @field_validator("throughput")
    @classmethod
    def _throughput(cls, throughput: int | None) -> int | None:
        low, high = EPHEMERAL_THROUGHPUT
        if throughput is not None and not low <= throughput <= high:
            raise fail(f"{throughput} is outside {low}-{high} MiB/s (NodeClass ephemeralStorage.throughput)")
        return throughput

    def to_k8s(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in (("size", self.size), ("iops", self.iops), ("throughput", self.throughput),
                           ("kmsKeyID", self.kms_key_id)):
            if value is not None:
                out[key] = value
        return out


class AutoNodeClass(NodeClassBase):
    """An Auto Mode ``NodeClass`` (``eks.amazonaws.com/v1``) the component creates for the pool.

    Field names checked against the EKS user guide ``automode/create-node-class.adoc``
    (awsdocs/amazon-eks-user-guide @0026c9df, "Node Class Specification"): ``spec.role`` (the
    node IAM role; required), ``spec.subnetSelectorTerms`` (``[{tags}]`` or ``[{id}]``;
    required), ``spec.securityGroupSelectorTerms`` (``[{tags}]``, ``[{id}]`` or ``[{name}]``;
    required), ``spec.ephemeralStorage`` (``size``, ``iops``, ``throughput``, ``kmsKeyID``),
    ``spec.tags`` (not ``kubernetes.io/cluster/*``, ``karpenter.sh/provisioner-name``,
    ``karpenter.sh/nodepool``, ``karpenter.sh/nodeclaim``, ``karpenter.sh/managed-by``,
    ``eks.amazonaws.com/nodeclass``). Not named ``default`` ("Do not name your custom node class
    default"). Defaults: ``role`` from ``cluster.nodeRoleArn``, subnets ``cluster.subnetIds``;
    security groups have no default. A created NodeClass needs an EKS access entry of type EC2
    for its role (same page, "Create node class access entry"); the component does not create it.
    No AMI, user data, kubelet or block-device fields: refused with the reason.
    """

    refused_keys: ClassVar[Mapping[str, str]] = {
        key: refused_key_message(key, fix) for key, fix in REFUSED_NODE_CLASS_KEYS.items()}

    name: str | None = Field(None, description="NodeClass name; default: the pool name; not 'default'.")
    role: str | None = Field(None, description="Node IAM role name; default: from cluster.nodeRoleArn.")
    subnet_ids: list[str] | None = Field(None, min_length=1, description="Subnet IDs; default cluster.subnetIds.")
    subnet_selector_tags: dict[str, str] | None = Field(None, description="Select subnets by tags instead.")
    security_group_ids: list[str] | None = Field(None, min_length=1, description="Security group IDs (sg-...).")
    security_group_selector_tags: dict[str, str] | None = Field(None, description="Select security groups by tags.")
    ephemeral_storage: AutoEphemeralStorage | None = None
    tags: AwsTags = Field(default_factory=dict, description="Extra EC2 tags on instances and volumes.")

    @field_validator("name")
    @classmethod
    def _name(cls, name: str | None) -> str | None:
        if name is None:
            return name
        problem = _object_name_problem(name)
        if problem:
            raise fail(problem)
        if name == "default":
            raise fail(
                "'default' is the built-in NodeClass (EKS user guide create-node-class: 'Do not name your custom node "
                "class default'); give another name, or reference the built-in one with nodeClassRef: {name: default}"
            )
        return name

    @field_validator("subnet_ids")
    @classmethod
    def _subnets(cls, ids: list[str] | None) -> list[str] | None:
        from ...config.limits import aws_id_problem

        problem = aws_id_problem("subnet", ids)
        if problem:
            raise fail(problem)
        return ids

    @field_validator("security_group_ids")
    @classmethod
    def _sgs(cls, ids: list[str] | None) -> list[str] | None:
        from ...config.limits import aws_id_problem

        problem = aws_id_problem("sg", ids)
        if problem:
            raise fail(problem)
        return ids

    @field_validator("subnet_selector_tags", "security_group_selector_tags")
    @classmethod
    def _selector(cls, tags: dict[str, str] | None) -> dict[str, str] | None:
        if tags is not None and (not tags or any(k == "" or v == "" for k, v in tags.items())):
            raise fail("a selector needs at least one tag, with non-empty keys and values")
        return tags

    @field_validator("tags")
    @classmethod
    def _tags(cls, tags: dict[str, str]) -> dict[str, str]:
        for key in tags:
            if key in AUTO_RESTRICTED_TAGS or key.startswith("kubernetes.io/cluster"):
                raise fail(
                    f"tag {key!r} is set by EKS Auto Mode (EKS user guide create-node-class: restricted tags "
                    "kubernetes.io/cluster/*, karpenter.sh/*, eks.amazonaws.com/nodeclass); remove it"
                )
        return tags

    @model_validator(mode="after")
    def _one_selector_each(self) -> AutoNodeClass:
        if self.subnet_ids is not None and self.subnet_selector_tags is not None:
            raise fail("set one of subnetIds or subnetSelectorTags")
        if self.security_group_ids is not None and self.security_group_selector_tags is not None:
            raise fail("set one of securityGroupIds or securityGroupSelectorTags")
        return self


class EksAutoPool(StartupTaintsPool):
    """A GPU pool as an EKS Auto Mode ``NodePool`` (``karpenter.sh/v1``, ``nodeClassRef`` group ``eks.amazonaws.com``).

    Taints go to ``spec.template.spec.taints`` (Kubernetes spelling), boot taints an agent removes
    (``startupTaints``, ``startupTaintsFor``: :class:`~.._shared.nodepool_startup.StartupTaintsPool`, as for Karpenter;
    an Auto Mode NodePool is a ``karpenter.sh/v1`` NodePool, EKS user guide create-node-pool) to
    ``spec.template.spec.startupTaints``, and labels to ``spec.template.metadata.labels``. Requirements, in Auto Mode's keys (EKS user guide
    ``automode/create-node-pool.adoc`` "EKS Auto Mode Supported Labels", awsdocs @01385604;
    the same suffixes as Karpenter's ``karpenter.k8s.aws/`` labels): ``eks.amazonaws.com/instance-category`` from
    ``instanceCategories``, ``eks.amazonaws.com/instance-family`` from ``instanceFamilies``,
    ``node.kubernetes.io/instance-type`` from ``instanceTypes`` (at least one of the three),
    ``eks.amazonaws.com/instance-gpu-manufacturer In [nvidia]`` always,
    ``eks.amazonaws.com/instance-gpu-count`` from ``gpuCounts``,
    ``eks.amazonaws.com/instance-gpu-name`` from ``gpuNames``, ``karpenter.sh/capacity-type``,
    ``kubernetes.io/arch``, ``topology.kubernetes.io/zone``, then ``requirements`` (extras).
    ``limits`` must cap ``nvidia.com/gpu``. ``disruption``, ``weight``, ``expireAfter`` and
    ``terminationGracePeriod`` as for Karpenter (Auto Mode defaults: expire after 336 h, 24 h
    grace; create-node-pool "Disruption", "Termination Grace Period").

    NodeClass: the built-in ``default`` unless ``nodeClassRef`` names another existing one or
    ``nodeClass`` creates one (:class:`AutoNodeClass`); not both.

    The NVIDIA driver and device plugin are built into the Auto Mode node image (EKS user
    guide ``automode/auto-accelerated.adoc``: "EKS Auto Mode includes this plugin, and is not
    visible as a daemon set"), so no device plugin chart serves these pools.

    Refused, each with its source and fix: custom AMIs, user data, kubelet flags and
    registration taints (:data:`~.limits.REFUSED_POOL_KEYS`); ``karpenter.k8s.aws/`` keys,
    undocumented ``eks.amazonaws.com/`` keys, the NodePool's restricted keys and
    ``kubernetes.io``/``k8s.io`` labels (:func:`~.limits.auto_label_problem`); a
    ``nodeClassRef`` to an ``EC2NodeClass``; missing ``nvidia.com/gpu`` limit; families that are
    not NVIDIA GPU families (:data:`gpu_node_pool.catalog.instances.NVIDIA_FAMILIES`) or that Auto Mode
    does not launch (:data:`~.limits.AUTO_NVIDIA_FAMILIES`).
    """

    refused_keys: ClassVar[Mapping[str, str]] = {
        key: refused_key_message(key, fix) for key, fix in REFUSED_POOL_KEYS.items()}

    backend: Literal["eks-auto"]
    instance_categories: list[str] | None = Field(None, min_length=1, description="GPU categories, e.g. [g, p].")
    instance_families: list[str] | None = Field(None, min_length=1, description="NVIDIA families, e.g. [g6e, g6].")
    instance_types: list[str] | None = Field(None, min_length=1, description="NVIDIA instance types, e.g. [g6e.2xlarge].")
    gpu_counts: list[int] | None = Field(None, min_length=1, description="GPUs per instance, e.g. [1, 4].")
    gpu_names: list[str] | None = Field(None, min_length=1, description="Lower-case GPU names, e.g. [l40s, l4].")
    capacity_types: list[str] = Field(default_factory=lambda: ["on-demand"], description="on-demand | spot | reserved")
    architecture: str = Field("amd64", description="amd64 | arm64")
    zones: list[str] | None = Field(None, min_length=1, description="Availability zones, e.g. [us-east-1a].")
    requirements: list[AutoRequirement] = Field(default_factory=list, description="Extra requirements.")
    node_class_ref: AutoNodeClassRef | None = None
    node_class: AutoNodeClass | None = None
    limits: dict[str, int | str] = Field(description='Resource caps; must include nvidia.com/gpu, e.g. {nvidia.com/gpu: "16"}.')
    disruption: KarpenterDisruption = Field(default_factory=KarpenterDisruption)
    weight: int | None = Field(None, description="1-100; higher is tried first.")
    expire_after: str | None = Field(None, description="Node lifetime, e.g. 336h, or Never (Auto Mode default 336h).")
    termination_grace_period: str | None = Field(None, description="Max drain time, e.g. 24h (Auto Mode default 24h).")

    @classmethod
    def _instance_problems(cls, values: list[str]) -> list[str]:
        return _not_in_auto_mode(values)

    @classmethod
    def backend_label_problems(cls, labels: Mapping[str, str]) -> list[tuple[str, str]]:
        """The labels EKS Auto Mode keeps (:func:`auto_label_problem`) and those a requirement writes
        (``AUTO_MANAGED_KEYS``)."""
        problems = [(k, p) for k in labels if (p := auto_label_problem(k))]
        return problems + [(k, f"{k!r} is written by {AUTO_MANAGED_KEYS[k]} as a requirement; set it there")
                           for k in labels if k in AUTO_MANAGED_KEYS and not auto_label_problem(k)]

    @field_validator("gpu_sharing")
    @classmethod
    def _no_sharing(cls, sharing: Any) -> Any:
        if sharing is not None:
            raise fail(
                f"EKS Auto Mode includes the NVIDIA device plugin and runs it itself, not as a DaemonSet you can "
                f"configure ({AUTO_ACCELERATED_URL}), so the component cannot give it time-slicing or MPS configs; "
                "remove gpuSharing, or share GPUs on a karpenter or eks-managed pool (AL2023 NVIDIA AMI), whose "
                "device plugin the component configures"
            )
        return sharing

    @field_validator("mig")
    @classmethod
    def _no_mig(cls, mig: Any) -> Any:
        if mig is not None:
            raise fail(
                f"EKS Auto Mode manages the NVIDIA driver and device plugin of its nodes ({AUTO_ACCELERATED_URL}) and "
                "takes no AMI, user data or node settings (see the keys it refuses), so nothing the component "
                "configures partitions the GPUs into MIG devices; remove mig, or use a karpenter or eks-managed pool "
                "with devicePlugin.provider: gpu-operator (its MIG manager) or a Bottlerocket NVIDIA AMI"
            )
        return mig

    @field_validator("instance_categories")
    @classmethod
    def _categories(cls, categories: list[str] | None) -> list[str] | None:
        known = {_category(f) for f in AUTO_NVIDIA_FAMILIES}
        wrong = [c for c in categories or [] if c not in known]
        if wrong:
            raise fail(
                f"{listed(wrong, quote=True)} are not categories of NVIDIA GPU families Auto Mode launches; allowed: "
                f"{', '.join(sorted(known))} ({_SOURCE_FAMILIES})"
            )
        return categories

    @classmethod
    def _gpu_name_case_problem(cls, name: str) -> str:
        return f"{name!r}: eks.amazonaws.com/instance-gpu-name values are lower-case (e.g. t4, l40s); write {name.lower()!r}"

    @field_validator("capacity_types")
    @classmethod
    def _capacity(cls, types: list[str]) -> list[str]:
        wrong = [t for t in types if t not in KARPENTER_CAPACITY_TYPES]
        if wrong or not types or len(set(types)) != len(types):
            raise fail(f"{listed(types, quote=True)} must list distinct capacity types from {', '.join(KARPENTER_CAPACITY_TYPES)}")
        return types

    @field_validator("architecture")
    @classmethod
    def _arch(cls, arch: str) -> str:
        if arch not in KARPENTER_ARCHITECTURES:
            raise fail(f"{arch!r} is not a Kubernetes architecture; allowed: {', '.join(KARPENTER_ARCHITECTURES)}")
        return arch

    @model_validator(mode="after")
    def _auto_whole(self) -> EksAutoPool:
        problems = []
        if not (self.instance_categories or self.instance_families or self.instance_types):
            problems.append(
                "set instanceFamilies (e.g. [g6e, g6]), instanceTypes or instanceCategories (e.g. [g]); without "
                "them Auto Mode may pick any NVIDIA instance, up to p5.48xlarge"
            )
        if self.node_class_ref is not None and self.node_class is not None:
            problems.append("set at most one of nodeClassRef (an existing NodeClass) or nodeClass (create one)")
        problems += self._nodepool_problems(
            (self.instance_families or []) + (self.instance_types or []), AUTO_MANAGED_KEYS, auto_label_problem
        )
        if len(self.requirement_list) > KARPENTER_MAX_REQUIREMENTS:
            problems.append(f"{len(self.requirement_list)} requirements; a NodePool takes at most {KARPENTER_MAX_REQUIREMENTS}")
        if problems:
            raise fail("; ".join(problems))
        return self

    # derived, plain values (known at preview) -----------------------------------------
    @property
    def requirement_list(self) -> list[dict[str, Any]]:
        """The NodePool requirements in a fixed order: category, family, type, GPU manufacturer,
        GPU count, GPU name, capacity type, architecture, zone, then extras."""
        return self._nodepool_requirements(AUTO_PREFIX, self.instance_categories)

    @property
    def node_class_name(self) -> str:
        """The NodeClass the NodePool references: ``nodeClassRef.name``, the created one's name, or ``default``."""
        if self.node_class is not None:
            return self.node_class.name or self.name
        return self.node_class_ref.name if self.node_class_ref is not None else BUILT_IN_NODE_CLASS

    @property
    def uses_nvidia_device_plugin(self) -> bool:
        """False: the Auto Mode node image includes NVIDIA's device plugin (auto-accelerated.adoc)."""
        return False

    @property
    def driver_source(self) -> str:
        """``image``: Auto Mode includes the NVIDIA driver (auto-accelerated.adoc)."""
        return "image"


def _category(family: str) -> str:
    # Auto Mode's instance-category: the letters before the generation digit (g6e -> g, gr6 -> gr).
    out = ""
    for ch in family:
        if ch.isdigit():
            break
        out += ch
    return out


def _not_in_auto_mode(values: list[str]) -> list[str]:
    out = []
    for value in values:
        family = instances.instance_family(value)
        if family in instances.NVIDIA_FAMILIES and family not in AUTO_NVIDIA_FAMILIES:
            out.append(
                f"{value!r}: EKS Auto Mode does not launch the {family} family ({_SOURCE_FAMILIES}: "
                f"{', '.join(sorted(AUTO_NVIDIA_FAMILIES))}); pick one of those or use the karpenter backend"
            )
    return out


#: Why an Auto Mode pool and ``devicePlugin.provider: gpu-operator`` do not go together.
_NO_GPU_OPERATOR = (
    "devicePlugin.provider gpu-operator: the GPU Operator installs and manages the NVIDIA driver, container "
    f"toolkit and device plugin of the nodes it serves, and EKS Auto Mode already includes and manages those on "
    f"this pool's nodes ({AUTO_ACCELERATED_URL}; its nodes are managed instances you cannot install software "
    "on, automode-learn-instances.adoc); use devicePlugin.provider: nvidia-device-plugin (its chart leaves Auto "
    "Mode pools alone; gpuAgents.dcgmExporter still gives GPU metrics), or the karpenter backend for this pool"
)


#: EKS user guide: the built-in NodePools and the ``default`` NodeClass they need.
BUILT_IN_NODE_POOLS_URL = "https://docs.aws.amazon.com/eks/latest/userguide/set-builtin-node-pools.html"
#: EKS user guide: Auto Mode and capacity reservations (``capacityReservationSelectorTerms``).
AUTO_ODCR_URL = "https://docs.aws.amazon.com/eks/latest/userguide/auto-odcr.html"


def _on_built_in_node_class(pool: EksAutoPool) -> bool:
    return pool.node_class is None and pool.node_class_name == BUILT_IN_NODE_CLASS


def _reservation_issues(pool: EksAutoPool, where: str) -> tuple[list[ConfigIssue], list[ConfigIssue]]:
    """``(refusals, warnings)`` for ``capacityTypes: [reserved]``: Auto Mode launches capacity typed
    ``reserved`` only from the reservations a NodeClass selects in ``capacityReservationSelectorTerms``
    (auto-odcr). The NodeClass this backend creates and the built-in ``default`` select none."""
    if "reserved" not in pool.capacity_types:
        return [], []
    if pool.node_class_ref is None or pool.node_class_name == BUILT_IN_NODE_CLASS:
        which = "the NodeClass this pool creates" if pool.node_class is not None else "the built-in 'default' NodeClass"
        return [ConfigIssue(f"{where}.capacityTypes", (
            f"reserved: Auto Mode launches reserved capacity only from the reservations a NodeClass selects in "
            f"capacityReservationSelectorTerms ({AUTO_ODCR_URL}), and {which} selects none, so the NodePool would "
            "never get a reserved node: reference an existing NodeClass that selects your reservations "
            "(nodeClassRef: {name: ...}), or drop reserved"))], []
    return [], [ConfigIssue(f"{where}.capacityTypes", (
        f"reserved: the existing NodeClass {pool.node_class_name!r} must select the reservations in "
        f"capacityReservationSelectorTerms, else Auto Mode launches no reserved capacity ({AUTO_ODCR_URL})"))]


def _built_in_node_class_issues(stack: Any, pool: EksAutoPool, where: str) -> tuple[list[ConfigIssue], list[ConfigIssue]]:
    """``(refusals, warnings)`` for a pool on the built-in ``default`` NodeClass, which EKS provisions
    only while at least one built-in NodePool is enabled (set-builtin-node-pools)."""
    if not _on_built_in_node_class(pool):
        return [], []
    enabled = stack.cluster.auto_mode_built_in_node_pools
    if enabled is False:
        return [ConfigIssue(where, (
            "uses the built-in 'default' NodeClass, but cluster.autoModeBuiltInNodePools is false: EKS provisions "
            f"'default' only while a built-in node pool is enabled ({BUILT_IN_NODE_POOLS_URL}), so the NodePool "
            "would reference a NodeClass that does not exist: create one with nodeClass: {securityGroupIds: [...]} "
            "(role and subnets default to the cluster's), or reference an existing one with nodeClassRef"))], []
    if enabled is None:
        return [], [ConfigIssue(where, (
            "uses the built-in 'default' NodeClass, which EKS provisions only while at least one built-in node pool "
            f"(general-purpose, system) is enabled ({BUILT_IN_NODE_POOLS_URL}); state it with "
            "gpu-node-pools:cluster.autoModeBuiltInNodePools: true, or give the pool its own nodeClass"))]
    return [], []


def stack_warnings(stack: Any) -> list[ConfigIssue]:
    """Auto Mode pools on the built-in NodeClass while ``cluster.autoModeBuiltInNodePools`` is not
    stated, and ``reserved`` on an existing NodeClass that must select the reservations."""
    out = []
    for i, pool in enumerate(stack.pools):
        if isinstance(pool, EksAutoPool):
            out += _built_in_node_class_issues(stack, pool, f"pools[{i}]")[1]
            out += _reservation_issues(pool, f"pools[{i}]")[1]
    return out


def stack_issues(stack: Any) -> list[ConfigIssue]:
    """Stack-level Auto Mode rules as :class:`ConfigIssue` objects.

    A created NodeClass needs a node role (``nodeClass.role`` or ``cluster.nodeRoleArn``),
    subnets (``nodeClass.subnetIds``/``subnetSelectorTags`` or ``cluster.subnetIds``) and a
    security-group selector (all three required by the NodeClass spec, create-node-class.adoc);
    two pools may not create NodeClasses of the same name; ``devicePlugin.provider: gpu-operator`` is
    refused (Auto Mode manages the driver and device plugin itself). Then the feasibility hook
    (:func:`feasibility_issues`, the catalog's requirement evaluator).
    """
    issues = []
    created: dict[str, int] = {}
    for i, pool in enumerate(stack.pools):
        if not isinstance(pool, EksAutoPool):
            continue
        if stack.device_plugin.provider == "gpu-operator":
            issues.append(ConfigIssue(f"pools[{i}]", _NO_GPU_OPERATOR))
        issues += _built_in_node_class_issues(stack, pool, f"pools[{i}]")[0]
        issues += _reservation_issues(pool, f"pools[{i}]")[0]
        if is_validated(pool):  # a stand-in of an invalid pool (every-mistake pass) has nothing to evaluate
            issues += feasibility_issues(pool, f"pools[{i}]")
        nc = pool.node_class
        if nc is None:
            continue
        if nc.role is None and not stack.cluster.given("node_role_arn"):
            issues.append(ConfigIssue(f"pools[{i}].nodeClass.role",
                                      "missing; a NodeClass needs the node IAM role: set it here or cluster.nodeRoleArn"))
        if nc.subnet_ids is None and nc.subnet_selector_tags is None and not stack.cluster.given("subnet_ids"):
            issues.append(ConfigIssue(f"pools[{i}].nodeClass.subnetIds",
                                      "missing; a NodeClass needs subnetSelectorTerms: set subnetIds, subnetSelectorTags "
                                      "or cluster.subnetIds"))
        if nc.security_group_ids is None and nc.security_group_selector_tags is None:
            issues.append(ConfigIssue(f"pools[{i}].nodeClass.securityGroupIds",
                                      "missing; a NodeClass needs securityGroupSelectorTerms (EKS user guide "
                                      "create-node-class): set securityGroupIds or securityGroupSelectorTags"))
        name = pool.node_class_name
        if name in created:
            issues.append(ConfigIssue(f"pools[{i}].nodeClass.name",
                                      f"NodeClass {name!r} is already created by pools[{created[name]}]; give it another "
                                      f"name, or reference it with nodeClassRef: {{name: {name}}}"))
        created.setdefault(name, i)
    return issues


#: Why feasibility is not judged yet; the plan shows it for every eks-auto pool.

