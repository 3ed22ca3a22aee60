"""Config of ``karpenter`` pools: NodePool, budgets, disruption, EC2NodeClass and its stack-level rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import (
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ...config.common import AwsTags, Model, fail
from ...config.errors import ConfigIssue, fail_each, fail_per_key
from ...config.reserved_labels import reserved_label_problem
from ...k8s.patterns import full_match, pattern_search
from ...k8s.taints import Taint
from ...k8s.wellknown import POOL_LABEL_KEY
from ...text.listing import listed
from .._shared.capacity import raise_pool_problems
from .._shared.nodepool import (
    K8S_OBJECT_NAME_RE,
    KARPENTER_ARCHITECTURES,
    KARPENTER_CAPACITY_TYPES,
    KARPENTER_MAX_REQUIREMENTS,
    KarpenterDisruption,
    written_key_problem,
)
from .._shared.nodepool_config import NodeClassBase
from .._shared.nodepool_startup import StartupTaintsPool
from .ami_alias import alias_version_problem
from .efa import KarpenterEfa
from .limits import (
    KARPENTER_ALIAS_MAX,
    KARPENTER_ALIAS_RE,
    KARPENTER_GPU_ALIAS_FAMILIES,
    KARPENTER_MANAGED_KEYS,
    KARPENTER_RESTRICTED_TAGS,
    KarpenterRequirement,
    karpenter_label_problem,
    selector_tags_problem,
)
from .node_class_extras import (
    BlockDeviceMapping,
    KarpenterKubelet,
    bottlerocket_kubelet_problems,
    merge_problems,
    own_label_problems,
    user_data_format_problem,
    user_data_problem,
    user_data_registration,
)
from .node_overlay import KarpenterNodeOverlay
from .reservations import MAX_TERMS, CapacityReservationTerm


class KarpenterNodeClassRef(Model):
    """An existing ``EC2NodeClass`` the pool's NodePool uses (``nodeClassRef``).

    ``amiFamily`` says what that class runs, since the plan cannot look: ``Bottlerocket``
    means its NVIDIA AMI ships the device plugin, so NVIDIA's chart is not installed for the pool.
    """

    name: str = Field(description="EC2NodeClass name (a DNS subdomain).")
    ami_family: Literal["AL2023", "Bottlerocket"] = Field("AL2023", description="AL2023 | Bottlerocket")

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        if len(name) > 253 or not full_match(K8S_OBJECT_NAME_RE, name):
            raise fail(f"{name!r} is not a Kubernetes object name (lower-case DNS subdomain, e.g. gpu-al2023)")
        return name


class KarpenterNodeClass(NodeClassBase):
    """An ``EC2NodeClass`` (``karpenter.k8s.aws/v1``) the component creates for the pool.

    ``amiAlias``: ``al2023@<version>`` or ``bottlerocket@<version>`` (``latest`` or a release
    such as ``al2023@v20250505``; at most 30 characters); Karpenter picks the NVIDIA variant
    for GPU instances. ``role``: the node IAM role *name* (default: the name in
    ``cluster.nodeRoleArn``). Subnets and security groups are discovered by tag (default
    ``karpenter.sh/discovery: <cluster name>``, at most 20 tags, no empty keys or values).
    ``tags``: extra EC2 tags; not ``eks:eks-cluster-name``, ``kubernetes.io/cluster*``,
    ``karpenter.sh/nodepool``, ``karpenter.sh/nodeclaim``, ``karpenter.k8s.aws/ec2nodeclass``.
    """

    name: str | None = Field(None, description="EC2NodeClass name; default: the pool name.")
    ami_alias: str = Field("al2023@latest", description="al2023@<version> | bottlerocket@<version>")
    role: str | None = Field(None, description="Node IAM role name; default: from cluster.nodeRoleArn.")
    subnet_selector_tags: dict[str, str] | None = Field(None, description="Default {karpenter.sh/discovery: <cluster>}.")
    security_group_selector_tags: dict[str, str] | None = Field(None, description="Default {karpenter.sh/discovery: <cluster>}.")
    tags: AwsTags = Field(default_factory=dict, description="Extra EC2 tags on instances and volumes.")
    capacity_reservation_selector_terms: list[CapacityReservationTerm] | None = Field(
        None, min_length=1, max_length=MAX_TERMS,
        description="Reservations (ODCRs, Capacity Blocks) for capacityTypes reserved; terms are ORed.",
    )
    block_device_mappings: list[BlockDeviceMapping] | None = Field(
        None, min_length=1, max_length=50, description="EBS volumes, e.g. [{deviceName: /dev/xvda, rootVolume: true, ebs: {volumeSize: 200Gi}}]."
    )
    kubelet: KarpenterKubelet | None = Field(None, description="Kubelet settings Karpenter passes to the nodes (maxPods, reserved, eviction...).")
    instance_store_policy: Literal["RAID0"] | None = Field(None, description="RAID0: instance-store NVMe disks as one volume for images and pods.")
    user_data: str | None = Field(
        None, description="Bootstrap Karpenter merges its settings into; the taints and labels it registers are merged into the NodePool.")

    @field_validator("name")
    @classmethod
    def _name(cls, name: str | None) -> str | None:
        if name is not None and (len(name) > 253 or not full_match(K8S_OBJECT_NAME_RE, name)):
            raise fail(f"{name!r} is not a Kubernetes object name (lower-case DNS subdomain, e.g. gpu-al2023)")
        return name

    @field_validator("user_data")
    @classmethod
    def _user_data(cls, user_data: str | None) -> str | None:
        problem = user_data_problem(user_data) if user_data is not None else None
        if problem:
            raise fail(problem)
        return user_data

    @model_validator(mode="after")
    def _user_data_format(self) -> KarpenterNodeClass:
        """``userData`` in the format Karpenter reads for the class's image family (node_class_extras.py)."""
        problem = user_data_format_problem(self.user_data, self.ami_family) if self.user_data is not None else None
        if problem:
            raise fail(problem)
        return self

    @field_validator("kubelet")
    @classmethod
    def _bottlerocket_kubelet(cls, kubelet: KarpenterKubelet | None, info: ValidationInfo) -> KarpenterKubelet | None:
        """On a bottlerocket alias, the kubelet values Karpenter writes into Bottlerocket settings (node_class_extras.py)."""
        if kubelet is not None and str(info.data.get("ami_alias", "")).startswith("bottlerocket@"):
            problems = bottlerocket_kubelet_problems(kubelet)
            if problems:
                raise fail_each(problems)
        return kubelet

    @field_validator("block_device_mappings")
    @classmethod
    def _one_root(cls, mappings: list[BlockDeviceMapping] | None) -> list[BlockDeviceMapping] | None:
        if mappings and sum(1 for m in mappings if m.root_volume) > 1:
            raise fail("at most one blockDeviceMappings entry may be rootVolume: true (EC2NodeClass CRD)")
        return mappings

    @field_validator("ami_alias")
    @classmethod
    def _alias(cls, alias: str) -> str:
        family, _, version = alias.partition("@")
        if not pattern_search(KARPENTER_ALIAS_RE, alias):
            raise fail(f"{alias!r} must be family@version, e.g. al2023@latest or bottlerocket@v1.30.0")
        if family not in KARPENTER_GPU_ALIAS_FAMILIES:
            raise fail(
                f"{alias!r}: family {family!r} has no NVIDIA AMI Karpenter can pick; use "
                + " or ".join(f"{f}@{version}" for f in KARPENTER_GPU_ALIAS_FAMILIES)
            )
        if len(alias) > KARPENTER_ALIAS_MAX:
            raise fail(f"{alias!r} is {len(alias)} characters; an EC2NodeClass alias has at most {KARPENTER_ALIAS_MAX}")
        problem = alias_version_problem(family, version)
        if problem:
            raise fail(f"{alias!r}: {problem}")
        return alias

    @field_validator("subnet_selector_tags", "security_group_selector_tags")
    @classmethod
    def _selector(cls, tags: dict[str, str] | None) -> dict[str, str] | None:
        if tags is not None:
            problem = selector_tags_problem(tags, "the selector")
            if problem:
                raise fail(problem)
        return tags

    @field_validator("tags")
    @classmethod
    def _tags(cls, tags: dict[str, str]) -> dict[str, str]:
        for key in tags:
            if key == "":
                raise fail("an EC2NodeClass tag key may not be empty")
            if key in KARPENTER_RESTRICTED_TAGS or key.startswith("kubernetes.io/cluster"):
                raise fail(f"tag {key!r} is set by EKS or Karpenter (EC2NodeClass: restricted tag); remove it")
        return tags

    @property
    def ami_family(self) -> str:
        """The alias family: ``al2023`` or ``bottlerocket``."""
        return self.ami_alias.partition("@")[0]


