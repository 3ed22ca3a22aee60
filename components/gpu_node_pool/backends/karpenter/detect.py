"""Recognise Karpenter GPU NodePools (``kubernetes:karpenter.sh/<v>:NodePool``), ours or hand-written."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...k8s.wellknown import NVIDIA_GPU_RESOURCE
from ...sdk.props import dig, items, mapping, plain, text
from .._shared.gpu_pool import GpuPool, read_taints
from .._shared.nodepool_detect import nodepool_instance_types, nodepool_node_labels, nodepool_zones, requires_nvidia_gpu
from . import BACKEND

#: Karpenter's well-known labels (karpenter.k8s.aws/...) that describe GPUs.
_KARPENTER_AWS = "karpenter.k8s.aws/"


def _selects_gpus(requirements: list[Any], limits: Mapping[str, Any]) -> bool:
    """Whether a NodePool is a GPU pool, decided from what its requirements can select.

    Not a GPU pool when ``limits`` caps ``nvidia.com/gpu`` at 0 (a common way to keep GPUs out).
    A GPU pool when its requirements explicitly ask for NVIDIA GPUs (:func:`~gpu_node_pool.backends._shared.nodepool_detect.requires_nvidia_gpu`),
    when every instance type they leave in the catalog has GPUs and some are NVIDIA's (``instance-category In [g, p]``,
    Auto Mode's ``eks.amazonaws.com/instance-family In [g5, g6, p5]``; the one requirement evaluator,
    :mod:`gpu_node_pool.catalog.requirements`), or when ``limits`` names ``nvidia.com/gpu`` above 0. A
    NodePool that merely *could* pick a GPU type among others (no instance requirements at all) is not
    called a GPU pool: every general-purpose NodePool would be.

    Raises:
        UnknownValueError: a requirement or limit is unknown at preview.
    """
    from ...catalog.requirements import RequirementError, evaluate, gpu_limit_is_zero

    plain_limits = plain(limits)
    if gpu_limit_is_zero(plain_limits):
        return False
    if requires_nvidia_gpu(requirements, _KARPENTER_AWS) or NVIDIA_GPU_RESOURCE in plain_limits:
        return True
    if not requirements:
        return False
    try:
        result = evaluate(plain(requirements), None)
    except RequirementError:
        return False  # malformed: the CRD refuses it; not ours to call a GPU pool
    # every type it can launch is a GPU type (AMD g4ad counts as accelerated) and some are NVIDIA's
    return bool(result.candidates) and all(t.is_nvidia or t.ec2_gpus > 0 for t in result.candidates) and any(
        t.is_nvidia for t in result.candidates
    )


def detect(resource_type: str, props: Mapping[str, Any], name: str, urn: str, context: Mapping[str, Any]) -> GpuPool | None:
    """A Karpenter NodePool is a GPU pool when :func:`_selects_gpus` says so.

    Only NodePools of the AWS provider (``nodeClassRef.group`` ``karpenter.k8s.aws``, or none given):
    a NodePool on another provider's node class (EKS Auto Mode) is that backend's to read.

    ``context["node_classes"]``: EC2NodeClass name -> its AMI ships NVIDIA's device plugin (Bottlerocket).
    """
    if not resource_type.endswith(":NodePool"):
        return None
    group = text(dig(props, "spec", "template", "spec", "nodeClassRef", "group"))
    if group is not None and group != "karpenter.k8s.aws":
        return None  # another provider's NodePool (EKS Auto Mode: eks.amazonaws.com), read by its backend
    node_classes = context.get("node_classes") or {}
    from . import read as karpenter

    requirements = list(items(dig(props, "spec", "template", "spec", "requirements")))
    limits = mapping(dig(props, "spec", "limits"))
    if not _selects_gpus(requirements, limits):
        return None
    taints, problem = read_taints(karpenter.read_nodepool_taints, props)
    labels = nodepool_node_labels(karpenter.read_nodepool_labels, props, requirements)
    class_name = text(dig(props, "spec", "template", "spec", "nodeClassRef", "name"))
    return GpuPool(
        backend=BACKEND.name,
        resource_type=resource_type,
        name=name,
        urn=urn,
        taints=taints,
        labels=labels,
        where="the Karpenter NodePool spec.template.spec.taints (GpuNodePool taints)",
        ships_own_device_plugin=bool(class_name and node_classes.get(class_name)),
        problem=problem,
        instance_types=nodepool_instance_types(requirements, mapping(dig(props, "spec", "limits"))),
        zones=nodepool_zones(requirements),
        extra={"startup_taints": read_taints(karpenter.read_nodepool_startup_taints, props)[0]},
    )


def context(resources: Iterable[Any]) -> dict[str, Any]:
    """``{"node_classes": {EC2NodeClass name: its AMI ships NVIDIA's device plugin (Bottlerocket)}}``."""
    return {"node_classes": _node_classes(resources)}


def _node_classes(resources: Iterable[Any]) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for res in resources:
        if not (res.resource_type.startswith("kubernetes:karpenter.k8s.aws/") and res.resource_type.endswith(":EC2NodeClass")):
            continue
        name = text(dig(res.props, "metadata", "name"))
        if not name:
            continue
        aliases = [text(dig(t, "alias")) or "" for t in items(dig(res.props, "spec", "amiSelectorTerms"))]
        family = text(dig(res.props, "spec", "amiFamily")) or ""
        out[name] = family == "Bottlerocket" or any(a.startswith("bottlerocket@") for a in aliases)
    return out
