"""The labels a GKE node pool's nodes carry, for the placement of GPU agents.

GKE labels every node with ``cloud.google.com/gke-nodepool`` (the node pool's name) and, on GPU
nodes, ``cloud.google.com/gke-accelerator`` (the accelerator type)
(https://cloud.google.com/kubernetes-engine/docs/how-to/gpus; node pool labels:
https://cloud.google.com/kubernetes-engine/docs/how-to/creating-managing-labels), plus the
Kubernetes well-known labels, ``node.kubernetes.io/instance-type`` being the machine type. A4X
machines are Arm (NVIDIA Grace: https://cloud.google.com/compute/docs/accelerator-optimized-machines#a4x-series),
the other GPU machine series x86 (the ``arch`` of :data:`.machines.GPU_SERIES`). A GCP zone is its region and a ``-<letter>`` suffix.

``cloud.google.com/gke-gpu-driver-version`` (:data:`~gpu_node_pool.k8s.wellknown.GKE_DRIVER_VERSION_LABEL`) marks a node whose driver GKE installs
(the node label of a ComputeClass's ``priorities.gpu.driverVersion``,
https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes): GKE's manual driver installer
selects GPU nodes where it ``DoesNotExist`` (GoogleCloudPlatform/container-engine-accelerators
``nvidia-driver-installer/cos/daemonset-preloaded.yaml``), the installer GKE tells pools with the install disabled to
apply (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#installing_drivers). So a pool with
``gpuDriverVersion`` ``LATEST`` or ``DEFAULT`` carries it (its value not taken as known here), one with
``INSTALLATION_DISABLED`` does not, and one with ``GPU_DRIVER_VERSION_UNSPECIFIED`` (or read back without a
version) is left undecided.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...k8s.selection import NodeLabels
from ...k8s.wellknown import ARCH_LABEL, GKE_CONFIDENTIAL_NODES_LABEL, GKE_DRIVER_VERSION_LABEL
from .._shared.node_labels import node_kinds
from .machines import machine_arch

NODEPOOL_LABEL = "cloud.google.com/gke-nodepool"
#: ``gpuDriverVersion`` values with which GKE installs the driver, and so labels the node :data:`~gpu_node_pool.k8s.wellknown.GKE_DRIVER_VERSION_LABEL`.
_GKE_INSTALLS = ("LATEST", "DEFAULT")


def _per_type(machine: str) -> tuple[dict[str, str], list[str]]:
    return {ARCH_LABEL: machine_arch(machine)}, []


def _region(zone: str) -> str:
    head, _, tail = zone.rpartition("-")
    return head if head and len(tail) == 1 else ""


def node_labels(pool: Any) -> list[NodeLabels]:
    """One :class:`NodeLabels` per zone of the node pool (one machine type), with :data:`~gpu_node_pool.k8s.wellknown.GKE_DRIVER_VERSION_LABEL`
    carried (value unknown) when GKE installs the driver and known missing with ``INSTALLATION_DISABLED``, and
    :data:`~gpu_node_pool.k8s.wellknown.GKE_CONFIDENTIAL_NODES_LABEL` carried on a pool of Confidential GKE Nodes
    (``node_config.confidential_nodes.enabled``) and known missing when the pool does not enable them."""
    name = (pool.extra or {}).get("node_pool_name")
    driver = (pool.extra or {}).get("gpu_driver_version")
    platform = {NODEPOOL_LABEL: name} if isinstance(name, str) and name else {}
    unknown = [] if platform else [NODEPOOL_LABEL]
    if driver in _GKE_INSTALLS:
        unknown.append(GKE_DRIVER_VERSION_LABEL)
    confidential = (pool.extra or {}).get("confidential_nodes", False)
    if confidential is True:
        unknown.append(GKE_CONFIDENTIAL_NODES_LABEL)
    kinds = node_kinds(pool.labels, pool.instance_types, pool.zones, _per_type, platform, unknown, _region)
    absent = {GKE_DRIVER_VERSION_LABEL} if driver == "INSTALLATION_DISABLED" else set()
    absent |= {GKE_CONFIDENTIAL_NODES_LABEL} if confidential in (None, False) else set()
    return [replace(k, decided=k.decided | absent) for k in kinds] if absent else kinds