class KarpenterPool(StartupTaintsPool):
    """A GPU pool as a Karpenter ``NodePool`` (``karpenter.sh/v1``) on EKS, with its ``EC2NodeClass``.

    Taints go to ``spec.template.spec.taints`` (Kubernetes spelling) and boot-time taints that
    an agent removes (e.g. Cilium's ``node.cilium.io/agent-not-ready``) to ``startupTaints``;
    startup taints are never part of :attr:`taint_list`, so no toleration is derived from them.
    Requirements are built from ``instanceFamilies`` or ``instanceTypes`` (exactly one),
    ``karpenter.k8s.aws/instance-gpu-manufacturer In [nvidia]``, ``gpuCounts``, ``gpuNames``,
    ``capacityTypes``, ``architecture``, ``zones``, then ``requirements`` (extras).
    ``limits`` must cap ``nvidia.com/gpu``. Exactly one of ``nodeClassRef`` (an existing
    EC2NodeClass) and ``nodeClass`` (create one; ``nodeClass: {}`` takes the defaults).

    Everything the NodePool/EC2NodeClass CRDs (v1.14.1, schema and CEL) or Karpenter's runtime
    validation would refuse is refused here, with the config path: label and requirement key
    domains (:func:`karpenter_label_problem`), requirement rules
    (:func:`.limits.karpenter_requirement_problems`), durations, budgets, weight 1-100, quantities,
    at most 100 labels and 100 requirements, and a key+effect both in ``taints`` and
    ``startupTaints`` (``duplicate taint Key/Effect pair``).

    Taints and labels ``nodeClass.userData`` registers join :attr:`taint_list` and :attr:`node_labels`, so the
    NodePool carries them (:mod:`.node_class_extras`); ``nodeOverlay`` renders NodeOverlays that declare
    the capacity ``gpuSharing``/``mig`` advertise (:mod:`.node_overlay`).
    """

    backend: Literal["karpenter"]
    instance_families: list[str] | None = Field(None, min_length=1, description="NVIDIA families, e.g. [g6e, g6].")
    instance_types: list[str] | None = Field(None, min_length=1, description="NVIDIA instance types, e.g. [g6e.2xlarge].")
    gpu_counts: list[int] | None = Field(None, min_length=1, description="GPUs per instance, e.g. [1, 4].")
    gpu_names: list[str] | None = Field(None, min_length=1, description="Lower-case GPU names, e.g. [l40s, l4].")
    capacity_types: list[str] = Field(default_factory=lambda: ["on-demand"], description="on-demand | spot | reserved")
    architecture: str = Field("amd64", description="amd64 | arm64")
    zones: list[str] | None = Field(None, min_length=1, description="Availability zones, e.g. [us-east-1a].")
    requirements: list[KarpenterRequirement] = Field(default_factory=list, description="Extra requirements.")
    node_class_ref: KarpenterNodeClassRef | None = None
    node_class: KarpenterNodeClass | None = None
    efa: KarpenterEfa | None = Field(None, description="{enabled: true, placementGroup: {name|id}}: EFA.")
    node_overlay: KarpenterNodeOverlay | None = Field(
        None, description="{enabled: true}: Karpenter NodeOverlays declaring the capacity gpuSharing or mig advertise "
        "(karpenter.sh/v1alpha1, Karpenter >= v1.7, feature gate NodeOverlay).")
    limits: dict[str, int | str] = Field(description=(
        "Resource caps, each a Kubernetes quantity (a stack file may also write a whole number); must include "
        'nvidia.com/gpu, e.g. {nvidia.com/gpu: "32"}.'))
    disruption: KarpenterDisruption = Field(default_factory=KarpenterDisruption)
    weight: int | None = Field(None, description="1-100; higher is tried first.")
    expire_after: str | None = Field(None, description="Node lifetime, e.g. 720h, or Never (Karpenter default 720h).")
    termination_grace_period: str | None = Field(None, description="Max drain time, e.g. 24h (no Never).")
    allow_unknown_instance_types: bool = Field(
        False, description="Accept instanceTypes the catalog lacks (newer than it), with a warning."
    )

    @field_validator("node_class")
    @classmethod
    def _user_data_merges(cls, node_class: KarpenterNodeClass | None, info: ValidationInfo) -> KarpenterNodeClass | None:
        """The taints and labels ``nodeClass.userData`` registers merge into the NodePool (node_class_extras.py)."""
        if node_class is None or node_class.user_data is None or not {"taints", "labels"} <= set(info.data):
            return node_class
        taints = [t.to_taint() for t in info.data["taints"]]
        startup = [t.to_taint() for t in info.data.get("startup_taints") or []]

        def label_problem(key: str) -> str | None:
            if key in KARPENTER_MANAGED_KEYS:
                return f"{key!r} is written by {KARPENTER_MANAGED_KEYS[key]} as a requirement; set it there"
            # the pool label: the merge says which value the component's own gives it
            reserved = reserved_label_problem(key, None) if key != POOL_LABEL_KEY else None
            return reserved or karpenter_label_problem(key)

        problems = merge_problems(node_class.user_data, taints, startup, dict(info.data["labels"]), label_problem)
        if problems:
            raise fail("; ".join(problems))
        return node_class

    @field_validator("requirements")
    @classmethod
    def _requirement_keys(cls, requirements: list[KarpenterRequirement], info: ValidationInfo) -> list[KarpenterRequirement]:
        """No extra requirement on a key a dedicated field writes (:data:`.limits.KARPENTER_MANAGED_KEYS`), but for
        the zone key with NotIn or Exists while ``zones`` is unset (:func:`.._shared.nodepool.written_key_problem`).
        A field rule, so it is reported with the pool's other mistakes, at ``requirements[j].key``."""
        zones = info.data.get("zones")
        problems = [((j, "key"), msg) for j, req in enumerate(requirements)
                    if (msg := written_key_problem(req.key, req.operator, req.values, KARPENTER_MANAGED_KEYS, zones))]
        if len(problems) > 1:  # several requirements: at the list, each named
            problems = [((), "; ".join(f"requirements[{at[0]}].key {msg}" for at, msg in problems))]
        if problems:
            raise fail_per_key(problems) if problems[0][0] else fail(problems[0][1])
        return requirements

    @classmethod
    def backend_label_problems(cls, labels: Mapping[str, str]) -> list[tuple[str, str]]:
        """The label domains Karpenter keeps (:func:`.limits.karpenter_label_problem`) and the keys a requirement
        writes (:data:`.limits.KARPENTER_MANAGED_KEYS`), judged with the base rules of every label in one run."""
        problems = [(k, p) for k in labels if (p := karpenter_label_problem(k))]
        return problems + [(k, f"{k!r} is written by {KARPENTER_MANAGED_KEYS[k]} as a requirement; set it there")
                           for k in labels if k in KARPENTER_MANAGED_KEYS]

    @classmethod
    def _gpu_name_case_problem(cls, name: str) -> str:
        # karpenter-provider-aws lower-cases GPU names for the label (l40s, a10g, h100)
        return f"{name!r}: Karpenter's instance-gpu-name label is lower-case; write {name.lower()!r}"

    @field_validator("capacity_types")
    @classmethod
    def _capacity(cls, types: list[str]) -> list[ConfigIssue]:
        wrong = [t for t in types if t not in KARPENTER_CAPACITY_TYPES]
        if wrong:
            hint = " (Karpenter spells it on-demand)" if any(t.lower().replace("_", "-") == "on-demand" for t in wrong) else ""
            what = "is not a capacity type" if len(wrong) == 1 else "are not capacity types"
            raise fail(f"{listed(wrong, quote=True)} {what}; allowed: {', '.join(KARPENTER_CAPACITY_TYPES)}{hint}")
        if not types:
            raise fail(f"is empty; list one or more capacity types ({', '.join(KARPENTER_CAPACITY_TYPES)})")
        twice = [t for i, t in enumerate(types) if t in types[:i]]
        if twice:
            raise fail(f"lists {listed(dict.fromkeys(twice), quote=True)} more than once; list each capacity type once")
        return types

    @field_validator("architecture")
    @classmethod
    def _arch(cls, arch: str) -> str:
        if arch not in KARPENTER_ARCHITECTURES:
            hint = " (Kubernetes spells x86_64 amd64)" if arch in ("x86_64", "x86-64") else ""
            raise fail(f"{arch!r} is not a Kubernetes architecture; allowed: amd64, arm64{hint}")
        return arch

    @model_validator(mode="after")
    def _karpenter_whole(self) -> KarpenterPool:
        problems = []
        if (self.instance_families is None) == (self.instance_types is None):
            problems.append(
                "set exactly one of instanceFamilies (e.g. [g6e, g6]) or instanceTypes (e.g. [g6e.2xlarge]); "
                "without either Karpenter may pick any NVIDIA instance, up to p5.48xlarge"
            )
        if (self.node_class_ref is None) == (self.node_class is None):
            problems.append(
                "set exactly one of nodeClassRef (an existing EC2NodeClass: {name: ...}) or nodeClass "
                "(create one; nodeClass: {} takes the defaults)"
            )
        problems += self._nodepool_problems(
            self.instance_families or self.instance_types or [], KARPENTER_MANAGED_KEYS, karpenter_label_problem
        )
        count = len(self.requirement_list)
        if count > KARPENTER_MAX_REQUIREMENTS:
            problems.append(f"{count} requirements in all; a NodePool takes at most {KARPENTER_MAX_REQUIREMENTS}")
        if self.node_class is not None and self.node_class.user_data is not None:  # against the component's labels
            own = {k: v for k, v in super().node_labels.items() if k not in self.labels}
            problems += own_label_problems(self.node_class.user_data, own, self.gpu_label.key)
        if not problems:  # can Karpenter ever launch a GPU node for it?
            from .feasibility import pool_problems

            problems += pool_problems(self)
        from .feasibility import reduced_key_findings  # a key reduced to DoesNotExist: nothing launches

        located = reduced_key_findings(self)[0] + (self._no_mig_problems() if not problems else [])
        if not problems and not located:  # EFA (karpenter/efa.py)
            from .efa import pool_problems as efa_problems

            problems += efa_problems(self)
        if not problems and not located:  # NodeOverlay (karpenter/node_overlay.py)
            from .node_overlay import pool_problems as overlay_problems

            problems += overlay_problems(self)
        if problems or located:
            raise_pool_problems(problems, self.instance_types or [], self.allow_unknown_instance_types, located)
        return self

    def _no_mig_problems(self) -> list[tuple[tuple[str | int, ...], str]]:
        """``[(("mig",), sentence)]`` when ``mig`` is set and a type the NodePool can launch carries a GPU without MIG
        (:func:`gpu_node_pool.gpu_agents.mig.gpus_without_mig`, the wording of every backend:
        :func:`~gpu_node_pool.gpu_agents.mig.no_mig_message`): the one refusal that helps, with or without
        ``nodeOverlay``, which a NodeOverlay or another partitioner cannot change."""
        if self.mig is None:
            return []
        from ...gpu_agents.mig import gpus_without_mig, no_mig_message

        lacking, capable = gpus_without_mig(self.candidate_instance_types or [])
        return [(("mig",), no_mig_message(lacking, capable_types=capable))] if lacking else []

    def config_warnings(self) -> list[tuple[str, str]]:
        """The NodePool warnings every NodePool pool gets (:meth:`StartupTaintsPool.config_warnings`: zones, limits,
        startup taints), each once, extended with the karpenter backend's own: the AMI alias
        (:func:`.ami_alias.alias_version_warning`, first), what the catalog says of the requirements
        (:func:`.feasibility.pool_warnings`), EFA (:func:`.efa.pool_warnings`) and NodeOverlays
        (:func:`.node_overlay.pool_warnings`)."""
        from .ami_alias import alias_version_warning
        from .efa import pool_warnings as efa_warnings
        from .feasibility import pool_warnings
        from .node_overlay import pool_warnings as overlay_warnings

        alias = alias_version_warning(self.node_class.ami_alias) if self.node_class is not None else None
        own = [("nodeClass.amiAlias", alias)] if alias else []
        return own + super().config_warnings() + pool_warnings(self) + efa_warnings(self) + overlay_warnings(self)

    @property
    def provisioner_counts_shared_gpus(self) -> bool:
        """Whether the pool's NodeOverlays tell Karpenter what ``gpuSharing``/``mig`` advertise (:mod:`.node_overlay`)."""
        from .node_overlay import enabled

        return enabled(self)

    @property
    def candidate_instance_types(self) -> list[str] | None:
        """The GPU instance types the NodePool can launch (catalog evaluation, :mod:`.feasibility`), or None
        when not knowable; what the MIG rules judge the GPU by when ``instanceTypes`` is not given."""
        from ...catalog.requirements import RequirementError
        from .feasibility import evaluation

        try:
            result = evaluation(self.requirement_list, self.limits)
        except RequirementError:
            return None
        from .node_overlay import type_level_unknowns

        return None if type_level_unknowns(result) else [t.name for t in result.gpu_candidates]

    # derived, plain values (known at preview) -----------------------------------------
    @property
    def user_data_taints(self) -> list[Taint]:
        """Taints ``nodeClass.userData`` registers that ``taints`` does not declare (key and effect), sorted; merged
        into :attr:`taint_list` and so into the NodePool (see :mod:`.node_class_extras`)."""
        user_data = self.node_class.user_data if self.node_class is not None else None
        declared = {t.to_taint().identity for t in self.taints}
        return [t for t in user_data_registration(user_data).taints if t.identity not in declared]

    @property
    def user_data_labels(self) -> dict[str, str]:
        """Labels ``nodeClass.userData`` registers that ``labels`` does not set, sorted by key; merged into
        :attr:`node_labels`."""
        user_data = self.node_class.user_data if self.node_class is not None else None
        return {k: v for k, v in user_data_registration(user_data).labels.items() if k not in self.labels}

    @property
    def taint_list(self) -> list[Taint]:
        """The NodePool's taints: ``taints`` in config order, then :attr:`user_data_taints`."""
        return [t.to_taint() for t in self.taints] + self.user_data_taints

    @property
    def node_labels(self) -> dict[str, str]:
        """The labels of ``PoolBase.node_labels`` plus :attr:`user_data_labels`, sorted by key."""
        return dict(sorted({**self.user_data_labels, **super().node_labels}.items()))

    @property
    def requirement_list(self) -> list[dict[str, Any]]:
        """The NodePool requirements, in a fixed order: instance family or type, GPU
        manufacturer, GPU count, GPU name, capacity type, architecture, zone, then extras."""
        return self._nodepool_requirements("karpenter.k8s.aws/")

    @property
    def node_class_name(self) -> str:
        """The EC2NodeClass the NodePool references (``nodeClassRef.name``, ``nodeClass.name`` or the pool name)."""
        if self.node_class_ref is not None:
            return self.node_class_ref.name
        return (self.node_class.name if self.node_class else None) or self.name

    @property
    def ships_own_device_plugin(self) -> bool:
        """Bottlerocket NVIDIA AMIs include NVIDIA's device plugin (EKS user guide, ml-eks-optimized-ami)."""
        if self.node_class is not None:
            return self.node_class.ami_family == "bottlerocket"
        return self.node_class_ref is not None and self.node_class_ref.ami_family == "Bottlerocket"

    @property
    def uses_nvidia_device_plugin(self) -> bool:
        return not self.ships_own_device_plugin

    @property
    def image_family(self) -> str:
        """``bottlerocket-nvidia`` for a Bottlerocket EC2NodeClass; ``al2023-nvidia`` for a created EC2NodeClass
        with ``amiAlias: al2023@...``; else ``other``.

        For an alias, Karpenter resolves the NVIDIA variant of the family on instances with
        ``karpenter.k8s.aws/instance-gpu-count`` (AL2023: SSM ``/aws/service/eks/optimized-ami/<k8s>/amazon-linux-2023/
        <arch>/nvidia/...``, ``VariantNvidia``'s requirement ``instance-gpu-count Exists``; aws/karpenter-provider-aws
        ``pkg/providers/amifamily/al2023.go`` and ``types.go``@v1.14.1), which is the EKS-optimized AL2023 NVIDIA AMI
        with the driver and the container toolkit (EKS user guide ``ml-eks-optimized-ami``). An existing class
        (``nodeClassRef``) with ``amiFamily: AL2023`` may select any AMI by ``amiSelectorTerms``, so it stays
        ``other``."""
        if self.ships_own_device_plugin:
            return "bottlerocket-nvidia"
        if self.node_class is not None and self.node_class.ami_family == "al2023":
            return "al2023-nvidia"
        return "other"

    @property
    def driver_source(self) -> str:
        """``image`` on the NVIDIA AMI an alias resolves to (Bottlerocket NVIDIA, EKS AL2023 NVIDIA: see
        :attr:`image_family`), else ``unknown``."""
        return "image" if self.image_family != "other" else "unknown"


