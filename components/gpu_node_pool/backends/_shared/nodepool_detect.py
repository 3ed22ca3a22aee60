"""Reading a ``karpenter.sh/v1`` NodePool resource back, shared by the backends that write NodePools.

The ``karpenter`` backend (``karpenter.k8s.aws/`` well-known keys) and the ``eks-auto`` backend
(``eks.amazonaws.com/`` keys) recognise GPU NodePools the same way, each with its own key prefix;
their taint lists are judged by Karpenter's one rule (:func:`nodepool_taint_lists`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ...catalog import instances
from ...k8s.taints import Taint, nodepool_taint_repeat_problem
from ...sdk.props import dig, items, text
from .gpu_pool import read_taints

#: Where a NodePool resource keeps its two taint lists, for messages.
TAINTS_AT = "spec.template.spec.taints"
STARTUP_TAINTS_AT = "spec.template.spec.startupTaints"


def requires_nvidia_gpu(requirements: Iterable[Any], prefix: str) -> bool:
    """Whether NodePool requirements explicitly ask for NVIDIA GPUs, in the well-known keys under ``prefix``."""
    for req in requirements:
        key = text(dig(req, "key")) or ""
        op = text(dig(req, "operator")) or ""
        values = [str(v) for v in items(dig(req, "values"))]
        if key == prefix + "instance-gpu-manufacturer" and op == "In" and values == ["nvidia"]:
            return True
        if key == prefix + "instance-gpu-count":
            if op == "Gt" and values and values[0].isdigit():
                return True
            if op == "In" and values and all(v.isdigit() and int(v) > 0 for v in values):
                return True
        if key == prefix + "instance-gpu-name" and op in ("In", "Exists"):
            return True
        if op == "In" and values:
            if key == prefix + "instance-family" and all(v in instances.NVIDIA_FAMILIES for v in values):
                return True
            if key == "node.kubernetes.io/instance-type" and all(instances.is_nvidia_instance_type(v) for v in values):
                return True
    return False


def nodepool_taint_lists(
    read_nodepool_taints: Callable[[Mapping[str, Any]], list[Taint]],
    read_startup_taints: Callable[[Mapping[str, Any]], list[Taint]],
    props: Mapping[str, Any],
) -> tuple[list[Taint], list[Taint], str | None]:
    """A NodePool's ``spec.template.spec.taints`` and ``startupTaints`` (each read by the backend's reader) and
    why Karpenter refuses them, for :attr:`~gpu_node_pool.backends._shared.gpu_pool.GpuPool.problem`.

    Returns:
        ``(taints, startup_taints, problem)``: a list whose item is malformed is ``[]``, and ``problem`` says
        why (``TaintError`` text; for ``startupTaints`` prefixed with its path); with both lists readable,
        ``problem`` is :func:`~gpu_node_pool.k8s.taints.nodepool_taint_repeat_problem` (a key and effect
        twice, within a list or across them: Karpenter's ``duplicate taint Key/Effect pair``), else None.
    """
    taints, problem = read_taints(read_nodepool_taints, props)
    startup, startup_problem = read_taints(read_startup_taints, props)
    if problem is None and startup_problem is not None:
        problem = f"{STARTUP_TAINTS_AT}: {startup_problem}"
    if problem is None:
        problem = nodepool_taint_repeat_problem(taints, startup, TAINTS_AT, STARTUP_TAINTS_AT)
    return taints, startup, problem


def nodepool_node_labels(
    read_labels: Callable[[Mapping[str, Any]], Mapping[str, Any]], props: Mapping[str, Any], requirements: list[Any]
) -> dict[str, str]:
    """The labels a NodePool's nodes carry: its template labels (``read_labels``; none if unreadable),
    its single-valued ``In`` requirements, and ``karpenter.sh/nodepool``."""
    try:
        labels = {k: v for k, v in read_labels(props).items() if isinstance(v, str)}
    except (TypeError, AttributeError, ValueError):
        labels = {}
    for req in requirements:  # single-valued In requirements become node labels
        values = list(items(dig(req, "values")))
        if dig(req, "operator") == "In" and len(values) == 1 and isinstance(dig(req, "key"), str):
            labels.setdefault(dig(req, "key"), str(values[0]))
    pool_name = text(dig(props, "metadata", "name"))
    if pool_name:
        labels.setdefault("karpenter.sh/nodepool", pool_name)
    return labels


def nodepool_instance_types(requirements: list[Any], limits: Any) -> tuple[str, ...] | None:
    """The catalog types a NodePool's requirements and limits leave (the one evaluator,
    :func:`gpu_node_pool.catalog.requirements.evaluate`, its answer kept per content:
    :func:`~gpu_node_pool.catalog.requirements.candidates`), or None when they cannot be evaluated
    (malformed, or a requirement outside the catalog's model narrows them too)."""
    from ...catalog.requirements import RequirementError, candidates
    from ...sdk.props import plain

    try:
        found = candidates(plain(requirements), plain(limits) or None)
    except (RequirementError, TypeError, ValueError):
        return None
    return tuple(t.name for t in found) or None


def nodepool_zones(requirements: Iterable[Any]) -> tuple[str, ...] | None:
    """The zones of a ``topology.kubernetes.io/zone In [...]`` requirement, else None (any zone)."""
    for req in requirements:
        if text(dig(req, "key")) == "topology.kubernetes.io/zone" and text(dig(req, "operator")) == "In":
            zones = tuple(str(v) for v in items(dig(req, "values")))
            if zones:
                return zones
    return None

