"""Can a Karpenter pool ever get a GPU node? Its final NodePool requirements and limits against the catalog.

The requirements are :attr:`KarpenterPool.requirement_list` (the component's from instanceFamilies,
instanceTypes, gpuCounts, gpuNames, capacityTypes, architecture, zones, then the user's), the limits
``spec.limits`` as the renderer emits them (``pool.limits``); :func:`gpu_node_pool.catalog.requirements.evaluate`
judges them as Karpenter does (kubernetes-sigs/karpenter ``pkg/scheduling/requirements.go`` and
``pkg/controllers/provisioning/scheduling/scheduler.go``; aws/karpenter-provider-aws#8368). Refusals:

* nothing left (an empty intersection, or limits below one node: "all available instance types exceed
  limits for nodepool", aws/karpenter-provider-aws#8068/#5975) - listing each requirement and how many
  types it left;
* only types with 0 ``nvidia.com/gpu`` capacity left (g6f/gr6f: Karpenter's types.go gives them
  ``instance-gpu-manufacturer=nvidia`` with ``instance-gpu-count=0``, aws/karpenter-provider-aws#8368),
  which no GPU pod can use;
* ``reserved`` in capacityTypes without ``nodeClass.capacityReservationSelectorTerms`` (Karpenter docs
  https://karpenter.sh/docs/tasks/odcrs/: reservations are used only when the EC2NodeClass selects them).

Warnings: known risks of the candidate types (p5.4xlarge, g6f) and what the catalog could not judge.
Pure (no Pulumi).
"""

from __future__ import annotations

from typing import Any

from ...catalog.requirements import Evaluation, RequirementError, kept_evaluation
from .._shared.capacity import unknown_type_findings

__all__ = ["candidates_summary", "evaluation", "pool_problems", "pool_warnings"]


def evaluation(requirements: list[dict[str, Any]], limits: dict[str, Any]) -> Evaluation:
    """:func:`~gpu_node_pool.catalog.requirements.evaluate` of a NodePool's requirements and limits over the
    catalog, kept per content and loaded table (:func:`~gpu_node_pool.catalog.requirements.kept_evaluation`).
    Raises :class:`RequirementError` on malformed input."""
    return kept_evaluation(requirements, dict(limits))


def _unknown_types_allowed(pool: Any) -> bool:
    return bool(pool.allow_unknown_instance_types and unknown_type_findings(pool.instance_types or [], True)[1])


def pool_problems(pool: Any) -> list[str]:
    """Refusals for one Karpenter pool (sentences; the model validator joins them)."""
    problems, _ = unknown_type_findings(pool.instance_types or [], pool.allow_unknown_instance_types)
    if problems:
        return problems
    if "reserved" in pool.capacity_types:
        terms = pool.node_class.capacity_reservation_selector_terms if pool.node_class is not None else None
        if pool.node_class is not None and not terms:
            problems.append(
                "capacityTypes has reserved but nodeClass.capacityReservationSelectorTerms is empty: Karpenter launches "
                "reserved capacity only from reservations the EC2NodeClass selects, never by open matching "
                "(https://karpenter.sh/docs/tasks/odcrs/); add e.g. capacityReservationSelectorTerms: [{id: cr-...}]"
            )
    if _unknown_types_allowed(pool):
        return problems  # the catalog cannot judge types it does not know: a warning says so
    try:
        result = evaluation(pool.requirement_list, pool.limits)
    except RequirementError as err:
        return [*problems, f"requirements: {err}"]
    lines = result.gpu_problems()
    if lines:
        head, *why = lines
        problems.append(
            f"pool {pool.name!r}: {head} NodePool requirements (the component's first, then yours) and limits, as Karpenter evaluates "
            f"them: {'; '.join(why)} (requirements are ANDed and types above the limits are dropped: kubernetes-sigs/karpenter "
            "pkg/scheduling/requirements.go, pkg/controllers/provisioning/scheduling/scheduler.go); widen the requirements or "
            "raise the limits"
        )
    return problems


def pool_warnings(pool: Any) -> list[tuple[str, str]]:
    """``[(sub-path, message)]``: unknown types under allowUnknownInstanceTypes, the candidates' known risks,
    requirements/limits the catalog could not judge (at the user's own ``requirements[j]``), and a reserved pool on an
    existing EC2NodeClass. (NotIn on zones outside the stack's region is every NodePool pool's warning:
    ``NodePoolBase.zone_warnings``.)"""
    out: list[tuple[str, str]] = []
    _, unknown = unknown_type_findings(pool.instance_types or [], pool.allow_unknown_instance_types)
    out += [("instanceTypes", w) for w in unknown]
    if unknown:
        out.append(("", "Karpenter feasibility not judged: the requirements name instance types the catalog lacks"))
        return out
    if "reserved" in pool.capacity_types and pool.node_class is None:
        out.append(("capacityTypes", (
            f"reserved: the existing EC2NodeClass {pool.node_class_name!r} must select the reservations in "
            "capacityReservationSelectorTerms, else Karpenter launches no reserved capacity (https://karpenter.sh/docs/tasks/odcrs/); the "
            "plan cannot read it")))
    try:
        result = evaluation(pool.requirement_list, pool.limits)
    except RequirementError:
        return out
    out += [("", w) for w in result.warnings]
    # the user's requirements come last in requirement_list: each is told at its own index and line
    first_own = len(pool.requirement_list) - len(pool.requirements)
    own = {f"requirements[{first_own + j}] ": f"requirements[{j}]" for j in range(len(pool.requirements))}
    for note in result.not_evaluated:
        at = next((p for p in own if note.startswith(p)), None)
        out.append((own[at], f"not judged by the catalog: {note.removeprefix(at)}") if at else
                   ("", f"not judged by the catalog: {note}"))
    return out


def candidates_summary(requirements: Any, limits: Any) -> str:
    """The plan's line for a NodePool read back from its inputs: ``g6.xlarge, ... (+12 more, 17 types)``
    (:meth:`Evaluation.summary`), or why the catalog cannot say (unknown values at preview, a malformed
    requirement)."""
    if not isinstance(requirements, list) or not isinstance(limits, dict | type(None)):
        return "not judged: requirements or limits unknown before apply"
    try:
        return evaluation(requirements, limits or {}).summary()
    except (RequirementError, TypeError, ValueError) as err:
        return f"not judged: {err}"