def stack_issues(stack: Any) -> list[ConfigIssue]:
    """Stack-level Karpenter rules as :class:`ConfigIssue` objects: a node role for created
    EC2NodeClasses, and no two pools creating an EC2NodeClass of the same name."""
    issues = []
    created: dict[str, int] = {}
    for i, pool in enumerate(stack.pools):
        if not isinstance(pool, KarpenterPool) or pool.node_class is None:
            continue
        if pool.node_class.role is None and not stack.cluster.given("node_role_arn"):
            issues.append(ConfigIssue(f"pools[{i}].nodeClass.role", "missing; set the node IAM role name here or cluster.nodeRoleArn"))
        name = pool.node_class_name
        if name in created:
            issues.append(ConfigIssue(f"pools[{i}].nodeClass.name", f"EC2NodeClass {name!r} is already created by pools[{created[name]}]; "
                f"give it another name, or reference it with nodeClassRef: {{name: {name}}}"
            ))
        created.setdefault(name, i)
    issues += [ConfigIssue(f"pools[{i}].efa", msg) for i, (msg, refused) in _efa_version_issues(stack) if refused]
    issues += [ConfigIssue(f"pools[{i}].nodeOverlay", msg) for i, (msg, refused) in _overlay_version_issues(stack) if refused]
    issues += [ConfigIssue(_labels_path(stack, i), msg) for i, (msg, refused) in _label_version_issues(stack) if refused]
    issues += [ConfigIssue(path, msg) for path, msg, refused in _operator_version_issues(stack) if refused]
    return issues


