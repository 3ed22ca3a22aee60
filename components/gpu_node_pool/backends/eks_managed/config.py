"""Config of ``eks-managed`` pools: the EKS managed node group model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import (
    Field,
    field_validator,
    model_validator,
)

from ...catalog import instances
from ...config.common import (
    EKS_GPU_AMI_TYPES,
    EKS_MAX_TAINTS,
    EKS_TAINT_FIELD_MAX,
    AwsTags,
    GpuLabel,
    PoolBase,
    ScalingConfig,
    TaintConfig,
    UpdateConfig,
    fail,
)
from ...config.errors import ConfigIssue, fail_each, fail_per_key
from ...config.limits import EKS_QUOTAS_SOURCE
from ...k8s.labels import eks_label_problem
from ...k8s.taints import Taint
from ...text.listing import listed
from ...text.suggest import closest
from ...text.terminal import shown
from .._shared.capacity import CapacityReservation, NodeRepair, gpus_per_node_problem, raise_pool_problems
from .._shared.cluster_autoscaler import several_effects_problem
from .._shared.efa import EfaConfig
from .bottlerocket import DEVICE_PLUGIN_FIX, USER_GUIDE, EksBottlerocket
from .kubelet import EksKubelet, UserLaunchTemplate


class EksManagedPool(PoolBase):
    """A GPU pool as an EKS managed node group (``aws.eks.NodeGroup``).

    Limits checked here (EKS API ``CreateNodegroup``/``Taint``): at most 50 taints, taint key
    and value up to 63 characters, label keys up to 63 and label values 1-63 characters, no
    ``kubernetes.io``, ``k8s.io`` or ``eks.amazonaws.com`` label keys; on the merged set when a
    pass-through field (``kubelet``, ``bottlerocket``) adds taints or labels (:mod:`.pass_through`:
    :attr:`taint_list` and :attr:`node_labels` are the merged sets the node group declares).
    """

    backend: Literal["eks-managed"]
    instance_types: list[str] = Field(min_length=1, description="NVIDIA GPU instance types, e.g. [g6.xlarge].")
    ami_type: str = Field("AL2023_x86_64_NVIDIA", description="One of the EKS NVIDIA AMI types.")
    capacity_type: Literal["ON_DEMAND", "SPOT", "CAPACITY_BLOCK"] = "ON_DEMAND"
    scaling: ScalingConfig
    subnet_ids: list[str] | None = Field(None, min_length=1, description="Defaults to cluster.subnetIds.")
    node_role_arn: str | None = Field(None, description="Defaults to cluster.nodeRoleArn.")
    disk_size: int | None = Field(None, ge=20, le=16384, description="Root volume GiB.")
    launch_template: UserLaunchTemplate | None = Field(
        None, description="Your own launch template {id, version} for the node group; refused where the pool needs the component's."
    )
    kubelet: EksKubelet | None = Field(
        None, description="AL2023: kubelet config fields and flags, merged by EKS into the nodes' NodeConfig (launch template user data)."
    )
    bottlerocket: EksBottlerocket | None = Field(
        None, description="BOTTLEROCKET_* AMI types: further Bottlerocket settings {settings: {...}}, TOML user data EKS merges "
        "with its own (https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html)."
    )
    release_version: str | None = Field(
        None,
        pattern=r"^[0-9]+\.[0-9]+\.[0-9]+-[0-9a-f]{8}$",
        description="Pin the EKS optimized AMI release (NodeGroup releaseVersion), e.g. 1.33.0-20250610 (AL2023: "
        "<Kubernetes version>-<date>) or 1.40.0-25e1f1a4 (Bottlerocket); default: the latest for the version. "
        "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html",
    )
    update_config: UpdateConfig | None = None
    tags: AwsTags = Field(default_factory=dict, description="AWS tags on the node group.")
    # capacity (rules in capacity.py)
    allow_unknown_instance_types: bool = Field(
        False, description="Accept instance types the catalog lacks (newer than it), with a warning."
    )
    gpus_per_node: int | None = Field(
        None, ge=1, le=64, description="GPUs per node for the scale-from-zero tag when the catalog has no count (g6f)."
    )
    capacity_reservation_id: str | None = Field(
        None, pattern=r"^cr-[0-9a-f]+$", description="CAPACITY_BLOCK: the Capacity Block's reservation ID."
    )
    capacity_reservation: CapacityReservation | None = Field(
        None, description="On-Demand Capacity Reservation: {id} | {resourceGroupArn} | {preference}."
    )
    efa: EfaConfig | None = Field(None, description="{enabled: true}: EFA interfaces, placement group, one AZ.")
    node_repair: NodeRepair | None = Field(None, description="{enabled: true}: EKS node auto repair.")

    @classmethod
    def backend_taint_problems(cls, taints: list[TaintConfig]) -> list[tuple[tuple[str | int, ...], str]]:
        """An EKS managed node group's limits on taints: at most ``EKS_MAX_TAINTS`` of them, each key at most
        ``EKS_TAINT_FIELD_MAX`` characters (each at its own item, as the self-managed pool's taint keys)."""
        problems: list[tuple[tuple[str | int, ...], str]] = []
        if len(taints) > EKS_MAX_TAINTS:
            problems.append(((), f"{len(taints)} taints; an EKS managed node group takes at most {EKS_MAX_TAINTS} "
                             "(CreateNodegroup taints, Maximum number of 50 items: https://docs.aws.amazon.com/eks/"
                             "latest/APIReference/API_CreateNodegroup.html); keep the taints that keep pods off, e.g. "
                             "one per dedicated use"))
        return problems + [((i,), _too_long("key", t.key)) for i, t in enumerate(taints)
                           if len(t.key) > EKS_TAINT_FIELD_MAX]

    @classmethod
    def backend_label_problems(cls, labels: Mapping[str, str]) -> list[tuple[str, str]]:
        """What an EKS managed node group refuses of the labels (:func:`~gpu_node_pool.k8s.labels.eks_label_problem`)."""
        return [(k, p) for k, v in labels.items() if (p := eks_label_problem(k, v))]

    @field_validator("gpu_label")
    @classmethod
    def _eks_gpu_label(cls, label: GpuLabel) -> GpuLabel:
        problem = eks_label_problem(label.key, label.value)
        if problem:
            raise fail(problem)
        return label

    @field_validator("subnet_ids")
    @classmethod
    def _subnet_ids(cls, ids: list[str] | None) -> list[str] | None:
        from ...config.limits import aws_id_problem

        problem = aws_id_problem("subnet", ids)
        if problem:
            raise fail(problem)
        return ids

    @field_validator("ami_type")
    @classmethod
    def _ami(cls, ami_type: str) -> str:
        if ami_type in EKS_GPU_AMI_TYPES:
            return ami_type
        if ami_type == "AL2_x86_64_GPU":
            raise fail(
                "'AL2_x86_64_GPU': EKS stopped publishing AL2 AMIs on 2025-11-26; use AL2023_x86_64_NVIDIA "
                "(or BOTTLEROCKET_x86_64_NVIDIA)"
            )
        close = closest(ami_type, EKS_GPU_AMI_TYPES)
        hint = f"; did you mean {close}?" if close else ""
        raise fail(f"{ami_type!r} is not an EKS NVIDIA AMI type; allowed: {', '.join(EKS_GPU_AMI_TYPES)}{hint}")

    @field_validator("instance_types")
    @classmethod
    def _instance_types(cls, types: list[str]) -> list[str]:
        problems = instances.nvidia_instance_problems_at(types)
        if problems:
            raise fail_each([((i,), why) for i, why in problems])  # each at its own item
        return types

    @model_validator(mode="after")
    def _pass_through(self) -> EksManagedPool:
        """Pass-through taints and labels agree with the pool's own, and the merged set fits EKS's limits;
        the Bottlerocket settings fit the AMI type and the pool's mig, and read back as the policies read them."""
        from . import pass_through
        from .bottlerocket import device_plugin_problems

        if self.bottlerocket is not None and not self.ships_own_device_plugin:
            raise fail(
                f"bottlerocket: {self.ami_type} nodes read a nodeadm NodeConfig, not Bottlerocket TOML settings "
                "(https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html); use kubelet: {config, flags} "
                "for AL2023, or a BOTTLEROCKET_* amiType"
            )
        declared = super().taint_list
        problems = pass_through.merge_problems(self, declared, super().node_labels)
        plugin = device_plugin_problems(self) if self.bottlerocket is not None else []
        if problems or plugin:
            raise _settings_failure(problems, plugin)
        merged = self.taint_list
        if len(merged) > EKS_MAX_TAINTS:
            raise fail(f"{len(merged)} taints with those of kubelet/bottlerocket ({len(declared)} in taints); an EKS managed "
                       f"node group takes at most {EKS_MAX_TAINTS} "
                       "(https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html)")
        too_long = [(passed.at, f"{passed.path}: {_too_long(part, text)}") for passed in pass_through.passed_taints(self)
                    for part, text in (("key", passed.taint.key), ("value", passed.taint.value))
                    if len(text) > EKS_TAINT_FIELD_MAX]
        if too_long:  # each at the setting that passes the taint through
            raise fail_per_key(too_long)
        self._read_back_user_data()
        return self

    def _read_back_user_data(self) -> None:
        """The launch template's user data reads back, with the readers the policies use, as registering
        no taint or label of its own (the node group carries them all)."""
        from .._shared.user_data import UserDataError, read_registration, user_data_size_problem
        from .launch_template import user_data_text

        try:
            text = user_data_text(self)
        except ValueError:  # a MIG profile Bottlerocket lacks: the stack's MIG rules refuse it with the source
            return
        if text is None:
            return
        what = "kubelet" if self.kubelet is not None else "bottlerocket.settings"
        too_big = user_data_size_problem(text, what, "EKS", f"set fewer {what} settings")
        if too_big:
            raise fail(too_big)
        try:
            reg = read_registration(text)
        except (UserDataError, ValueError) as err:
            raise fail(f"the launch template's user data would not read back ({err}); report this with the pool's "
                       "kubelet/bottlerocket settings") from None
        if reg.taints or reg.labels:
            at, setting = self._registering_setting()
            found = " and ".join(part for part in (
                f"taints {listed(map(str, reg.taints))}" if reg.taints else "",
                f"labels {listed(f'{k}={v}' for k, v in reg.labels.items())}" if reg.labels else "") if part)
            raise fail(f"{setting} would make the nodes register {found} from the launch template's user data, "
                       "beside the node group that declares the pool's taints and labels (EKS registers the nodes "
                       f"with the node group's: {USER_GUIDE}), so the node group, Cluster "
                       "Autoscaler and the policies would not know them; declare them in the pool's taints and "
                       "labels, or as kubelet flags of their own ('--register-with-taints=...', '--node-labels=...': "
                       "merged onto the node group), and remove them from this setting", at)

    def _registering_setting(self) -> tuple[tuple[str | int, ...], str]:
        """Where the user data's own registration comes from: the first ``kubelet.flags`` item that reads
        back as registering a taint or label (its path and text), else the pool's kubelet or Bottlerocket settings."""
        from .._shared.user_data import read_registration

        for i, flag in enumerate(self.kubelet.flags or [] if self.kubelet is not None else []):
            try:
                found = read_registration(flag)
            except ValueError:
                continue
            if found.taints or found.labels:
                return ("kubelet", "flags", i), f"flag {shown(flag)}"
        if self.kubelet is not None:
            return ("kubelet",), "these kubelet settings"
        return ("bottlerocket", "settings"), "these Bottlerocket settings"

    @model_validator(mode="after")
    def _release_form(self) -> EksManagedPool:
        """``releaseVersion`` is of the image family of ``amiType`` (:func:`.release.form_problem`)."""
        from .release import form_problem

        problem = form_problem(self)
        if problem:
            raise fail(problem, ("releaseVersion",))
        return self

    @model_validator(mode="after")
    def _gpus_per_node(self) -> EksManagedPool:
        problem = gpus_per_node_problem(self)
        if problem:
            raise fail(problem, ("gpusPerNode",))
        return self

    @model_validator(mode="after")
    def _arch(self) -> EksManagedPool:
        ami_arch = "arm64" if "ARM_64" in self.ami_type else "x86_64"
        wrong = [t for t in self.instance_types if instances.instance_arch(t) != ami_arch]
        if wrong:
            raise fail(
                f"instanceTypes {listed(wrong)} are {instances.instance_arch(wrong[0])} but amiType {self.ami_type} is "
                f"{ami_arch}; pick a matching amiType or instance types"
            )
        if self.scaling.min_size == 0:
            from . import pass_through

            declared = super().taint_list
            # the pass-through setting is the place only when removing its taint alone would fix the pool
            origin = None if several_effects_problem(declared, "") else pass_through.second_effect_origin(self, declared)
            where = f"remove the taint from {origin[0].path}, " if origin else ""
            problem = several_effects_problem(
                self.taint_list, f"scale from zero (minSize 0) would miss one: {where}use one effect per key or minSize >= 1"
            )
            if problem:  # at the pass-through setting that adds the second effect, when one does
                raise fail(f"{origin[1]}: {problem}", origin[0].at) if origin else fail(problem)
        from . import capacity

        problems = capacity.pool_problems(self) + capacity.scale_from_zero_problems(self)
        if self.scaling.min_size == 0 and not problems:
            from ...config.limits import EKS_ASG_OWN_TAGS, asg_tag_count_problem

            # the node-template tags the component puts on the EKS-created group (resources.py), plus EKS's own
            labels, taints = len(self.node_labels), len({t.key for t in self.taint_list})
            resources = 1 if (self.gpus_per_node or capacity.gpus_per_node(self) or self.gpu_sharing or self.mig) else 0
            problem = asg_tag_count_problem(
                labels + taints + resources + EKS_ASG_OWN_TAGS,
                f"{labels} node-template labels, {taints} taints, {resources} resources tag at minSize 0, and the "
                f"{EKS_ASG_OWN_TAGS} EKS sets; the node group's own tags stay on the node group",
            )
            if problem:
                problems.append(problem)
        if problems:
            raise_pool_problems(problems, self.instance_types, self.allow_unknown_instance_types)
        return self

    def config_warnings(self) -> list[tuple[str, str]]:
        from . import bottlerocket, capacity, kubelet

        return capacity.pool_warnings(self) + kubelet.config_warnings(self) + bottlerocket.settings_warnings(self)

    @property
    def ships_own_device_plugin(self) -> bool:
        """Bottlerocket NVIDIA AMIs include NVIDIA's device plugin (EKS user guide, ml-eks-optimized-ami)."""
        return self.ami_type.startswith("BOTTLEROCKET_")

    @property
    def uses_nvidia_device_plugin(self) -> bool:
        return not self.ships_own_device_plugin

    @property
    def image_family(self) -> str:
        """``bottlerocket-nvidia`` for ``BOTTLEROCKET_*`` AMI types, else ``al2023-nvidia`` (EKS user guide ml-eks-optimized-ami)."""
        return "bottlerocket-nvidia" if self.ships_own_device_plugin else "al2023-nvidia"

    @property
    def driver_source(self) -> str:
        """``image``: the EKS GPU AMI types ship the NVIDIA driver and container toolkit."""
        return "image"

    @property
    def writes_bottlerocket_settings(self) -> bool:
        """``BOTTLEROCKET_*`` pools with ``bottlerocket`` settings, ``mig`` or ``gpuSharing`` get the component's
        launch template, whose TOML user data EKS merges with its own (:mod:`.bottlerocket`): Bottlerocket's MIG or
        sharing settings go there (``gpu_agents/mig.py`` ``bottlerocket_settings``)."""
        from .bottlerocket import writes_settings

        return self.ships_own_device_plugin and writes_settings(self)

    @property
    def taint_list(self) -> list[Taint]:
        """The taints the node group declares: the pool's ``taints`` (config order), then those a
        pass-through field adds (``kubelet``, ``bottlerocket``: :mod:`.pass_through`) that are not among them."""
        from . import pass_through

        declared = super().taint_list
        return declared + pass_through.extra_taints(self, declared)

    @property
    def node_labels(self) -> dict[str, str]:
        """The labels the node group declares: :attr:`PoolBase.node_labels` and those a pass-through field
        adds (``kubelet.flags`` ``--node-labels``, ``bottlerocket.settings.kubernetes.node-labels``), sorted by key."""
        from . import pass_through

        declared = super().node_labels
        return dict(sorted((declared | pass_through.extra_labels(self, declared)).items()))



#: The EKS API's rule of a taint's key and value (``Taint``: each 63 characters at most, the key with its prefix).
_EKS_TAINT_SOURCE = "EKS API Taint, https://docs.aws.amazon.com/eks/latest/APIReference/API_Taint.html"


def _too_long(part: str, text: str) -> str:
    """The sentence for a taint ``part`` (``key`` or ``value``) ``text`` longer than the EKS API takes: the value (cut
    by :func:`~gpu_node_pool.text.terminal.shown`), its length, the rule with its source and the fix."""
    said = shown(text)
    length = "" if said.endswith(" characters)") else f" ({len(text)} characters)"
    prefix = ", prefix included" if part == "key" else ""
    return (f"taint {part} {said}{length} is longer than an EKS managed node group takes: the EKS API caps taint "
            f"{part}s at {EKS_TAINT_FIELD_MAX} characters{prefix} ({_EKS_TAINT_SOURCE}); shorten it to at most "
            f"{EKS_TAINT_FIELD_MAX}")


def _settings_failure(merge: list[str], plugin: list[tuple[tuple[str, ...], str]]) -> Any:
    """One error for every problem of the pool's pass-through settings, so that a user fixes them in one pass:
    ``merge`` the sentences of :func:`.pass_through.merge_problems` (about the pool), ``plugin`` those of
    :func:`.bottlerocket.device_plugin_problems` (each at a setting). A single setting's problem is at that setting's
    own path (its line in the stack file); several device-plugin settings are at ``...kubelet-device-plugins.nvidia``,
    each sentence led by its setting; with a merge problem too, at the pool, each led by its path."""
    if not merge and len(plugin) == 1:
        return fail(f"{plugin[0][1]}; {DEVICE_PLUGIN_FIX}", at=plugin[0][0])
    if not merge:
        prefix = plugin[0][0][:4]  # ("bottlerocket", "settings", "kubelet-device-plugins", "nvidia")
        return fail("; ".join(f"{'.'.join(at[4:])}: {message}" for at, message in plugin) + f"; {DEVICE_PLUGIN_FIX}",
                    at=prefix)
    plugin_sentences = [f"{'.'.join(at)}: {message}" for at, message in plugin]
    return fail("; ".join([*merge, *plugin_sentences, *([DEVICE_PLUGIN_FIX] if plugin else [])]))


def stack_warnings(stack: Any) -> list[ConfigIssue]:
    """What EKS refuses unless the account's quota was raised (``gpu-node-pools:limits`` overrides): ``maxSize``
    above the "Nodes per managed node group" quota, more eks-managed pools than "Managed node groups per
    cluster" (this stack's pools only: the cluster may hold others). Source: ``EKS_QUOTAS_SOURCE``. And a pinned AL2023
    ``releaseVersion`` not judged while ``cluster.kubernetesVersion`` is unset (:func:`.release.version_warnings`)."""
    limits = stack.limits
    out = []
    managed = [i for i, p in enumerate(stack.pools) if isinstance(p, EksManagedPool)]
    for i in managed:
        size = stack.pools[i].scaling.max_size
        if size > limits.eks_nodes_per_node_group:
            out.append(ConfigIssue(
                f"pools[{i}].scaling.maxSize",
                f"{size} is above the EKS quota 'Nodes per managed node group' ({limits.eks_nodes_per_node_group}; "
                f"{EKS_QUOTAS_SOURCE}); EKS refuses it unless your account's quota was raised: request an increase "
                "in Service Quotas and set limits.eksNodesPerNodeGroup to it, or lower maxSize",
            ))
    from .._shared.efa import self_rules_note

    for i in managed:
        note = self_rules_note(stack.pools[i], stack.cluster.cluster_security_group_id)
        if note:
            out.append(ConfigIssue(f"pools[{i}].efa.addSelfRules", note))
    if len(managed) > limits.eks_node_groups_per_cluster:
        out.append(ConfigIssue(
            "pools",
            f"{len(managed)} eks-managed pools are more than the EKS quota 'Managed node groups per cluster' "
            f"({limits.eks_node_groups_per_cluster}; {EKS_QUOTAS_SOURCE}); EKS refuses the extra node groups unless "
            "your account's quota was raised: request an increase and set limits.eksNodeGroupsPerCluster to it",
        ))
    from .release import version_warnings

    return out + version_warnings(stack)


def stack_issues(stack: Any) -> list[ConfigIssue]:
    """Stack-level eks-managed rules: every pool has a node role and subnets (its own or the cluster's), and a pinned
    AL2023 ``releaseVersion`` is of ``cluster.kubernetesVersion`` (:func:`.release.version_issues`)."""
    issues = []
    for i, pool in enumerate(stack.pools):
        if not isinstance(pool, EksManagedPool):
            continue
        if not (pool.node_role_arn or stack.cluster.given("node_role_arn")):
            issues.append(ConfigIssue(f"pools[{i}].nodeRoleArn", "missing; set it here or in cluster.nodeRoleArn"))
        if not (pool.subnet_ids or stack.cluster.given("subnet_ids")):
            issues.append(ConfigIssue(f"pools[{i}].subnetIds", "missing; set it here or in cluster.subnetIds"))
        elif pool.subnet_ids or "subnetIds" not in stack.cluster.not_judged:  # an Input list is not counted
            from . import capacity

            issues += [ConfigIssue(f"pools[{i}].{sub}", msg) for sub, msg in capacity.stack_problems(pool, stack.cluster)]
    from .release import version_issues

    return issues + version_issues(stack)
