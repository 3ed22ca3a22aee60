"""Config of ``self-managed`` pools: the bootstrap formats, the model and its stack-level rules."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, Literal, get_args

from pydantic import (
    Field,
    field_validator,
    model_validator,
)

from ... import catalog
from ...catalog import instances
from ...config.common import AwsTags, PoolBase, ScalingConfig, fail
from ...config.errors import ConfigIssue
from ...k8s.labels import node_restriction_problem
from ...text.listing import listed, listed_counts
from .._shared import efa as _efa
from .._shared.capacity import CapacityReservation, gpus_per_node_problem, raise_pool_problems, unknown_type_findings
from .._shared.cluster_autoscaler import several_effects_problem, tag_key_length_problem
from .spot import SpotConfig

#: How a self-managed node is bootstrapped, i.e. where its kubelet reads the taints it
#: registers with (renderers in ``bootstrap.py``, readers in ``backends/_shared/user_data.py``):
#: ``al2023`` nodeadm ``NodeConfig`` (MIME user data), ``bottlerocket`` TOML settings, ``al2``
#: ``/etc/eks/bootstrap.sh`` (legacy: EKS stopped publishing AL2 AMIs on 2025-11-26),
#: ``kubeadm`` ``JoinConfiguration`` (on-premises), ``kubelet`` plain flags and a
#: ``KubeletConfiguration`` snippet (any other image).
SelfManagedFormat = Literal["al2023", "bottlerocket", "al2", "kubeadm", "kubelet"]
SELF_MANAGED_FORMATS: tuple[str, ...] = get_args(SelfManagedFormat)
#: Formats the component launches on EC2 itself (EKS bootstrap in the user data).
SELF_MANAGED_EC2_FORMATS = ("al2023", "bottlerocket", "al2")
#: Cluster keys each format writes into the bootstrap, and why it needs them.
_FORMAT_CLUSTER_KEYS: dict[str, tuple[tuple[str, ...], str]] = {
    "al2023": (
        ("apiServerEndpoint", "certificateAuthority", "serviceCidr"),
        "nodeadm needs spec.cluster.{apiServerEndpoint, certificateAuthority, cidr} on self-managed nodes",
    ),
    "bottlerocket": (
        ("apiServerEndpoint", "certificateAuthority"),
        "Bottlerocket needs settings.kubernetes.{api-server, cluster-certificate}",
    ),
    "al2": (
        ("apiServerEndpoint", "certificateAuthority"),
        "bootstrap.sh gets --apiserver-endpoint and --b64-cluster-ca (else it calls eks:DescribeCluster)",
    ),
    "kubeadm": (
        ("apiServerEndpoint", "caCertHashes"),
        "kubeadm join discovers the cluster at discovery.bootstrapToken.{apiServerEndpoint, caCertHashes}",
    ),
    "kubelet": ((), ""),
}
#: Keys that only mean something when the component creates EC2 resources (``provider: aws``).
_SELF_MANAGED_AWS_KEYS = {
    "instance_types": "instanceTypes",
    "scaling": "scaling",
    "subnet_ids": "subnetIds",
    "instance_profile_arn": "instanceProfileArn",
    "security_group_ids": "securityGroupIds",
    "ami_id": "amiId",
    "gpus_per_node": "gpusPerNode",
    "disk_size": "diskSize",
    "tags": "tags",
    "capacity_reservation": "capacityReservation",
    "efa": "efa",
    "spot": "spot",
    "capacity_rebalance": "capacityRebalance",
}


@cache
def _placeholder_cluster(model: type) -> Any:
    """A ``model`` (the frozen ``ClusterConfig``) with only ``name="cluster"``: all the tag count asks of a cluster."""
    return model.model_construct(name="cluster")


def _kubelet_label_problem(key: str) -> str | None:
    problem = node_restriction_problem(key)
    if problem is None:
        return None
    return (
        f"{problem}. A self-managed node sets its own labels at registration (kubelet --node-labels), and the "
        "NodeRestriction admission plugin decides which it may set; if the label must be on the Node, have an "
        "admin-side controller apply it after the node joins"
    )


class SelfManagedPool(PoolBase):
    """A GPU pool of self-managed nodes whose kubelet registers the pool's taints itself.

    Registration is the only way a taint exists before the first pod can land (the
    kubelet's ``--register-with-taints`` / KubeletConfiguration ``registerWithTaints``, which apply
    at registration only: https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/).
    With ``provider: aws`` the component creates an EC2 launch template (user data in
    ``format``, IMDSv2 required, the NVIDIA AMI from the public SSM parameter of ``format`` and
    ``cluster.kubernetesVersion`` unless ``amiId`` is set) and an Auto Scaling group tagged for
    Cluster Autoscaler scale from zero (node-template tags, kubernetes/autoscaler
    ``cluster-autoscaler/cloudprovider/aws/README.md``). With ``provider: none`` (bare metal, kubeadm
    on-premises) it renders the bootstrap only, as stack outputs.

    Rules checked here:

    * Labels, the GPU label included, must pass NodeRestriction: no ``kubernetes.io``/``k8s.io``
      keys except ``kubelet.kubernetes.io/``, ``node.kubernetes.io/`` and the kubelet's
      allow-list, no ``node-restriction.kubernetes.io/`` keys (``node-role.kubernetes.io/gpu``
      is refused: the kubelet would not start). Source: kubernetes
      ``plugin/pkg/admission/noderestriction/admission.go``.
    * ``provider: aws``: ``format`` is al2023, bottlerocket or al2; ``instanceTypes`` (NVIDIA,
      one architecture, one GPU count per node), ``scaling`` and ``securityGroupIds`` are
      required; ``al2`` needs ``amiId`` (no AL2 AMI is published for Kubernetes 1.33+); one
      effect per taint key, since
      a Cluster Autoscaler ``node-template/taint/<key>`` tag holds one ``value:Effect``.
    * ``provider: none``: none of the EC2 keys (instanceTypes, scaling, subnetIds, amiId...).
    * Stack level (:class:`~gpu_node_pool.config.stack.StackConfig`): the cluster keys ``format`` writes into the bootstrap
      (``apiServerEndpoint``, ``certificateAuthority``, ``serviceCidr``, ``caCertHashes``), and for
      ``provider: aws`` subnets, an instance profile (or ``cluster.nodeRoleArn``) and
      ``cluster.kubernetesVersion`` (unless ``amiId``).

    Raises:
        ValidationError: (through :func:`~gpu_node_pool.config.loading.validate_stack_config`, as :class:`ConfigError`) any rule above.
    """

    backend: Literal["self-managed"]
    format: SelfManagedFormat = Field(
        description="al2023 | bottlerocket | al2 (legacy) | kubeadm | kubelet: where the kubelet reads its taints."
    )
    provider: Literal["aws", "none"] = Field(
        "aws", description="aws: launch template + Auto Scaling group; none: render the bootstrap only (bare metal)."
    )
    instance_types: list[str] | None = Field(
        None, min_length=1, description="aws: NVIDIA GPU instance types of one GPU count, e.g. [g6e.12xlarge]."
    )
    scaling: ScalingConfig | None = Field(None, description="aws: Auto Scaling group bounds; minSize may be 0.")
    subnet_ids: list[str] | None = Field(None, min_length=1, description="aws: defaults to cluster.subnetIds.")
    instance_profile_arn: str | None = Field(
        None,
        pattern=r"^arn:aws[a-z-]*:iam::[0-9]{12}:instance-profile/[!-~]+$",
        description="aws: the nodes' instance profile; default: one made for cluster.nodeRoleArn.",
    )
    security_group_ids: list[str] | None = Field(
        None, min_length=1, description="aws, required: security groups of the nodes (the EKS cluster security group)."
    )
    ami_id: str | None = Field(
        None, pattern=r"^ami-[0-9a-f]{8,17}$", description="aws: fixed AMI; default: the NVIDIA AMI from SSM."
    )
    gpus_per_node: int | None = Field(
        None, ge=1, le=64, description="aws: GPUs per node when the instance table does not know the type."
    )
    disk_size: int | None = Field(None, ge=20, le=16384, description="aws: root (Bottlerocket: data) volume GiB.")
    tags: AwsTags = Field(default_factory=dict, description="AWS tags on the Auto Scaling group and nodes.")
    allow_unknown_instance_types: bool = Field(
        False, description="aws: accept instance types the catalog lacks (newer than it), with a warning; set gpusPerNode."
    )
    capacity_reservation: CapacityReservation | None = Field(
        None, description="aws: On-Demand Capacity Reservation: {id} | {resourceGroupArn} | {preference}."
    )
    efa: _efa.EfaConfig | None = Field(None, description="aws: {enabled: true}: EFA interfaces, placement group, one AZ.")
    spot: SpotConfig | None = Field(None, description="aws: Spot capacity in the group's mixed instances policy.")
    capacity_rebalance: bool | None = Field(
        None, description="aws: replace Spot nodes on EC2 rebalance recommendations (default true with spot)."
    )

    @classmethod
    def backend_label_problems(cls, labels: Mapping[str, str]) -> list[tuple[str, str]]:
        """The labels a kubelet may not set on its own Node at registration (:func:`_kubelet_label_problem`)."""
        return [(k, p) for k in labels if (p := _kubelet_label_problem(k))]

    @field_validator("subnet_ids", "security_group_ids")
    @classmethod
    def _aws_ids(cls, ids: list[str] | None, info: Any) -> list[str] | None:
        from ...config.limits import aws_id_problem

        problem = aws_id_problem("subnet" if info.field_name == "subnet_ids" else "sg", ids)
        if problem:
            raise fail(problem)
        return ids

    @model_validator(mode="after")
    def _self_managed_rules(self) -> SelfManagedPool:
        problems: list[str] = []
        located: list[tuple[tuple[str | int, ...], str]] = []  # each at its own place in the pool
        problem = _kubelet_label_problem(self.gpu_label.key)
        if problem:
            problems.append(f"gpuLabel: {problem}")
        if self.provider == "none":
            extra = [alias for name, alias in _SELF_MANAGED_AWS_KEYS.items() if name in self.model_fields_set]
            if extra:
                problems.append(
                    f"{', '.join(extra)}: provider none creates no cloud resources and only renders the "
                    f"{self.format} bootstrap; remove them, or set provider: aws"
                )
        else:
            not_nvidia = instances.nvidia_instance_problems_at(self.instance_types or [])
            problems += self._aws_problems(types_are_nvidia=not not_nvidia)
            located += [(("instanceTypes", i), why) for i, why in not_nvidia]
            too_long = tag_key_length_problem(self)  # alone: at the key's own line; else with the others
            if too_long and not problems and not located:
                raise fail(*too_long)
            problems += [too_long[0]] if too_long else []
        if problems or located:
            raise_pool_problems(problems, self.instance_types or [], self.allow_unknown_instance_types, located)
        problem = gpus_per_node_problem(self)
        if problem:
            raise fail(problem, ("gpusPerNode",))
        return self

    def _aws_problems(self, *, types_are_nvidia: bool) -> list[str]:
        """The pool-level problems of a provider-aws pool; ``types_are_nvidia``: every instance type passed
        :func:`~gpu_node_pool.catalog.instances.nvidia_instance_problems_at` (each failure is said at its own
        type by the caller), so the types' architectures and GPU counts can be compared."""
        problems = []
        if self.format not in SELF_MANAGED_EC2_FORMATS:
            problems.append(
                f"format {self.format!r} is for nodes the component does not launch (on-premises, custom images); "
                f"set provider: none to render it, or use {' or '.join(SELF_MANAGED_EC2_FORMATS[:2])} on AWS"
            )
        if self.format == "al2" and self.ami_id is None:
            problems.append(
                "format 'al2' needs amiId: EKS stopped publishing AL2 AMIs on 2025-11-26 (none for Kubernetes "
                "1.33+), so there is no SSM parameter to resolve; prefer format al2023"
            )
        if self.instance_types is None:
            problems.append("instanceTypes: required with provider aws, e.g. [g6e.12xlarge]")
        if self.scaling is None:
            problems.append("scaling: required with provider aws, e.g. {minSize: 0, maxSize: 4}")
        if self.security_group_ids is None:
            problems.append(
                "securityGroupIds: required with provider aws: without the cluster security group (aws eks "
                "describe-cluster --query cluster.resourcesVpcConfig.clusterSecurityGroupId) the nodes get the "
                "VPC default group and cannot reach the control plane"
            )
        types = self.instance_types or []
        problems += unknown_type_findings(types, self.allow_unknown_instance_types)[0]
        if types and types_are_nvidia:
            arches = sorted({instances.instance_arch(t) for t in types})
            if len(arches) > 1:
                problems.append(f"instanceTypes {listed(types)} mix architectures {listed(arches)}; one group runs one AMI")
            counts = {t: instances.gpu_count(t) for t in types}
            if self.gpus_per_node is None:
                # a type the catalog lacks is refused above unless allowUnknownInstanceTypes: no second sentence
                unknown = [t for t, n in counts.items() if n is None
                           and (self.allow_unknown_instance_types or catalog.find(t) is not None)]
                if unknown:
                    problems.append(
                        f"instanceTypes {listed(unknown)}: GPUs per node unknown to the instance table; set gpusPerNode "
                        "(Cluster Autoscaler needs it to scale from zero)"
                    )
                elif len(set(counts.values())) > 1:
                    problems.append(
                        f"instanceTypes {listed(types)} have different GPU counts ({listed_counts(counts)}); Cluster Autoscaler models a group "
                        "as one node shape: split them into pools"
                    )
        if self.spot is not None and self.capacity_reservation is not None:
            problems.append(
                "spot with capacityReservation: an On-Demand Capacity Reservation is On-Demand capacity, Spot "
                "instances never use it (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-capacity-reservations.html); "
                "drop one, or give the reservation its own pool"
            )
        if _efa.efa_enabled(self) and types:  # EFA (backends._shared.efa)
            problems += _efa.pool_problems(types, self.efa_security_groups)
        problem = several_effects_problem(
            self.taint_list, "the Auto Scaling group cannot describe it: use one effect per key (or provider none)"
        )
        if problem:
            problems.append(problem)
        if not problems:
            problems += self._asg_tag_problems()
        return problems

    def _asg_tag_problems(self) -> list[str]:
        """The Auto Scaling group's tags (ec2.autoscaling_group_tags: instance tags, the user's, Cluster Autoscaler
        node-template and auto-discovery tags) against the 50-per-group limit."""
        from ...config.limits import asg_tag_count_problem
        from ...config.stack import ClusterConfig
        from .render import autoscaling_group_tags

        tags = autoscaling_group_tags(self, _placeholder_cluster(ClusterConfig))
        user = len(self.tags)
        problem = asg_tag_count_problem(
            len(tags), f"{user} from tags, {len(tags) - user} the component sets: Name, cluster and pool tags, and "
            "Cluster Autoscaler's node-template/label, /taint and /resources and auto-discovery tags",
            "remove labels or tags (the group carries its Cluster Autoscaler tags whatever minSize is)",
        )
        return [problem] if problem else []

    def config_warnings(self) -> list[tuple[str, str]]:
        """Unknown types under allowUnknownInstanceTypes, the known risks of the types (catalog), and
        Spot nodes nothing drains (:func:`.spot.warnings`)."""
        from ... import catalog

        types = self.instance_types or []
        out = [("instanceTypes", w) for w in unknown_type_findings(types, self.allow_unknown_instance_types)[1]]
        out += [("instanceTypes", w) for t in types if (found := catalog.find(t)) for w in found.warnings]
        from . import spot

        return out + spot.warnings(self)

    @property
    def ships_own_device_plugin(self) -> bool:
        """Bottlerocket NVIDIA variants (``aws-k8s-<version>-nvidia``) include NVIDIA's device plugin
        (EKS user guide ``ml-eks-optimized-ami``; bottlerocket ``QUICKSTART-EKS.md``)."""
        return self.format == "bottlerocket"

    @property
    def uses_nvidia_device_plugin(self) -> bool:
        return not self.ships_own_device_plugin

    @property
    def writes_bottlerocket_settings(self) -> bool:
        """The ``bottlerocket`` format renders the node's TOML settings (``bootstrap.py``), where
        Bottlerocket's device-plugin settings for the pool's mig or gpuSharing are added
        (``gpu_agents/mig.py`` ``bottlerocket_settings``)."""
        return self.format == "bottlerocket"

    @property
    def cluster_platform(self) -> str:
        """``eks`` for the EKS bootstrap formats (al2023, bottlerocket, al2), else ``self-managed`` (kubeadm, kubelet)."""
        return "eks" if self.format in SELF_MANAGED_EC2_FORMATS else "self-managed"

    @property
    def joins_eks(self) -> bool:
        """True with ``provider: aws`` (the component launches the nodes into the EKS cluster)."""
        return self.provider == "aws"

    @property
    def _eks_gpu_image(self) -> bool:
        # the EKS-optimized AL2023/Bottlerocket NVIDIA image the component picks (no amiId of the user's)
        return self.provider == "aws" and self.ami_id is None and self.format in ("al2023", "bottlerocket")

    @property
    def image_family(self) -> str:
        """``al2023-nvidia``/``bottlerocket-nvidia`` on the EKS-optimized NVIDIA image, else ``other``."""
        if not self._eks_gpu_image:
            return "other"
        return "bottlerocket-nvidia" if self.format == "bottlerocket" else "al2023-nvidia"

    @property
    def driver_source(self) -> str:
        """``image`` on the EKS-optimized NVIDIA image, else ``unknown``."""
        return "image" if self._eks_gpu_image else "unknown"

    @property
    def efa_security_groups(self) -> list[str]:
        """The groups of the EFA interfaces: ``efa.securityGroupIds``, else ``securityGroupIds``."""
        return list((self.efa.security_group_ids if self.efa else None) or self.security_group_ids or [])

    @property
    def arch(self) -> str:
        """``x86_64`` or ``arm64``: the architecture of the instance types (``x86_64`` without any)."""
        return instances.instance_arch(self.instance_types[0]) if self.instance_types else "x86_64"

    @property
    def gpus(self) -> int | None:
        """GPUs per node: ``gpusPerNode``, else the instance table's count for the instance types."""
        if self.gpus_per_node is not None:
            return self.gpus_per_node
        return instances.gpu_count(self.instance_types[0]) if self.instance_types else None


