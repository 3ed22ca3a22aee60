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

from collections.abc import Mapping
from typing import Any

from ..config import ClusterConfig, EksManagedPool
from ..taints import Taint

__all__ = [
    "CA_LABEL_PREFIX",
    "CA_TAINT_PREFIX",
    "CA_RESOURCE_PREFIX",
    "node_group_args",
    "ca_node_template_tags",
    "read_node_group_taints",
    "read_ca_node_template_tags",
]

CA_PREFIX = "k8s.io/cluster-autoscaler/node-template/"
CA_LABEL_PREFIX = CA_PREFIX + "label/"
CA_TAINT_PREFIX = CA_PREFIX + "taint/"
CA_RESOURCE_PREFIX = CA_PREFIX + "resources/"


def node_group_args(pool: EksManagedPool, cluster: ClusterConfig) -> dict[str, Any]:
    """The keyword arguments of ``aws.eks.NodeGroup`` for ``pool`` (snake_case, plain values).

    ``taints`` is the EKS shape ``[{key, value, effect: NO_SCHEDULE|NO_EXECUTE|PREFER_NO_SCHEDULE}]``
    in config order; ``labels`` and ``tags`` are sorted by key, so two runs give identical inputs.
    """
    args: dict[str, Any] = {
        "cluster_name": cluster.name,
        "node_role_arn": pool.node_role_arn or cluster.node_role_arn,
        "subnet_ids": list(pool.subnet_ids or cluster.subnet_ids or []),
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
    if pool.update_config is not None:
        upd = pool.update_config
        args["update_config"] = (
            {"max_unavailable": upd.max_unavailable}
            if upd.max_unavailable is not None
            else {"max_unavailable_percentage": upd.max_unavailable_percentage}
        )
    if cluster.kubernetes_version:
        args["version"] = cluster.kubernetes_version
    return args


def ca_node_template_tags(
    taints: list[Taint], labels: Mapping[str, str], resources: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Cluster Autoscaler scale-from-zero tags for an ASG whose nodes carry ``taints`` and ``labels``.

    ``node-template/label/<key>`` = ``<value>`` and ``node-template/taint/<key>`` =
    ``<value>:<Effect>`` (Kubernetes spelling; an empty value gives ``:<Effect>``), plus
    ``node-template/resources/<name>`` = ``<quantity>`` for each of ``resources`` (e.g.
    ``{"nvidia.com/gpu": "4"}``; self-managed groups). Sorted by key.

    Raises:
        ValueError: two taints share a key (one tag per key cannot hold both); config
            validation refuses such pools before they get here.
    """
    tags: dict[str, str] = {}
    for name, quantity in (resources or {}).items():
        tags[CA_RESOURCE_PREFIX + name] = str(quantity)
    for key, value in labels.items():
        tags[CA_LABEL_PREFIX + key] = value
    for taint in taints:
        tag = CA_TAINT_PREFIX + taint.key
        if tag in tags:
            raise ValueError(f"taint key {taint.key!r} has several effects; one CA tag cannot hold them")
        tags[tag] = f"{taint.value}:{taint.effect.value}"
    return dict(sorted(tags.items()))


def read_node_group_taints(props: Mapping[str, Any]) -> list[Taint]:
    """Taints from ``aws:eks/nodeGroup:NodeGroup`` inputs (``props["taints"]``, EKS spelling).

    Raises:
        TaintError: a taint item is malformed.
    """
    return [Taint.from_provider(item) for item in (props.get("taints") or [])]


def read_ca_node_template_tags(tags: Mapping[str, str]) -> tuple[list[Taint], dict[str, str]]:
    """Inverse of :func:`ca_node_template_tags`: ``(taints, labels)`` from an ASG's tags.

    Taints come back sorted by key (tags have no order). Other tags are ignored.

    Raises:
        TaintError: a taint tag's value is not ``<value>:<Effect>``.
    """
    taints, labels = [], {}
    for key, value in sorted(tags.items()):
        if key.startswith(CA_LABEL_PREFIX):
            labels[key[len(CA_LABEL_PREFIX):]] = value
        elif key.startswith(CA_TAINT_PREFIX):
            # the tag holds "<value>:<Effect>": the kubelet form once the key is put in front
            taints.append(Taint.parse(f"{key[len(CA_TAINT_PREFIX):]}={value}"))
    return taints, labels