def stack_warnings(stack: Any) -> list[ConfigIssue]:
    """EFA pools while ``cluster.karpenterVersion`` is not stated (the fields need Karpenter >= v1.11),
    NodeOverlay pools (the version when not stated, and the ``NodeOverlay`` feature gate), and pools with
    labels in the kubernetes.io/k8s.io domains or requirements with ``Gte``/``Lte`` while the version is not
    stated (both refused before v1.9), and an ``amiAlias`` AL2023 release older than the cluster's Kubernetes version."""
    out = [ConfigIssue(f"pools[{i}].efa", msg) for i, (msg, refused) in _efa_version_issues(stack) if not refused]
    out += [ConfigIssue(_labels_path(stack, i), msg) for i, (msg, refused) in _label_version_issues(stack) if not refused]
    out += [ConfigIssue(path, msg) for path, msg, refused in _operator_version_issues(stack) if not refused]
    out += _alias_kubernetes_warnings(stack)
    return out + [ConfigIssue(f"pools[{i}].nodeOverlay", msg) for i, (msg, refused) in _overlay_version_issues(stack)
                  if not refused]


def _alias_kubernetes_warnings(stack: Any) -> list[ConfigIssue]:
    """An ``amiAlias`` AL2023 release dated before EKS released the cluster's Kubernetes version
    (:func:`.ami_alias.alias_kubernetes_warning`)."""
    from .ami_alias import alias_kubernetes_warning

    version = getattr(stack.cluster, "kubernetes_version", None)
    out = []
    for i, pool in enumerate(stack.pools):
        if isinstance(pool, KarpenterPool) and pool.node_class is not None:
            warning = alias_kubernetes_warning(pool.node_class.ami_alias, version)
            if warning:
                out.append(ConfigIssue(f"pools[{i}].nodeClass.amiAlias", warning))
    return out


