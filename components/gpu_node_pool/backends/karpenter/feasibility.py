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

Requirements on one key that Karpenter reduces to ``DoesNotExist`` (``In [a]`` with ``NotIn [a]``, ``Exists`` with
``DoesNotExist``, ``Gt``/``Lt`` ranges that do not overlap: ``Requirement.Intersection``, kubernetes-sigs/karpenter
``pkg/scheduling/requirement.go``, without an error) are told at the user's last requirement on the key
(:func:`reduced_key_findings`): refused on a key every instance type or offering carries (zone, region, capacity
type, OS, architecture: the NodePool launches nothing), a warning on any other key the catalog does not model (the
nodes never carry it); on a key the catalog models the evaluation above already finds no type.
Pure (no Pulumi).
"""

from __future__ import annotations

from typing import Any

from ...catalog.requirements import (
    AUTO_MODE_PREFIX,
    CARRIED_BY_EVERY_TYPE,
    INSTANCE_LABELS,
    INTERSECTION_SOURCE,
    KARPENTER_PREFIX,
    TYPE_KEY,
    Evaluation,
    RequirementError,
    kept_evaluation,
    reduce_by_key,
)
from ...k8s.selection import expression_text
from .._shared.capacity import unknown_type_findings

__all__ = ["candidates_summary", "evaluation", "pool_problems", "pool_warnings", "reduced_key_findings"]

_INTERSECTION = f"Requirement.Intersection, {INTERSECTION_SOURCE}"


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
    return out + reduced_key_findings(pool)[1]


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


def _catalog_models(key: str) -> bool:
    return key == TYPE_KEY or any(key.startswith(p) and key[len(p):] in INSTANCE_LABELS
                                  for p in (KARPENTER_PREFIX, AUTO_MODE_PREFIX))


def reduced_key_findings(pool: Any) -> tuple[list[tuple[tuple[str | int, ...], str]], list[tuple[str, str]]]:
    """``(errors, warnings)`` for the keys whose requirements (the component's and the user's,
    ``pool.requirement_list``) Karpenter reduces to ``DoesNotExist`` while one of them asks for the key
    (:meth:`~gpu_node_pool.catalog.requirements.KeyRequirement.reduced_to_does_not_exist`), each at the user's last
    requirement on the key: errors ``(("requirements", j), sentence)`` for a key of
    :data:`~gpu_node_pool.catalog.requirements.CARRIED_BY_EVERY_TYPE`, warnings ``("requirements[j]", sentence)``
    for a key the catalog does not model (a key it models: :func:`pool_problems` finds no type)."""
    reqs = pool.requirement_list
    first_own = len(reqs) - len(pool.requirements)
    errors: list[tuple[tuple[str | int, ...], str]] = []
    warnings: list[tuple[str, str]] = []
    for key, req in reduce_by_key(reqs).items():
        own = [i - first_own for i in (req.indices if req is not None else ()) if i >= first_own]
        if req is None or not req.reduced_to_does_not_exist or not own or _catalog_models(key):
            continue
        written = ", ".join(
            f"{'requirements[' + str(i - first_own) + ']' if i >= first_own else 'the component'} "
            f"{expression_text(reqs[i]['key'], reqs[i]['operator'], reqs[i].get('values'))}" for i in req.indices)
        fix = (f"write the requirements on {key} so that some value meets them all (e.g. drop requirements[{own[-1]}]), "
               "or remove them")
        if key in CARRIED_BY_EVERY_TYPE:
            errors.append((("requirements", own[-1]), (
                f"{written}: Karpenter reduces these requirements to DoesNotExist without an error ({_INTERSECTION}), "
                f"and every instance type or offering carries {key} (aws/karpenter-"
                "provider-aws pkg/providers/instancetype/types.go computeRequirements), so none matches "
                f"(Requirements.Intersects) and the NodePool launches no node; {fix}")))
        else:
            warnings.append((f"requirements[{own[-1]}]", (
                f"Karpenter reduces these requirements to DoesNotExist: the pool's nodes never carry {key} ({written}; "
                f"{_INTERSECTION}: no error, and a key no instance type carries does not stop a launch); {fix}")))
    return errors, warnings