_CLUSTER_ATTRS = {
    "apiServerEndpoint": "api_server_endpoint",
    "certificateAuthority": "certificate_authority",
    "serviceCidr": "service_cidr",
    "caCertHashes": "ca_cert_hashes",
}


def stack_issues(stack: Any) -> list[ConfigIssue]:
    """Stack-level self-managed rules as :class:`ConfigIssue` objects (cluster keys, subnets, role, version)."""
    cluster = stack.cluster
    issues = []
    missing: dict[str, list[str]] = {}
    for i, pool in enumerate(stack.pools):
        if not isinstance(pool, SelfManagedPool):
            continue
        keys, why = _FORMAT_CLUSTER_KEYS[pool.format]
        for key in keys:
            if not cluster.given(_CLUSTER_ATTRS[key]):
                missing.setdefault(key, []).append(f"pools[{i}] ({pool.format}: {why})")
        if pool.format == "kubeadm" and (problem := _kubeadm_version_problem(cluster.kubernetes_version, i)):
            issues.append(ConfigIssue("cluster.kubernetesVersion", problem))
        if pool.provider != "aws":
            continue
        if not (pool.subnet_ids or cluster.given("subnet_ids")):
            issues.append(ConfigIssue(f"pools[{i}].subnetIds", "missing; set it here or in cluster.subnetIds"))
        elif (pool.subnet_ids or "subnetIds" not in cluster.not_judged) and _efa.efa_enabled(pool) and (
            msg := _efa.subnet_problem(list(pool.subnet_ids or cluster.subnet_ids or []), bool(pool.subnet_ids))
        ):
            issues.append(ConfigIssue(f"pools[{i}].subnetIds", msg))  # one AZ: a cluster placement group
        if not (pool.instance_profile_arn or cluster.given("node_role_arn")):
            issues.append(ConfigIssue(f"pools[{i}].instanceProfileArn", "missing; set it here, or cluster.nodeRoleArn to get one made for it"
            ))
        if pool.ami_id is None and not cluster.kubernetes_version:
            issues.append(ConfigIssue("cluster.kubernetesVersion", f"missing; pools[{i}] resolves its {pool.format} NVIDIA AMI from the SSM "
                f"parameter of that version (or set pools[{i}].amiId)"
            ))
    for key, users in missing.items():
        issues.append(ConfigIssue(f"cluster.{key}", f"missing; needed by {', '.join(users)}"))
    return issues