def _overlay_version_issues(stack: Any) -> list[tuple[int, tuple[str, bool]]]:
    from .node_overlay import version_issue

    return _version_issues(stack, version_issue)


def _label_version_issues(stack: Any) -> list[tuple[int, tuple[str, bool]]]:
    from .label_domains import version_issue

    return _version_issues(stack, version_issue)


def _operator_version_issues(stack: Any) -> list[tuple[str, str, bool]]:
    """``[(path, message, refused)]`` of requirements with ``Gte``/``Lte`` against ``cluster.karpenterVersion``,
    placed at ``pools[i].requirements[j].operator``."""
    from .requirement_operators import version_issues

    return [(f"pools[{i}].requirements[{j}].operator", msg, refused)
            for i, pool in enumerate(stack.pools) if isinstance(pool, KarpenterPool)
            for j, msg, refused in version_issues(pool, stack.cluster.karpenter_version)]


def _labels_path(stack: Any, i: int) -> str:
    """Where a label-domain issue of ``pools[i]`` is placed: at the key when one key of ``labels`` is concerned,
    at ``gpuLabel`` when only its key is, else at ``labels``."""
    from .label_domains import version_keys

    pool = stack.pools[i]
    keys = version_keys(pool)
    own = [k for k in keys if k in (pool.labels or {})]
    if len(keys) == 1 and own:
        return f"pools[{i}].labels[{own[0]!r}]"
    if keys and not own and pool.gpu_label is not None and keys == [pool.gpu_label.key]:
        return f"pools[{i}].gpuLabel"
    return f"pools[{i}].labels"


def _efa_version_issues(stack: Any) -> list[tuple[int, tuple[str, bool]]]:
    from .efa import version_issue

    return _version_issues(stack, version_issue)


def _version_issues(stack: Any, version_issue: Any) -> list[tuple[int, tuple[str, bool]]]:
    """``[(pool index, (message, refused))]`` of ``version_issue(pool, cluster.karpenterVersion)`` per karpenter pool."""
    out = []
    for i, pool in enumerate(stack.pools):
        if isinstance(pool, KarpenterPool):
            issue = version_issue(pool, stack.cluster.karpenter_version)
            if issue is not None:
                out.append((i, issue))
    return out
