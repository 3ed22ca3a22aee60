"""Recognise self-managed GPU pools: a launch template with an NVIDIA instance type (or used by an Auto
Scaling group of NVIDIA types) whose user data bootstraps a kubelet."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...catalog import instances
from ...sdk.props import dig, text
from .._shared.gpu_pool import GpuPool, own_copy, read_once, read_taints
from .._shared.user_data import decode_user_data, read_registration_labels, read_registration_taints
from . import BACKEND
from .read import bootstrap_format, looks_like_node_bootstrap


def detect(resource_type: str, props: Mapping[str, Any], name: str, urn: str, context: Mapping[str, Any]) -> GpuPool | None:
    """A launch template is a GPU pool when its instance type is NVIDIA (or ``context["force_gpu"]``: an Auto
    Scaling group of NVIDIA types uses it) and its user data bootstraps a kubelet; taints are read from the
    kubelet registration in the user data."""
    instance_type = text(dig(props, "instanceType"))
    if not context.get("force_gpu") and not (instance_type and instances.is_nvidia_instance_type(instance_type)):
        return None
    # the rest does not depend on the stack around it: read once per resource, each caller gets its own copy
    pool = read_once(props, ("self-managed", "LaunchTemplate read"), lambda: _read(resource_type, props, name, urn, instance_type))
    return own_copy(pool, resource_type=resource_type, name=name, urn=urn) if pool is not None else None


def _read(resource_type: str, props: Mapping[str, Any], name: str, urn: str, instance_type: str | None) -> GpuPool | None:
    user_data = decode_user_data(dig(props, "userData"))
    if not looks_like_node_bootstrap(user_data):
        return None
    taints, problem = read_taints(read_registration_taints, user_data)
    labels: dict[str, str] | None
    try:
        labels = dict(read_registration_labels(user_data))
    except (TypeError, AttributeError, ValueError):
        labels = None
    return GpuPool(
        backend=BACKEND.name,
        resource_type=resource_type,
        name=name,
        urn=urn,
        taints=taints,
        labels=labels,
        where="the kubelet registration in the launch template's user data (registerWithTaints)",
        ships_own_device_plugin="[settings.kubernetes]" in user_data,
        # EKS bootstrap formats join an EKS cluster; kubeadm/kubelet join any (admission as configured)
        platform="eks" if bootstrap_format(user_data) in ("al2023", "bottlerocket", "al2") else "self-managed",
        problem=problem,
        extra={"launch_template_name": text(dig(props, "name"))},
        instance_types=(instance_type,) if instance_type else None,
    )
