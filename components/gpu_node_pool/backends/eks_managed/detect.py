"""Recognise eks-managed GPU pools (``aws:eks/nodeGroup:NodeGroup``), ours or hand-written."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...catalog import instances
from ...sdk.props import dig, items, text
from .._shared.gpu_pool import GpuPool, int_or_none, own_copy, read_once, read_taints, string_labels
from . import BACKEND


def detect(resource_type: str, props: Mapping[str, Any], name: str, urn: str, context: Mapping[str, Any]) -> GpuPool | None:
    """An ``aws:eks/nodeGroup:NodeGroup`` is a GPU pool when its ``amiType`` is an NVIDIA/GPU one or an instance type is NVIDIA.
    The stack around it does not change the pool: read once per resource
    (:func:`~gpu_node_pool.backends._shared.gpu_pool.read_once`), each caller gets its own copy."""
    pool = read_once(props, ("eks-managed", "NodeGroup read"), lambda: _read(resource_type, props, name, urn))
    return own_copy(pool, resource_type=resource_type, name=name, urn=urn) if pool is not None else None


def _read(resource_type: str, props: Mapping[str, Any], name: str, urn: str) -> GpuPool | None:
    from . import read as eks

    ami_type = text(dig(props, "amiType")) or ""
    types = [t for t in items(dig(props, "instanceTypes")) if isinstance(t, str)]
    gpu_ami = "NVIDIA" in ami_type or "GPU" in ami_type
    if not gpu_ami and not any(instances.is_nvidia_instance_type(t) for t in types):
        return None
    taints, problem = read_taints(eks.read_node_group_taints, props)
    labels = string_labels(dig(props, "labels"))
    group_name = text(dig(props, "nodeGroupName"))
    if group_name:
        labels.setdefault("eks.amazonaws.com/nodegroup", group_name)
    return GpuPool(
        backend=BACKEND.name,
        resource_type=resource_type,
        name=name,
        urn=urn,
        taints=taints,
        labels=labels,
        where="aws.eks.NodeGroup taints (GpuNodePool taints)",
        ships_own_device_plugin=ami_type.startswith("BOTTLEROCKET_") and "NVIDIA" in ami_type,
        min_size=int_or_none(dig(props, "scalingConfig", "minSize")),
        problem=problem,
        instance_types=tuple(types) or None,
        extra={"capacity_type": text(dig(props, "capacityType")) or "ON_DEMAND"},
    )
