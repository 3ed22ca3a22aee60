"""``GpuNodePool``: a thin Pulumi shell that wires rendered inputs into provider resources.

All decisions (taint spelling, labels, tags) are made by the pure renderers in ``render/``;
this module only creates resources with ``parent=self`` and exposes plain-value outputs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi

from .config import ClusterConfig, ConfigError, EksManagedPool, PoolConfig, StackConfig, validate_stack_config
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

    Attributes (plain values, known at preview):
        spec: the validated pool model.
        taints: the pool's taints in kubelet form (``["nvidia.com/gpu=present:NoSchedule"]``).
        labels: every node label (user labels, GPU label, ``gpu-node-pools/pool``), by key.
        workload_tolerations: Kubernetes tolerations a GPU workload needs for this pool
            (one ``Equal`` toleration per ``NoSchedule``/``NoExecute`` taint).
        workload_node_selector: the nodeSelector that lands a workload on this pool only.

    Outputs: ``node_group_name``, ``node_group_arn`` (eks-managed), ``asg_tags`` (the CA tags).

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

        if isinstance(pool, EksManagedPool):
            self._eks_managed(name, pool, cluster)
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


def _first_asg_name(resources: Any) -> str:
    # NodeGroup.resources = [{autoscaling_groups: [{name}], remote_access_security_group_id}]
    for res in resources or []:
        groups = res.get("autoscaling_groups") if isinstance(res, Mapping) else getattr(res, "autoscaling_groups", None)
        for group in groups or []:
            name = group.get("name") if isinstance(group, Mapping) else getattr(group, "name", None)
            if name:
                return name
    raise ValueError("the EKS node group reports no Auto Scaling group")
