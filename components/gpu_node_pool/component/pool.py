"""``GpuNodePool``: a thin Pulumi shell that wires rendered inputs into provider resources.

All decisions (taint spelling, labels, tags) are made by the pure renderers in ``render/``;
this module only creates resources with ``parent=self`` and exposes plain-value outputs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pulumi

from .. import backends
from ..config import ConfigError, ConfigIssue
from ..k8s.taints import Toleration
from ..sdk import cluster_inputs
from ..sdk.cluster_inputs import ClusterIdentity
from ..sdk.program_log import log_own

if TYPE_CHECKING:  # the models (pydantic) are imported when a pool is validated, not at import
    from ..config.common import PoolBase as PoolConfig
    from ..config.stack import ClusterConfig, StackConfig

__all__ = ["KUBERNETES_VERSION", "GpuNodePool", "GpuNodePoolArgs"]

from ..k8s.wellknown import GPU_NODE_POOL_TYPE as TYPE_TOKEN

#: The property a ``GpuNodePool`` registers its cluster's ``kubernetesVersion`` (``"1.33"``) under, when the cluster
#: settings give one: the offline plan renders the program's charts with it (``helm template --kube-version``,
#: :func:`gpu_node_pool.plan.expand.chart_kube_version`).
KUBERNETES_VERSION = "kubernetesVersion"


@dataclass(frozen=True)
class GpuNodePoolArgs:
    """Arguments of :class:`GpuNodePool`.

    Attributes:
        pool: a validated pool model (``EksManagedPool``...), or its camelCase mapping as in
            the stack config (``{"backend": "eks-managed", "instanceTypes": [...], ...}``).
            Every value is plain: policies judge them at preview.
        cluster: one of
            * a :class:`~gpu_node_pool.config.ClusterConfig` or its mapping
              (``{"name": ..., "nodeRoleArn": ..., "subnetIds": [...]}``). The identity keys
              ``name``, ``nodeRoleArn``, ``subnetIds`` (the list or each item), ``project``,
              ``location``, ``apiServerEndpoint``, ``certificateAuthority`` and ``serviceCidr``
              may be ``pulumi.Input`` values (``cluster.name``, ``role.arn``); the pool's
              children then depend on them. Other keys are plain.
            * the cluster resource itself: ``aws.eks.Cluster``, ``pulumi_eks.Cluster`` (if
              installed) or ``gcp.container.Cluster`` (identity read from its outputs, see
              :func:`gpu_node_pool.sdk.cluster_inputs.from_resource`); pass the node role in
              ``node_role_arn``.
        node_role_arn: optional ``pulumi.Input[str]``, the node IAM role ARN; overrides the
            cluster's ``nodeRoleArn`` (an EKS cluster resource does not know its nodes' role).
        config_path: optional, where the pool is written in a stack config (``pools[1]``), shown in policy
            messages; such a pool gives no config warnings of its own (its program gives the stack's).
        limits: optional ``LimitsConfig`` (or its camelCase mapping, as ``gpu-node-pools:limits``): your account's
            applied quotas and overrides, read by the pool's config warnings (default: the published quotas).

    Raises:
        ConfigError: (from :meth:`validated`) the pool or cluster is invalid, a judged value is a
            Pulumi Output ("is a Pulumi Output; ... must be plain"), or ``cluster`` is neither a
            mapping, a ClusterConfig nor a known cluster resource; raised before any resource
            is registered.
    """

    pool: PoolConfig | Mapping[str, Any]
    cluster: ClusterConfig | Mapping[str, Any] | Any
    #: Where the pool was written, e.g. ``pools[1]`` (the stack config path); policy messages
    #: name the pool that way. Registered as the component's ``configPath`` property.
    config_path: str | None = None
    node_role_arn: Any = None
    limits: Any = None

    def validated(self) -> tuple[PoolConfig, ClusterConfig]:
        """The pool and cluster settings as validated models (mappings go through the stack
        validator). Identity values given as Inputs are not judged: they are ``None`` in the
        returned ``ClusterConfig`` and named in its ``not_judged``; :meth:`validated_identity`
        gives them too.

        Raises:
            ConfigError: ``pool`` is neither a pool model nor a mapping (``None``, a string, a list),
                ``cluster`` is neither a mapping, a ClusterConfig nor a cluster resource, or the values
                are invalid.
        """
        pool, settings, _ = self.validated_identity()
        return pool, settings

    def validated_identity(self) -> tuple[PoolConfig, ClusterConfig, ClusterIdentity]:
        """``(pool, cluster settings, cluster identity)``: the validated pool and plain cluster
        settings (:meth:`validated`), and the :class:`~gpu_node_pool.sdk.cluster_inputs.ClusterIdentity`
        holding the identity values as given (plain or Inputs; awaitables as Outputs).

        Raises:
            ConfigError: as :meth:`validated`.
        """
        from ..config.common import PoolBase as PoolConfig
        from ..config.loading import validate_stack_config
        from ..config.messages import show
        from ..config.stack import ClusterConfig

        if not isinstance(self.pool, PoolConfig | Mapping):
            raise ConfigError([ConfigIssue(
                "GpuNodePoolArgs.pool",
                f"got {show(self.pool, python=True)} ({type(self.pool).__name__}); expected a pool model (e.g. "
                "EksManagedPool) or its camelCase mapping, e.g. {'name': 'inference', 'backend': 'eks-managed', "
                "'instanceTypes': ['g6.xlarge'], 'scaling': {'minSize': 0, 'maxSize': 4}}",
            )], "GpuNodePoolArgs")
        cluster = self._cluster_mapping()
        if isinstance(self.pool, Mapping) or not isinstance(cluster, ClusterConfig):
            pool = self.pool.model_dump(by_alias=True) if not isinstance(self.pool, Mapping) else dict(self.pool)
            if isinstance(cluster, ClusterConfig):
                cluster = cluster.model_dump(by_alias=True, exclude_none=True)
            inputs = [cluster_inputs.IDENTITY_KEYS[k] for k, v in cluster.items()
                      if k in cluster_inputs.IDENTITY_KEYS and cluster_inputs.has_output(v)]
            stack: StackConfig = validate_stack_config({"cluster": cluster, "pools": [pool]}, "GpuNodePoolArgs", inputs,
                                                       agents_apart=True)  # its agents judge what needs them
            return stack.pools[0], stack.cluster, cluster_inputs.identity(cluster, stack.cluster)
        return self.pool, cluster, ClusterIdentity.of(cluster)

    def _cluster_mapping(self) -> ClusterConfig | dict[str, Any]:
        """The cluster as given: a ClusterConfig (used as is), or a mapping (camelCase keys) to validate."""
        from ..config.messages import show
        from ..config.stack import ClusterConfig

        cluster = self.cluster
        if isinstance(cluster, ClusterConfig):
            if self.node_role_arn is None:
                return cluster
            mapping = cluster.model_dump(by_alias=True, exclude_none=True)
        elif isinstance(cluster, Mapping):
            mapping = dict(cluster)
        else:
            found = cluster_inputs.from_resource(cluster)
            if found is None:
                raise ConfigError(
                    [ConfigIssue("GpuNodePoolArgs.cluster",
                                 f"got {show(cluster, python=True)} ({type(cluster).__name__}); expected a mapping such as "
                                 "{'name': 'ml-dev', 'nodeRoleArn': 'arn:aws:iam::111122223333:role/ml-dev-gpu-node', "
                                 "'subnetIds': ['subnet-0a1b2c3d4e5f60718']} (values may be Outputs), a ClusterConfig, "
                                 "or the cluster resource (aws.eks.Cluster, pulumi_eks.Cluster, gcp.container.Cluster)")],
                    "GpuNodePoolArgs",
                )
            mapping = found
        if self.node_role_arn is not None:
            mapping = {k: v for k, v in mapping.items() if k not in ("nodeRoleArn", "node_role_arn")}
            mapping["nodeRoleArn"] = self.node_role_arn
        return mapping


class GpuNodePool(pulumi.ComponentResource):
    """A GPU node pool whose taints and labels are declared where they survive node replacement.

    Children (names are stable; renaming one needs ``aliases``):
      * ``eks-managed``: ``aws.eks.NodeGroup`` ``<name>-node-group``; with ``minSize: 0`` one
        ``aws.autoscaling.Tag`` ``<name>-ca-<tag key>`` per Cluster Autoscaler node-template tag
        on the Auto Scaling group EKS creates.
      * ``gke``: ``gcp.container.NodePool`` ``<name>-node-pool`` (autonamed by Pulumi); no
        device plugin unless the pool opts out of GKE's own.
      * ``karpenter``: ``kubernetes.apiextensions.CustomResource`` ``<name>-nodepool``
        (``karpenter.sh/v1`` NodePool) and, with ``nodeClass``, ``<name>-ec2nodeclass``
        (``karpenter.k8s.aws/v1`` EC2NodeClass).
      * ``self-managed`` with ``provider: aws``: ``aws.ec2.LaunchTemplate`` ``<name>-launch-template``
        (the bootstrap as base64 user data, IMDSv2 required, the NVIDIA AMI from SSM),
        ``aws.autoscaling.Group`` ``<name>-asg`` with the Cluster Autoscaler tags, and
        ``aws.iam.InstanceProfile`` ``<name>-instance-profile`` unless ``instanceProfileArn`` is
        given. With ``provider: none``: no resource; the bootstrap is in ``bootstrap``.

    Attributes (plain values, known at preview):
        spec: the validated pool model.
        cluster: the validated cluster settings (``ClusterConfig``, plain; identity values given
            as Outputs are ``None`` there and named in ``cluster.not_judged``).
        identity: the cluster's :class:`~gpu_node_pool.sdk.cluster_inputs.ClusterIdentity`
            (name, node role, subnets... as given, plain or Outputs).
        taints: the pool's taints in kubelet form (``["nvidia.com/gpu=present:NoSchedule"]``).
        labels: every node label (user labels, GPU label, ``gpu-node-pools/pool``), by key.
        workload_tolerations: Kubernetes tolerations a GPU workload needs for this pool
            (one ``Equal`` toleration per ``NoSchedule``/``NoExecute`` taint).
        workload_node_selector: the nodeSelector that lands a workload on this pool only.

    Outputs (attributes): ``node_group_name``, ``node_group_arn`` (eks-managed), ``asg_tags`` (the CA
    tags), ``node_pool_name`` (gke), ``nodepool_name`` (karpenter: the NodePool's name, a plain string),
    ``bootstrap_format`` and ``bootstrap`` (self-managed: ``{file name: text}``, plain values),
    ``launch_template_id`` and ``autoscaling_group_name`` (self-managed, provider aws). The component
    registers ``taints`` and ``labels`` with the engine (``register_outputs``); the others are derived
    from them or are outputs of its children, which the state already holds.

    Properties registered with the component: ``configPath`` (``GpuNodePoolArgs.config_path``, when given), ``efa``
    (``true`` for a pool with EFA enabled) and ``kubernetesVersion`` (:data:`KUBERNETES_VERSION`: the cluster's
    ``kubernetesVersion``, ``"1.33"``, when the cluster settings give one).

    Raises:
        ConfigError: invalid args; nothing is registered.
    """

    def __init__(self, name: str, args: GpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        if not isinstance(args, GpuNodePoolArgs):
            from ..config.messages import show

            raise ConfigError(
                [ConfigIssue(f"GpuNodePool({name!r}, args)", f"got {show(args, python=True)} ({type(args).__name__}); expected "
                             "GpuNodePoolArgs(pool=..., cluster=...), e.g. GpuNodePoolArgs(pool={...}, cluster={...})")],
                "GpuNodePool arguments",
            )
        if not isinstance(name, str) or not name:
            raise ConfigError([ConfigIssue(f"GpuNodePool({name!r}, args)", (
                "the resource name must be a non-empty string (Pulumi names the component and its children after "
                "it), e.g. GpuNodePool('inference', GpuNodePoolArgs(...))"))], "GpuNodePool arguments")
        try:
            pool, cluster, identity = args.validated_identity()  # before anything is registered
        except ConfigError as err:
            raise err.relabelled(f"GpuNodePool {name!r}", "pools[0]", "pool") from None
        limits = _limits(name, args.limits)
        name_rule = backends.get(pool.backend).fn("resource_name")
        refused = name_rule(name, pool) if name_rule is not None else None
        if refused is not None:
            raise ConfigError([ConfigIssue("name", refused)], f"GpuNodePool {name!r}")
        from ..gpu_agents import once

        cluster_name = cluster.name if isinstance(identity.name, str) else None
        cluster_resource = args.cluster if isinstance(args.cluster, pulumi.Resource) else None
        name_output = identity.name if not isinstance(identity.name, str) else None
        taken = once.pool_name_problem(pool.name, cluster_name, cluster_resource, name_output)
        if taken is not None:
            raise ConfigError([ConfigIssue("pool.name", taken)], f"GpuNodePool {name!r}")
        props: dict[str, Any] = {"configPath": args.config_path} if args.config_path else {}
        if getattr(getattr(pool, "efa", None), "enabled", False):
            props["efa"] = True  # read by gpu-agents-cover-gpu-pools: the pool needs the EFA device plugin
        if cluster.kubernetes_version:  # read by the offline plan: the version it renders the program's charts with
            props[KUBERNETES_VERSION] = cluster.kubernetes_version
        super().__init__(TYPE_TOKEN, name, props, opts)
        self.spec = pool
        self.cluster = cluster
        self.identity = identity
        once.record_pool(pool, name, cluster_name, cluster_resource, name_output)
        if args.config_path is None:  # a pool of a stack config: its program gives the stack's warnings (program.py)
            self._warn(name, pool, cluster, limits)
        if cluster.not_judged:
            keys = ", ".join(f"cluster.{k}" for k in cluster.not_judged)
            log_own(pulumi.log.info,
                    f"{keys}: Pulumi Output(s), not judged here (the rules that read them check only that they are "
                    "given; the cloud checks the values when the resources are created)",
                    resource=self)
        self.taints = [str(t) for t in pool.taint_list]
        self.labels = pool.node_labels
        self.workload_tolerations = [
            Toleration.for_taint(t).to_k8s() for t in pool.taint_list if t.effect.repels
        ]
        self.workload_node_selector = dict(self.labels)
        self.node_group_name: pulumi.Output[str] | None = None
        self.node_group_arn: pulumi.Output[str] | None = None
        self.asg_tags: dict[str, str] = {}
        self.node_pool_name: pulumi.Output[str] | None = None
        self.nodepool_name: str | None = None
        self.bootstrap_format: str | None = None  # self-managed: al2023 | bottlerocket | al2 | kubeadm | kubelet
        self.bootstrap: dict[str, str] | None = None  # self-managed: {file name: text}, plain
        self.launch_template_id: pulumi.Output[str] | None = None
        self.autoscaling_group_name: pulumi.Output[str] | None = None
        #: Stack outputs the backend's wiring adds (``<pool>.<key>``), e.g. ``nodeGroupName``.
        self.exports: dict[str, Any] = {}

        wire = backends.get(pool.backend).fn("wire")
        if wire is None:  # pragma: no cover - a registered backend without Pulumi wiring
            raise ConfigError([], f"backend {pool.backend!r} has no Pulumi wiring")
        wire(self, name, pool, identity)

        # The engine keeps the pool's declared taints and labels as the component's outputs (shown in a
        # preview's diff and in the state). Every other attribute is derived from them or is a child's own
        # output, already in the state: registering them all again cost about 5% of a 1000-pool plan
        # (BENCHMARKS.md, plan overhead). Python reads the attributes; other languages get them all as the
        # component provider's typed outputs (provider/components.py), which read the attributes too.
        self.register_outputs({"taints": self.taints, "labels": self.labels})

    def _warn(self, name: str, pool: PoolConfig, cluster: ClusterConfig, limits: Any) -> None:
        """Report the pool's config warnings (:func:`gpu_node_pool.config.warnings.pool_warnings` under ``limits``):
        as Pulumi warnings on this component (``pulumi preview`` and ``up`` show them), each path under ``pool``,
        and kept for the run (``gpupool check`` reports them at the program's line). A warning about the cluster
        (its Kubernetes version) is given once per cluster and run."""
        from ..config.warnings import pool_warnings
        from ..gpu_agents import once

        prefix = "pool"
        found = [dataclasses.replace(w, path=prefix + w.path.removeprefix("pools[0]")) if w.path.startswith("pools[0]")
                 else w for w in pool_warnings(pool, cluster, limits)]
        found = [w for w in found if not w.path.startswith("cluster.") or once.first_cluster_warning(cluster.name, w)]
        once.record_warnings(name, found)
        for warning in found:
            log_own(pulumi.log.warn, f"{warning.path}: {warning.message}", resource=self)


def _limits(name: str, limits: Any) -> Any:
    """``GpuNodePoolArgs.limits`` as a ``LimitsConfig`` (None stays None: the published quotas).

    Raises:
        ConfigError: neither a ``LimitsConfig`` nor its camelCase mapping, or a wrong value in it, at
            ``limits.<key>``."""
    from ..config.limits import LimitsConfig

    if limits is None or isinstance(limits, LimitsConfig):
        return limits
    from pydantic import ValidationError

    try:
        return LimitsConfig.model_validate(limits)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError([ConfigIssue(f"limits.{where}".rstrip("."), first["msg"].replace("Input should be", "must be"))],
                          f"GpuNodePool {name!r}") from None
