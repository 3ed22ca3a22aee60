"""The labels a self-managed pool's nodes carry, for the placement of GPU agents: the labels its
kubelet registers (``--node-labels``, read back from the bootstrap) and the Kubernetes well-known
labels the kubelet and the cloud provider set (https://kubernetes.io/docs/reference/labels-annotations-taints/);
no EKS-, Karpenter- or GKE-owned label (no service manages these nodes)."""

from __future__ import annotations

from typing import Any

from ...k8s.selection import NodeLabels
from .._shared.node_labels import catalog_labels, node_kinds


def node_labels(pool: Any) -> list[NodeLabels]:
    """One :class:`NodeLabels` for the launch template's instance type (unknown type: one kind, type unknown)."""
    return node_kinds(pool.labels, pool.instance_types, pool.zones, catalog_labels(""), {})
