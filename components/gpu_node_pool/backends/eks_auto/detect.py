"""Recognise EKS Auto Mode GPU NodePools (``karpenter.sh`` NodePools whose ``nodeClassRef`` group is ``eks.amazonaws.com``).

Ours or hand-written: any NodePool referencing an Auto Mode NodeClass is an Auto Mode pool, and
its GPU nodes run the NVIDIA device plugin built into the Auto Mode image (EKS user guide
``automode/auto-accelerated.adoc``), so the pool needs no device plugin chart; every other agent
and DaemonSet must still tolerate its taints. Its ``taints`` and ``startupTaints`` are Karpenter's
``karpenter.sh/v1`` NodePool lists (EKS user guide ``automode/create-node-pool.adoc``: Auto Mode's node pools
are "Karpenter's NodePool resource", ``apiVersion: karpenter.sh/v1``), read and judged as the karpenter backend's are
(:func:`~gpu_node_pool.backends._shared.nodepool_detect.nodepool_taint_lists`); the startup taints go to
``extra["startup_taints"]``, which policy ``karpenter-startup-taints`` reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...k8s.wellknown import NVIDIA_GPU_RESOURCE
from ...sdk.props import dig, items, mapping, text
from .._shared.gpu_pool import GpuPool
from .._shared.nodepool_detect import (
    nodepool_extra,
    nodepool_instance_types,
    nodepool_node_labels,
    nodepool_taint_lists,
    nodepool_zones,
    requires_nvidia_gpu,
)
from .limits import AUTO_PREFIX, NODE_CLASS_GROUP


def is_auto_mode_nodepool(resource_type: str, props: Mapping[str, Any]) -> bool:
    """A ``karpenter.sh`` NodePool whose ``spec.template.spec.nodeClassRef.group`` is ``eks.amazonaws.com``."""
    return resource_type.endswith(":NodePool") and (
        text(dig(props, "spec", "template", "spec", "nodeClassRef", "group")) == NODE_CLASS_GROUP
    )


def detect(resource_type: str, props: Mapping[str, Any], name: str, urn: str, context: Mapping[str, Any]) -> GpuPool | None:
    """An Auto Mode NodePool is a GPU pool when its requirements require NVIDIA GPUs or its limits name ``nvidia.com/gpu``.
    Its ``problem``: a malformed taint or startup taint, or a key+effect its two lists repeat (Karpenter refuses it)."""
    if not is_auto_mode_nodepool(resource_type, props):
        return None
    from . import read

    requirements = list(items(dig(props, "spec", "template", "spec", "requirements")))
    if not requires_nvidia_gpu(requirements, AUTO_PREFIX) and NVIDIA_GPU_RESOURCE not in mapping(dig(props, "spec", "limits")):
        return None
    lists = nodepool_taint_lists(props)
    labels = nodepool_node_labels(read.read_labels, props, requirements)
    labels.setdefault(AUTO_PREFIX + "compute-type", "auto")
    return GpuPool(
        backend="eks-auto",
        resource_type=resource_type,
        name=name,
        urn=urn,
        taints=list(lists.taints),
        labels=labels,
        where="the EKS Auto Mode NodePool spec.template.spec.taints (GpuNodePool taints)",
        ships_own_device_plugin=True,
        problem=lists.problem,
        instance_types=nodepool_instance_types(requirements, mapping(dig(props, "spec", "limits"))),
        zones=nodepool_zones(requirements),
        extra=nodepool_extra(lists, "the EKS Auto Mode NodePool"),
    )
