"""The labels a Karpenter NodePool's nodes carry, for the placement of GPU agents.

Karpenter labels every node it launches with ``karpenter.sh/nodepool``, ``karpenter.sh/capacity-type``
(``spot`` | ``on-demand`` | ``reserved``, picked at launch unless one requirement value pins it) and the
instance labels of its type, ``karpenter.k8s.aws/instance-*`` (https://karpenter.sh/docs/concepts/scheduling/#well-known-labels;
aws/karpenter-provider-aws ``pkg/providers/instancetype/types.go``), besides the Kubernetes well-known
labels. A requirement pinned to one value is a node label too (already among the pool's labels);
a zone requirement with several values is judged per zone.
"""

from __future__ import annotations

from typing import Any

from ...k8s.selection import NodeLabels
from .._shared.node_labels import catalog_labels, node_kinds

CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"


def node_labels(pool: Any) -> list[NodeLabels]:
    """One :class:`NodeLabels` per instance type the NodePool can launch and zone it pins."""
    unknown = [] if CAPACITY_TYPE_LABEL in (pool.labels or {}) else [CAPACITY_TYPE_LABEL]
    return node_kinds(pool.labels, pool.instance_types, pool.zones, catalog_labels("karpenter.k8s.aws/"), {}, unknown)
