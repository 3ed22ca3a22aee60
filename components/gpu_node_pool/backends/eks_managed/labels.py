"""The labels an EKS managed node group's nodes carry, for the placement of GPU agents.

EKS adds ``eks.amazonaws.com/nodegroup`` (the group's name), ``eks.amazonaws.com/capacityType``
(``ON_DEMAND`` | ``SPOT`` | ``CAPACITY_BLOCK``, the group's ``capacityType``; ``ON_DEMAND`` when
unset) and ``eks.amazonaws.com/nodegroup-image`` (the AMI) to every node of a managed node group
(EKS user guide, https://docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html;
``CapacityTypes`` in https://docs.aws.amazon.com/eks/latest/APIReference/API_Nodegroup.html).
It sets no ``eks.amazonaws.com/compute-type`` (Auto Mode and Fargate nodes carry it) and no
``karpenter.sh/*`` label. The zone comes from the subnet EC2 picks: unknown at plan time.
"""

from __future__ import annotations

from typing import Any

from ...k8s.selection import NodeLabels
from .._shared.node_labels import catalog_labels, node_kinds

NODEGROUP_LABEL = "eks.amazonaws.com/nodegroup"


def node_labels(pool: Any) -> list[NodeLabels]:
    """One :class:`NodeLabels` per instance type of the group (a ``GpuPool`` of this backend)."""
    platform = {"eks.amazonaws.com/capacityType": str((pool.extra or {}).get("capacity_type") or "ON_DEMAND")}
    unknown = ["eks.amazonaws.com/nodegroup-image"] + ([] if NODEGROUP_LABEL in (pool.labels or {}) else [NODEGROUP_LABEL])
    return node_kinds(pool.labels, pool.instance_types, pool.zones, catalog_labels(""), platform, unknown)
