"""``GpuNodePool``: a thin Pulumi shell that wires rendered inputs into provider resources.

All decisions (taint spelling, labels, tags) are made by the pure renderers in ``render/``;
this module only creates resources with ``parent=self`` and exposes plain-value outputs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi

from .config import (
    ClusterConfig,
    ConfigError,
    EksManagedPool,
    GkePool,
    KarpenterPool,
    PoolConfig,
    SelfManagedPool,
    StackConfig,
    validate_stack_config,
)
from .taints import Toleration

__all__ = ["GpuNodePool", "GpuNodePoolArgs"]

TYPE_TOKEN = "gpu-node-pools:index:GpuNodePool"


@dataclass(frozen=True)
class GpuNodePoolArgs:
    """Arguments of :class:`GpuNodePool`.

    Attributes:
        pool: a validated pool model (``EksManagedPool``...), or its camelCase mapping as in
            the stack config (``{"backend": "eks-managed", "instanceTypes": [...], ...}``).
        cluster: a :class:`~gpu_node_pool.config.ClusterConfig` or its mapping
            (``{"name": ..., "nodeRoleArn": ..., "subnetIds": [...]}``).

    Raises:
        ConfigError: (from :meth:`validated`) the pool or cluster is invalid; raised before any
            resource is registered.
    """

    pool: PoolConfig | Mapping[str, Any]
    cluster: ClusterConfig | Mapping[str, Any]

    def validated(self) -> tuple[PoolConfig, ClusterConfig]:
        """The pool and cluster as validated models (mappings go through the stack validator)."""
        if isinstance(self.pool, Mapping) or isinstance(self.cluster, Mapping):
            pool = self.pool.model_dump(by_alias=True) if not isinstance(self.pool, Mapping) else dict(self.pool)
            cluster = (
                self.cluster.model_dump(by_alias=True, exclude_none=True)
                if not isinstance(self.cluster, Mapping)
                else dict(self.cluster)
            )
            stack: StackConfig = validate_stack_config({"cluster": cluster, "pools": [pool]}, "GpuNodePoolArgs")
            return stack.pools[0], stack.cluster
        return self.pool, self.cluster


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
        taints: the pool's taints in kubelet form (``["nvidia.com/gpu=present:NoSchedule"]``).
        labels: every node label (user labels, GPU label, ``gpu-node-pools/pool``), by key.
        workload_tolerations: Kubernetes tolerations a GPU workload needs for this pool
            (one ``Equal`` toleration per ``NoSchedule``/``NoExecute`` taint).
        workload_node_selector: the nodeSelector that lands a workload on this pool only.

    Outputs: ``node_group_name``, ``node_group_arn`` (eks-managed), ``asg_tags`` (the CA tags),
    ``node_pool_name`` (gke), ``nodepool_name`` (karpenter: the NodePool's name, a plain string),
    ``bootstrap_format`` and ``bootstrap`` (self-managed: ``{file name: text}``, plain values),
    ``launch_template_id`` and ``autoscaling_group_name`` (self-managed, provider aws).

    Raises:
        ConfigError: invalid args; nothing is registered.
    """

    def __init__(self, name: str, args: GpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        pool, cluster = args.validated()  # raises ConfigError before anything is registered
        super().__init__(TYPE_TOKEN, name, {}, opts)
        self.spec = pool
        self.cluster = cluster
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

        if isinstance(pool, EksManagedPool):
            self._eks_managed(name, pool, cluster)
        elif isinstance(pool, GkePool):
            self._gke(name, pool, cluster)
        elif isinstance(pool, KarpenterPool):
            self._karpenter(name, pool, cluster)
        elif isinstance(pool, SelfManagedPool):
            self._self_managed(name, pool, cluster)
        else:  # pragma: no cover - the union is closed; a new backend must be wired here
            raise ConfigError([], f"backend {pool.backend!r} has no Pulumi wiring")

        self.register_outputs(
            {
                "taints": self.taints,
                "labels": self.labels,
                "workload_tolerations": self.workload_tolerations,
                "workload_node_selector": self.workload_node_selector,
                "node_group_name": self.node_group_name,
                "node_group_arn": self.node_group_arn,
                "asg_tags": self.asg_tags,
                "node_pool_name": self.node_pool_name,
                "nodepool_name": self.nodepool_name,
                "bootstrap": self.bootstrap,
                "launch_template_id": self.launch_template_id,
                "autoscaling_group_name": self.autoscaling_group_name,
            }
        )

    def _eks_managed(self, name: str, pool: EksManagedPool, cluster: ClusterConfig) -> None:
        import pulumi_aws as aws

        from .render import eks

        node_group = aws.eks.NodeGroup(
            f"{name}-node-group",
            **eks.node_group_args(pool, cluster),
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.node_group = node_group
        self.node_group_name = node_group.node_group_name
        self.node_group_arn = node_group.arn
        if pool.scaling.min_size == 0:
            self.asg_tags = eks.ca_node_template_tags(pool.taint_list, pool.node_labels)
            asg_name = node_group.resources.apply(_first_asg_name)
            for key, value in self.asg_tags.items():
                aws.autoscaling.Tag(
                    f"{name}-ca-{key}",
                    autoscaling_group_name=asg_name,
                    tag={"key": key, "value": value, "propagate_at_launch": False},
                    opts=pulumi.ResourceOptions(parent=self, depends_on=[node_group]),
                )

    def _gke(self, name: str, pool: GkePool, cluster: ClusterConfig) -> None:
        import pulumi_gcp as gcp

        from .render import gke

        node_pool = gcp.container.NodePool(
            f"{name}-node-pool",
            **gke.node_pool_args(pool, cluster),
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.node_pool = node_pool
        self.node_pool_name = node_pool.name

    def _karpenter(self, name: str, pool: KarpenterPool, cluster: ClusterConfig) -> None:
        import pulumi_kubernetes as k8s

        from .render import karpenter

        depends_on: list[pulumi.Resource] = []
        if pool.node_class is not None:
            node_class = karpenter.ec2nodeclass_manifest(pool, cluster)
            self.ec2nodeclass = k8s.apiextensions.CustomResource(
                f"{name}-ec2nodeclass",
                api_version=node_class["apiVersion"],
                kind=node_class["kind"],
                metadata=node_class["metadata"],
                spec=node_class["spec"],
                opts=pulumi.ResourceOptions(parent=self),
            )
            depends_on.append(self.ec2nodeclass)
        nodepool = karpenter.nodepool_manifest(pool, cluster)
        self.nodepool = k8s.apiextensions.CustomResource(
            f"{name}-nodepool",
            api_version=nodepool["apiVersion"],
            kind=nodepool["kind"],
            metadata=nodepool["metadata"],
            spec=nodepool["spec"],
            opts=pulumi.ResourceOptions(parent=self, depends_on=depends_on),
        )
        self.nodepool_name = nodepool["metadata"]["name"]

    def _self_managed(self, name: str, pool: SelfManagedPool, cluster: ClusterConfig) -> None:
        from .render import kubelet

        self.bootstrap_format = pool.format
        self.bootstrap = kubelet.bootstrap_files(pool, cluster)
        if pool.provider == "none":
            return  # bare metal: the rendered bootstrap is the whole product (stack outputs)

        import pulumi_aws as aws

        opts = pulumi.ResourceOptions(parent=self)
        image_id: Any = pool.ami_id
        if image_id is None:
            parameter = kubelet.ami_ssm_parameter(pool.format, cluster.kubernetes_version or "", pool.arch)
            image_id = aws.ssm.get_parameter_output(
                name=parameter, opts=pulumi.InvokeOutputOptions(parent=self)
            ).value
        profile_arn: Any = pool.instance_profile_arn
        if profile_arn is None:
            profile = aws.iam.InstanceProfile(
                f"{name}-instance-profile", role=kubelet.role_name_from_arn(cluster.node_role_arn or ""), opts=opts
            )
            profile_arn = profile.arn
        template = aws.ec2.LaunchTemplate(
            f"{name}-launch-template",
            **kubelet.launch_template_args(pool, cluster, image_id=image_id, instance_profile_arn=profile_arn),
            opts=opts,
        )
        group = aws.autoscaling.Group(
            f"{name}-asg",
            **kubelet.autoscaling_group_args(
                pool,
                cluster,
                launch_template_id=template.id,
                launch_template_version=template.latest_version.apply(str),
            ),
            # Cluster Autoscaler owns the desired size once the group exists.
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=["desiredCapacity"]),
        )
        self.launch_template = template
        self.autoscaling_group = group
        self.launch_template_id = template.id
        self.autoscaling_group_name = group.name
        self.asg_tags = kubelet.ca_tags(pool, cluster)


def _first_asg_name(resources: Any) -> str:
    # NodeGroup.resources = [{autoscaling_groups: [{name}], remote_access_security_group_id}]
    for res in resources or []:
        groups = res.get("autoscaling_groups") if isinstance(res, Mapping) else getattr(res, "autoscaling_groups", None)
        for group in groups or []:
            name = group.get("name") if isinstance(group, Mapping) else getattr(group, "name", None)
            if name:
                return name
    raise ValueError("the EKS node group reports no Auto Scaling group")