def _kubeadm_version_problem(version: str | None, index: int) -> str | None:
    """Why a ``kubeadm`` pool cannot get a JoinConfiguration its cluster's kubeadm reads, or None: a
    ``cluster.kubernetesVersion`` below 1.22, whose kubeadm reads neither v1beta4 nor v1beta3, the APIs rendered."""
    from .._shared.registration import KUBEADM_V1BETA3, KUBEADM_V1BETA3_SINCE

    if not version:
        return None
    major, _, minor = version.partition(".")
    if (int(major), int(minor)) >= KUBEADM_V1BETA3_SINCE:
        return None
    since = ".".join(map(str, KUBEADM_V1BETA3_SINCE))
    return (f"{version!r}: pools[{index}] (kubeadm) renders a JoinConfiguration in {KUBEADM_V1BETA3} at the oldest, "
            f"which kubeadm reads from v{since} on (kubernetes cmd/kubeadm/app/apis/kubeadm/v1beta3/doc.go: "
            f"\"kubeadm v1.22.x and newer\"); set cluster.kubernetesVersion to the cluster's real version, "
            f"upgrade the cluster to {since} or later, or use format kubelet (plain kubelet flags) for that pool")


# --- karpenter ----------------------------------------------------------------------------
# Rules of Karpenter v1.14.1 (aws/karpenter-provider-aws tag v1.14.1): the NodePool and
# EC2NodeClass CRDs (openAPIV3Schema patterns, enums, limits and x-kubernetes-validations CEL
# rules; copies in tests/data/karpenter-crds/) and the Go runtime validation of
