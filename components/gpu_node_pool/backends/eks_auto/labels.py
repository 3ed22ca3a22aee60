"""The labels an EKS Auto Mode NodePool's nodes carry, for the placement of GPU agents.

Auto Mode nodes carry ``eks.amazonaws.com/compute-type: auto``, ``karpenter.sh/nodepool``,
``karpenter.sh/capacity-type`` and the instance labels under ``eks.amazonaws.com/instance-*``
(EKS user guide, "Create a Node Pool for EKS Auto Mode", supported labels:
https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html), and no
``karpenter.k8s.aws/*`` label.
"""

from __future__ import annotations

from typing import Any

from ...k8s.selection import NodeLabels
from .._shared.node_labels import catalog_labels, node_kinds

CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"


def node_labels(pool: Any) -> list[NodeLabels]:
    """One :class:`NodeLabels` per instance type the NodePool can launch and zone it pins."""
    unknown = [] if CAPACITY_TYPE_LABEL in (pool.labels or {}) else [CAPACITY_TYPE_LABEL]
    platform = {"eks.amazonaws.com/compute-type": "auto"}
    return node_kinds(pool.labels, pool.instance_types, pool.zones, catalog_labels("eks.amazonaws.com/"), platform, unknown)
