"""Reading a ``karpenter.sh/v1`` NodePool resource back, shared by the backends that write NodePools.

The ``karpenter`` backend (``karpenter.k8s.aws/`` well-known keys) and the ``eks-auto`` backend
(``eks.amazonaws.com/`` keys) recognise GPU NodePools the same way, each with its own key prefix;
their taint lists are read and judged by the CRD's and Karpenter's rules (:func:`nodepool_taint_lists`), and shown in
both backends' plan entries by :func:`summarise_nodepool_taints`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ...catalog import instances
from ...k8s.taints import (
    K8S_TAINT_FORM,
    K8sTaintError,
    Taint,
    TaintEffect,
    TaintError,
    nodepool_permanent_startup_taints,
    nodepool_taint_repeat_problem,
)
from ...sdk.props import dig, items, sequence, text
from ...text.terminal import shown
from .nodepool_crd import NODEPOOL_CRD_SOURCE

#: Where a NodePool resource keeps its two taint lists, for messages.
TAINTS_AT = "spec.template.spec.taints"
STARTUP_TAINTS_AT = "spec.template.spec.startupTaints"


def requires_nvidia_gpu(requirements: Iterable[Any], prefix: str) -> bool:
    """Whether NodePool requirements explicitly ask for NVIDIA GPUs, in the well-known keys under ``prefix``.

    A requirement on an ``instance-gpu-*`` key asks for nothing when the requirements on that key reduce to ``NotIn``
    or ``DoesNotExist`` (``instance-gpu-count In [1]`` with ``NotIn [1]``: Karpenter's ``Requirements.Add``,
    :func:`~gpu_node_pool.catalog.requirements.reduce_by_key`): types without GPUs, which carry the key as
    ``DoesNotExist`` (aws/karpenter-provider-aws ``pkg/providers/instancetype/types.go`` ``computeRequirements``),
    match it (kubernetes-sigs/karpenter ``pkg/scheduling/requirements.go`` ``Requirements.Intersects``)."""
    from ...catalog.requirements import reduce_by_key

    read = [{"key": text(dig(req, "key")) or "", "operator": text(dig(req, "operator")) or "",
             "values": [str(v) for v in items(dig(req, "values"))]} for req in requirements]
    lets_in_no_gpu = {key for key, kept in reduce_by_key(read).items() if key.startswith(prefix + "instance-gpu-")
                      and kept is not None and kept.operator in ("NotIn", "DoesNotExist")}
    for req in read:
        key, op, values = req["key"], req["operator"], req["values"]
        if key in lets_in_no_gpu:
            continue
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


#: What that schema says of an item of ``taints`` and ``startupTaints``, and what follows from breaking it.
_CRD_TAINT_RULE = (
    "the API server refuses the NodePool, so pulumi up fails to create or update it: its CRD holds taints and "
    "startupTaints to arrays of objects with key and effect required, key and value matching its patterns, and effect "
    f"one of {', '.join(e.value for e in TaintEffect)} (the Kubernetes spelling; {NODEPOOL_CRD_SOURCE})"
)


@dataclass(frozen=True)
class NodePoolTaintLists:
    """A ``karpenter.sh/v1`` NodePool's two taint lists as read (:func:`nodepool_taint_lists`).

    Attributes:
        taints: ``spec.template.spec.taints`` in order; ``[]`` when it is in :attr:`unreadable`.
        startup_taints: ``spec.template.spec.startupTaints`` in order; ``[]`` when it is in :attr:`unreadable`.
        unreadable: the paths (:data:`TAINTS_AT`, :data:`STARTUP_TAINTS_AT`) of the lists the API server refuses
            (not an array, or an item it refuses): what the lists hold is not known.
        problem: why the API server or Karpenter refuses the NodePool, each item named by its path and index with
            its fix, then the rule's source; None when neither does.
        fix_in: the paths of the lists :attr:`problem` names (where to fix it), in that order; ``()`` without one.
    """

    taints: list[Taint]
    startup_taints: list[Taint]
    unreadable: tuple[str, ...] = ()
    problem: str | None = None
    fix_in: tuple[str, ...] = ()


def nodepool_taint_lists(props: Mapping[str, Any]) -> NodePoolTaintLists:
    """A NodePool's ``spec.template.spec.taints`` and ``startupTaints`` and why they are refused, for
    :attr:`~gpu_node_pool.backends._shared.gpu_pool.GpuPool.problem`: the one reading of the backends whose
    pools are ``karpenter.sh/v1`` NodePools.

    The problems, all of them, in this order:

    * what the CRD refuses (:data:`~gpu_node_pool.backends._shared.nodepool_crd.NODEPOOL_CRD_SOURCE`): a list that is not an array; an item that is not an object, has
      no ``key`` or no ``effect``, a key or value of the wrong syntax, or an effect outside ``NoSchedule``,
      ``PreferNoSchedule``, ``NoExecute`` (named with its index, every bad item of both lists; the list is then
      unreadable);
    * with both lists readable, a key and effect twice, within a list or across them
      (:func:`~gpu_node_pool.k8s.taints.nodepool_taint_repeat_problem`: Karpenter's ``duplicate taint Key/Effect
      pair``);
    * the GPU taint in a readable ``startupTaints``
      (:func:`~gpu_node_pool.k8s.taints.nodepool_permanent_startup_taints`).

    Raises:
        UnknownValueError: a list or one of its items is unknown at preview.
    """
    taints, taint_problems = _read_list(props, "taints", TAINTS_AT)
    startup, startup_problems = _read_list(props, "startupTaints", STARTUP_TAINTS_AT)
    unreadable = tuple(at for at, bad in ((TAINTS_AT, taint_problems), (STARTUP_TAINTS_AT, startup_problems)) if bad)
    named: list[str] = []  # every message, to find the lists they name
    parts: list[str] = []
    if unreadable:
        named += taint_problems + startup_problems
        parts.append(f"{'; '.join(taint_problems + startup_problems)}. Source: {_CRD_TAINT_RULE}")
    if not unreadable:
        repeated = nodepool_taint_repeat_problem(taints, startup, TAINTS_AT, STARTUP_TAINTS_AT)
        named += [repeated] if repeated else []
        parts += [repeated] if repeated else []
    if STARTUP_TAINTS_AT not in unreadable:
        permanent = nodepool_permanent_startup_taints(startup, TAINTS_AT, STARTUP_TAINTS_AT)
        named += permanent
        parts += permanent
    if not parts:
        return NodePoolTaintLists(taints, startup)
    fix_in = tuple(at for at in (TAINTS_AT, STARTUP_TAINTS_AT) if any(at in message for message in named))
    return NodePoolTaintLists(taints, startup, unreadable, "; ".join(parts), fix_in)


def nodepool_extra(lists: NodePoolTaintLists, resource: str) -> dict[str, Any]:
    """The ``extra`` (:class:`~gpu_node_pool.backends._shared.gpu_pool.GpuPool`) of a NodePool pool from its taint lists.

    Args:
        lists: :func:`nodepool_taint_lists` of the NodePool.
        resource: the NodePool in a message, e.g. ``the Karpenter NodePool``.

    Returns:
        ``startup_taints`` (a copy of :attr:`NodePoolTaintLists.startup_taints`; policy ``karpenter-startup-taints``
        reads it); ``taints_unread`` / ``startup_taints_unread`` True when that list is unreadable (``gpupool check``
        says so instead of listing none); ``problem_fix_in`` with a problem: where to fix it, ``resource`` and the
        lists it names (policy ``gpu-pool-declares-taint``).
    """
    extra: dict[str, Any] = {"startup_taints": list(lists.startup_taints)}
    if TAINTS_AT in lists.unreadable:
        extra["taints_unread"] = True
    if STARTUP_TAINTS_AT in lists.unreadable:
        extra["startup_taints_unread"] = True
    if lists.fix_in:
        extra["problem_fix_in"] = f"{resource} {' and '.join(lists.fix_in)}"
    return extra


def summarise_nodepool_taints(entry: dict[str, Any], inputs: Mapping[str, Any]) -> NodePoolTaintLists:
    """Fill a plan entry with the taint lists of a recorded ``karpenter.sh/v1`` NodePool (its CustomResource
    ``inputs``), as :func:`nodepool_taint_lists` reads them: the part of the plan entry both NodePool backends
    (``karpenter``, ``eks-auto``) share.

    Sets ``taints`` (kubelet form, ``key=value:Effect``), ``providerTaints`` (the core/v1 Taint objects),
    ``providerField`` (``NodePool spec.template.spec.taints``) and ``startupTaints`` (kubelet form); the audit reads
    ``taints`` and ``startupTaints`` back as the pool's declared taints.

    Returns:
        The lists read, for what a backend adds of its own.

    Raises:
        TaintError: a list the API server refuses (:attr:`NodePoolTaintLists.problem`: each bad item by its path and
            index, with the CRD's rule), which the component never renders.
    """
    lists = nodepool_taint_lists(inputs)
    if lists.unreadable:
        raise TaintError(lists.problem)
    entry["taints"] = [str(t) for t in lists.taints]
    entry["providerTaints"] = [t.to_k8s() for t in lists.taints]
    entry["providerField"] = f"NodePool {TAINTS_AT}"
    entry["startupTaints"] = [str(t) for t in lists.startup_taints]
    return lists


def startup_taints_line(entry: Mapping[str, Any]) -> list[str]:
    """The text plan's line of a NodePool pool's ``startupTaints`` (:func:`summarise_nodepool_taints`), or ``[]``
    when the entry has none recorded."""
    if "startupTaints" not in entry:
        return []
    shown_taints = ", ".join(entry["startupTaints"])
    note = "  (removed by an agent at boot; never tolerated by the plugin)" if shown_taints else ""
    return [f"  startup taints  {shown_taints or '(none)'}{note}"]


def _read_list(props: Mapping[str, Any], field: str, at: str) -> tuple[list[Taint], list[str]]:
    """``spec.template.spec.<field>`` as taints and ``[]``, or ``[]`` and one message per thing the CRD refuses
    (each starting with ``at`` and the item's index): each item read by :meth:`Taint.from_k8s`, the one reader."""
    raw = dig(props, "spec", "template", "spec", field)
    if raw is None:
        return [], []
    if sequence(raw) is not raw:
        return [], [f"{at} {shown(raw)} is not an array: write a list of taints, each {K8S_TAINT_FORM}"]
    taints: list[Taint] = []
    problems: list[str] = []
    for i, item in enumerate(items(raw)):
        try:
            taints.append(Taint.from_k8s(item, "a NodePool"))
        except K8sTaintError as err:
            problems += [f"{at}[{i}]{problem}" for problem in err.problems]
    return ([] if problems else taints), problems


def nodepool_node_labels(
    read_labels: Callable[[Mapping[str, Any]], Mapping[str, Any]], props: Mapping[str, Any], requirements: list[Any]
) -> dict[str, str]:
    """The labels a NodePool's nodes carry: its template labels (``read_labels``; none if unreadable), then each key
    whose requirements Karpenter reduces to ``In`` with exactly one value (``Requirements.Add`` intersects the
    requirements on one key, kubernetes-sigs/karpenter ``pkg/scheduling/requirements.go``:
    :func:`~gpu_node_pool.catalog.requirements.reduce_by_key`; ``In [g6]`` with ``NotIn [g6]`` leaves no value, so
    no label), under the key Karpenter reads (a deprecated key as its stable one), and ``karpenter.sh/nodepool``.

    Raises:
        UnknownValueError: a requirement is unknown at preview.
    """
    from ...catalog.requirements import reduce_by_key
    from ...sdk.props import plain

    try:
        labels = {k: v for k, v in read_labels(props).items() if isinstance(v, str)}
    except (TypeError, AttributeError, ValueError):
        labels = {}
    reduced = reduce_by_key(plain(requirements))
    for key, req in reduced.items():  # a single-valued In becomes a node label
        if req is not None and req.single_value is not None:
            labels.setdefault(key, req.single_value)
    pool_name = text(dig(props, "metadata", "name"))
    if pool_name:
        labels.setdefault("karpenter.sh/nodepool", pool_name)
    return labels


def nodepool_gpu_node_problem(requirements: list[Any], limits: Any) -> str | None:
    """Why a GPU NodePool launches no node a pod requesting ``nvidia.com/gpu`` can use, or None when it can or the
    catalog cannot say (malformed, or not plain data): the sentence of
    :meth:`~gpu_node_pool.catalog.requirements.Evaluation.gpu_problem` (``limits`` ``nvidia.com/gpu`` below one node
    of every GPU type: "raise limits nvidia.com/gpu"; requirements that select only types without GPUs or leave no
    instance type; only fractional-GPU types), after ``launches no GPU node:`` and, when ``limits`` ``nvidia.com/gpu``
    is 0 besides, :data:`~gpu_node_pool.catalog.requirements.ZERO_GPU_LIMIT` (the ``GPU_LIMIT`` sentence says both
    itself), then its explanation in parentheses.

    Raises:
        UnknownValueError: a requirement or limit is unknown at preview.
    """
    from ...catalog.requirements import ZERO_GPU_LIMIT, GpuProblemKind, RequirementError, kept_evaluation
    from ...sdk.props import plain

    try:
        problem = kept_evaluation(plain(requirements), plain(limits) or None).gpu_problem()
    except (RequirementError, TypeError, ValueError):
        return None
    if problem is None:
        return None
    head = problem.sentence
    if problem.kind is not GpuProblemKind.GPU_LIMIT:
        besides = f"{ZERO_GPU_LIMIT}, and besides " if problem.gpu_limit_zero else ""
        head = f"launches no GPU node: {besides}{head}"
    return head + (f" ({'; '.join(problem.explanation)})" if problem.explanation else "")


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

