"""EKS managed node group renderer: ``aws.eks.NodeGroup`` inputs and Cluster Autoscaler ASG tags.

Writes taints to ``NodeGroup.taints`` in the EKS spelling (``NO_SCHEDULE``...) and, for
scale from zero, ``k8s.io/cluster-autoscaler/node-template/{label,taint}/...`` tags for the
Auto Scaling group EKS creates (EKS does not copy node group taints or labels to it).
The readers turn provider inputs (camelCase, what policies see) back into taints and labels.

Sources: EKS API ``CreateNodegroup`` and ``Taint``; pulumi_aws ``eks.NodeGroup``;
kubernetes/autoscaler ``cloudprovider/aws/README.md`` (node-template tags, Kubernetes effect
spelling, value regex ``(.*):(?:NoSchedule|NoExecute|PreferNoSchedule)``).
"""

from __future__ import annotations

from typing import Any

from ...config import ClusterConfig
from .config import EksManagedPool


def node_group_args(pool: EksManagedPool, cluster: ClusterConfig) -> dict[str, Any]:
    """The keyword arguments of ``aws.eks.NodeGroup`` for ``pool`` (snake_case, plain values).

    ``taints`` is the EKS shape ``[{key, value, effect: NO_SCHEDULE|NO_EXECUTE|PREFER_NO_SCHEDULE}]``
    in config order; ``labels`` and ``tags`` are sorted by key, so two runs give identical inputs.
    """
    args: dict[str, Any] = {
        "cluster_name": cluster.name,
        "node_role_arn": pool.node_role_arn or cluster.node_role_arn,
        "subnet_ids": _ids(pool.subnet_ids or cluster.subnet_ids or []),
        "instance_types": list(pool.instance_types),
        "ami_type": pool.ami_type,
        "capacity_type": pool.capacity_type,
        "scaling_config": {
            "min_size": pool.scaling.min_size,
            "max_size": pool.scaling.max_size,
            "desired_size": pool.scaling.desired,
        },
        "taints": [t.to_provider() for t in pool.taint_list],
        "labels": pool.node_labels,
        "tags": dict(sorted(({"gpu-node-pools/pool": pool.name} | pool.tags).items())),
    }
    if pool.disk_size is not None:
        args["disk_size"] = pool.disk_size
    if pool.release_version is not None:  # EKS API CreateNodegroup releaseVersion: the AMI release pinned
        args["release_version"] = pool.release_version
    if pool.update_config is not None:
        upd = pool.update_config
        args["update_config"] = (
            {"max_unavailable": upd.max_unavailable}
            if upd.max_unavailable is not None
            else {"max_unavailable_percentage": upd.max_unavailable_percentage}
        )
    if cluster.kubernetes_version:
        args["version"] = cluster.kubernetes_version
    if pool.node_repair is not None:  # EKS NodeRepairConfig (EKS API reference API_NodeRepairConfig)
        args["node_repair_config"] = {"enabled": pool.node_repair.enabled}
    return args


def _ids(ids: Any) -> Any:
    """A list copy of ``ids``; a Pulumi Output of the list (the cluster's identity) is passed through."""
    return ids if hasattr(ids, "apply") else list(ids)
