"""EKS Auto Mode renderers: the ``karpenter.sh/v1`` ``NodePool`` and the ``eks.amazonaws.com/v1`` ``NodeClass``.

Auto Mode takes Karpenter's NodePool (Kubernetes Taint spelling in ``spec.template.spec.taints``)
with ``nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name}`` and Auto Mode's
requirement keys. Pure functions returning whole objects (plain dicts, fixed key order), wired
into ``kubernetes.apiextensions.CustomResource`` by ``resources.py`` and written as YAML by
``gpupool render``. Sources: EKS user guide ``automode/create-node-pool.adoc``,
``create-node-class.adoc``, ``auto-accelerated.adoc`` (see :mod:`.limits`).
"""

from __future__ import annotations

from typing import Any

from ...config import POOL_LABEL_KEY, ClusterConfig
from .._shared.nodepool import nodepool_manifest as _nodepool_manifest
from .config import EksAutoPool
from .limits import NODE_CLASS_API_VERSION, NODE_CLASS_GROUP, NODE_CLASS_KIND


def nodepool_manifest(pool: EksAutoPool, cluster: ClusterConfig) -> dict[str, Any]:
    """The Auto Mode ``NodePool`` of ``pool``: ``metadata.name`` = pool name; template labels =
    :attr:`EksAutoPool.node_labels`; taints in Kubernetes spelling; requirements =
    :attr:`EksAutoPool.requirement_list`; ``nodeClassRef`` = ``{group: eks.amazonaws.com,
    kind: NodeClass, name: <default | ref | created>}``; limits, disruption, weight,
    expireAfter, terminationGracePeriod (see :func:`gpu_node_pool.backends._shared.nodepool.nodepool_manifest`).
    ``cluster`` is unused (every backend renderer takes it)."""
    del cluster
    ref = {"group": NODE_CLASS_GROUP, "kind": NODE_CLASS_KIND, "name": pool.node_class_name}
    return _nodepool_manifest(pool, ref, pool.requirement_list, POOL_LABEL_KEY)


def node_class_role(pool: EksAutoPool, cluster: ClusterConfig) -> str:
    """``nodeClass.role``, else the role name in ``cluster.nodeRoleArn``.

    Raises:
        ValueError: neither is set (config validation reports this first).
    """
    if pool.node_class is not None and pool.node_class.role:
        return pool.node_class.role
    if cluster.node_role_arn:  # a Pulumi Output of the ARN (the cluster's identity) gives an Output
        arn: Any = cluster.node_role_arn
        return arn.apply(_role_name) if hasattr(arn, "apply") else _role_name(arn)
    raise ValueError(f"pool {pool.name!r}: no node role; set nodeClass.role or cluster.nodeRoleArn")


def nodeclass_manifest(pool: EksAutoPool, cluster: ClusterConfig) -> dict[str, Any]:
    """The ``eks.amazonaws.com/v1`` ``NodeClass`` a pool with ``nodeClass`` creates.

    ``spec.role`` (:func:`node_class_role`); ``spec.subnetSelectorTerms``: one ``{id}`` term per
    subnet (``nodeClass.subnetIds``, else ``cluster.subnetIds``) or one ``{tags}`` term;
    ``spec.securityGroupSelectorTerms``: one ``{id}`` per group or one ``{tags}`` term;
    ``spec.ephemeralStorage`` when configured; ``spec.tags`` = ``{gpu-node-pools/pool: <name>}``
    plus ``nodeClass.tags``, sorted.

    Raises:
        ValueError: the pool creates no NodeClass, or a required selector is missing
            (config validation reports both first).
    """
    nc = pool.node_class
    if nc is None:
        raise ValueError(f"pool {pool.name!r} references the existing NodeClass {pool.node_class_name!r}; it creates none")
    if nc.subnet_selector_tags is not None:
        subnets: list[dict[str, Any]] = [{"tags": dict(sorted(nc.subnet_selector_tags.items()))}]
    else:
        ids: Any = nc.subnet_ids or cluster.subnet_ids or []
        # the cluster's subnet ids may be a Pulumi Output of the list: terms computed in apply
        subnets = ids.apply(_id_terms) if hasattr(ids, "apply") else _id_terms(ids)
    if nc.security_group_selector_tags is not None:
        groups: list[dict[str, Any]] = [{"tags": dict(sorted(nc.security_group_selector_tags.items()))}]
    else:
        groups = [{"id": g} for g in nc.security_group_ids or []]
    if not subnets or not groups:
        raise ValueError(f"pool {pool.name!r}: the NodeClass needs subnet and security group selectors")
    spec: dict[str, Any] = {"role": node_class_role(pool, cluster), "subnetSelectorTerms": subnets,
                            "securityGroupSelectorTerms": groups}
    if nc.ephemeral_storage is not None:
        spec["ephemeralStorage"] = nc.ephemeral_storage.to_k8s()
    spec["tags"] = dict(sorted(({POOL_LABEL_KEY: pool.name} | dict(nc.tags)).items()))
    return {
        "apiVersion": NODE_CLASS_API_VERSION,
        "kind": NODE_CLASS_KIND,
        "metadata": {"name": pool.node_class_name, "labels": {POOL_LABEL_KEY: pool.name}},
        "spec": spec,
    }


def _role_name(arn: str) -> str:
    return arn.rsplit("/", 1)[-1]


def _id_terms(ids: list[str]) -> list[dict[str, Any]]:
    return [{"id": s} for s in ids or []]
