"""The labels a GKE node pool's nodes carry, for the placement of GPU agents.

GKE labels every node with ``cloud.google.com/gke-nodepool`` (the node pool's name) and, on GPU
nodes, ``cloud.google.com/gke-accelerator`` (the accelerator type)
(https://cloud.google.com/kubernetes-engine/docs/how-to/gpus; node pool labels:
https://cloud.google.com/kubernetes-engine/docs/how-to/creating-managing-labels), plus the
Kubernetes well-known labels, ``node.kubernetes.io/instance-type`` being the machine type. A4X
machines are Arm (NVIDIA Grace: https://cloud.google.com/compute/docs/accelerator-optimized-machines#a4x-series),
the other GPU machine series x86 (the ``arch`` of :data:`.machines.GPU_SERIES`). A GCP zone is its region and a ``-<letter>`` suffix.
"""

from __future__ import annotations

from typing import Any

from ...k8s.selection import NodeLabels
from ...k8s.wellknown import ARCH_LABEL
from .._shared.node_labels import node_kinds
from .machines import machine_arch

NODEPOOL_LABEL = "cloud.google.com/gke-nodepool"


def _per_type(machine: str) -> tuple[dict[str, str], list[str]]:
    return {ARCH_LABEL: machine_arch(machine)}, []


def _region(zone: str) -> str:
    head, _, tail = zone.rpartition("-")
    return head if head and len(tail) == 1 else ""


def node_labels(pool: Any) -> list[NodeLabels]:
    """One :class:`NodeLabels` per zone of the node pool (one machine type)."""
    name = (pool.extra or {}).get("node_pool_name")
    platform = {NODEPOOL_LABEL: name} if isinstance(name, str) and name else {}
    unknown = [] if platform else [NODEPOOL_LABEL]
    return node_kinds(pool.labels, pool.instance_types, pool.zones, _per_type, platform, unknown, _region)
