"""Recognise EKS Auto Mode GPU NodePools (``karpenter.sh`` NodePools whose ``nodeClassRef`` group is ``eks.amazonaws.com``).

Ours or hand-written: any NodePool referencing an Auto Mode NodeClass is an Auto Mode pool, and
its GPU nodes run the NVIDIA device plugin built into the Auto Mode image (EKS user guide
``automode/auto-accelerated.adoc``), so the pool needs no device plugin chart; every other agent
and DaemonSet must still tolerate its taints.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ... import instances
from ...props import dig, items, mapping, text
from ...wellknown import NVIDIA_GPU_RESOURCE
from .._gpu_pool import GpuPool, _read_taints
from .limits import AUTO_PREFIX, NODE_CLASS_GROUP


def _requires_nvidia_gpu(requirements: Iterable[Any]) -> bool:
    for req in requirements:
        key = text(dig(req, "key")) or ""
        op = text(dig(req, "operator")) or ""
        values = [str(v) for v in items(dig(req, "values"))]
        if key == AUTO_PREFIX + "instance-gpu-manufacturer" and op == "In" and values == ["nvidia"]:
            return True
        if key == AUTO_PREFIX + "instance-gpu-count":
            if op == "Gt" and values and values[0].isdigit():
                return True
            if op == "In" and values and all(v.isdigit() and int(v) > 0 for v in values):
                return True
        if key == AUTO_PREFIX + "instance-gpu-name" and op in ("In", "Exists"):
            return True
        if op == "In" and values:
            if key == AUTO_PREFIX + "instance-family" and all(v in instances.NVIDIA_FAMILIES for v in values):
                return True
            if key == "node.kubernetes.io/instance-type" and all(instances.is_nvidia_instance_type(v) for v in values):
                return True
    return False


def is_auto_mode_nodepool(resource_type: str, props: Mapping[str, Any]) -> bool:
    """A ``karpenter.sh`` NodePool whose ``spec.template.spec.nodeClassRef.group`` is ``eks.amazonaws.com``."""
    return resource_type.endswith(":NodePool") and (
        text(dig(props, "spec", "template", "spec", "nodeClassRef", "group")) == NODE_CLASS_GROUP
    )


def detect(resource_type: str, props: Mapping[str, Any], name: str, urn: str, context: Mapping[str, Any]) -> GpuPool | None:
    """An Auto Mode NodePool is a GPU pool when its requirements require NVIDIA GPUs or its limits name ``nvidia.com/gpu``."""
    if not is_auto_mode_nodepool(resource_type, props):
        return None
    from . import read

    requirements = list(items(dig(props, "spec", "template", "spec", "requirements")))
    if not _requires_nvidia_gpu(requirements) and NVIDIA_GPU_RESOURCE not in mapping(dig(props, "spec", "limits")):
        return None
    taints, problem = _read_taints(read.read_taints, props)
    try:
        labels = {k: v for k, v in read.read_labels(props).items() if isinstance(v, str)}
    except (TypeError, AttributeError, ValueError):
        labels = {}
    for req in requirements:  # single-valued In requirements become node labels
        values = list(items(dig(req, "values")))
        if dig(req, "operator") == "In" and len(values) == 1 and isinstance(dig(req, "key"), str):
            labels.setdefault(dig(req, "key"), str(values[0]))
    pool_name = text(dig(props, "metadata", "name"))
    if pool_name:
        labels.setdefault("karpenter.sh/nodepool", pool_name)
    labels.setdefault(AUTO_PREFIX + "compute-type", "auto")
    return GpuPool(
        backend="eks-auto",
        resource_type=resource_type,
        name=name,
        urn=urn,
        taints=taints,
        labels=labels,
        where="the EKS Auto Mode NodePool spec.template.spec.taints (GpuNodePool taints)",
        ships_own_device_plugin=True,
        problem=problem,
    )
