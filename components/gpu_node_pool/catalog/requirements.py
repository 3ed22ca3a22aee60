"""Which instance types a Karpenter NodePool can launch: its requirements and limits, evaluated as Karpenter does.

Rules (sources: the NodePool CRD of aws/karpenter-provider-aws@v1.14.1
``pkg/apis/crds/karpenter.sh_nodepools.yaml``; Karpenter's docs concepts/nodepools and
concepts/scheduling; aws/karpenter-provider-aws#8368 for g6f/gr6f; code mirrored
from kubernetes-sigs/karpenter@22664681 ``pkg/scheduling/requirements.go`` and
``pkg/controllers/provisioning/scheduling/scheduler.go``, aws/karpenter-provider-aws@1d927085
``pkg/providers/instancetype/types.go``), applied in this order:

1. Requirements are ANDed: every requirement filters the candidate types (``Requirements.Add`` intersects).
2. A type matches ``In``/``Exists``/``Gt``/``Lt``/``Gte``/``Lte`` only if it carries the label;
   ``NotIn``/``DoesNotExist`` also match a type without it (``Requirements.Intersects``), judged on the key's
   requirements as Karpenter reduces them (:func:`reduce_by_key`): ``In [1]`` with ``NotIn [1]`` is ``DoesNotExist``,
   which every type without the key matches. Types without GPUs carry no ``instance-gpu-*`` labels (``DoesNotExist``
   in ``computeRequirements``), so GPU keys reduced so select only types without GPUs
   (:attr:`Evaluation.reduced_absent`); g6f/gr6f carry them with count ``0``.
3. ``Gt``/``Lt``/``Gte``/``Lte`` compare integers; they need exactly one non-negative integer
   value and ``In`` at least one value (CRD CEL, kubernetes-sigs/karpenter ``pkg/apis/v1/nodepool.go``).
4. ``minValues`` on a requirement: the surviving types must offer that many distinct values of
   the key (core ``minValues``; instance-type keys only).
5. Keys (:mod:`~gpu_node_pool.catalog.requirement_keys`, with their sources): the ``instance-*`` keys of
   Karpenter (``karpenter.k8s.aws/``) and EKS Auto Mode (``eks.amazonaws.com/``), ``kubernetes.io/arch`` and
   ``node.kubernetes.io/instance-type`` are evaluated; ``karpenter.sh/capacity-type``,
   ``topology.kubernetes.io/zone``/``region``, ``kubernetes.io/os`` select offerings, not types: passed through.
   Any other key is reported as not evaluated (never guessed). Deprecated keys are first rewritten to their stable
   key as Karpenter's ``NewRequirement`` does with ``NormalizedLabels`` (:data:`NORMALIZED_LABELS`). Karpenter
   reduces requirements on one key to one (``Requirements.Add``, :func:`reduce_by_key`), e.g. ``In [a]`` with
   ``NotIn [a]`` to ``DoesNotExist``, no error; filtering type by type agrees where every type has the key.
6. Limits: a type whose single-node capacity for a limited resource (``cpu`` = vCPU,
   ``memory`` = Karpenter's memory capacity, ``nvidia.com/gpu``; a resource the type lacks
   counts 0) exceeds the limit is dropped; none left = "all available instance types exceed
   limits for nodepool" (``filterByRemainingResources``). ``nodes: 0`` = "node limits have been exhausted".

A type whose value for a requirement's label is unknown to the catalog is kept and listed in
:attr:`Evaluation.unjudged` (judged where possible, the rest named).
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..k8s.integers import INT64_MAX
from ..k8s.patterns import full_match
from ..k8s.quantity import parse_quantity
from ..k8s.selection import expression_text
from ..text.listing import listed
from . import _types, all_types
from .gpu_problem import GpuProblem, GpuProblemKind
from .model import InstanceType, LabelValue
from .plain_content import content, thaw
from .requirement_keys import (
    ARCH_KEY,
    AUTO_MODE_PREFIX,
    CARRIED_BY_EVERY_TYPE,
    GPU_SUFFIXES,
    INSTANCE_LABELS,
    KARPENTER_PREFIX,
    NORMALIZED_LABELS,
    PASS_THROUGH_KEYS,
    TYPE_KEY,
    key_suffix,
)

__all__ = [
    "ARCH_KEY",
    "AUTO_MODE_PREFIX",
    "CARRIED_BY_EVERY_TYPE",
    "FILTER_BY_REMAINING_RESOURCES",
    "INSTANCE_LABELS",
    "INTERSECTION_SOURCE",
    "KARPENTER_PREFIX",
    "NORMALIZED_LABELS",
    "OPERATORS",
    "PASS_THROUGH_KEYS",
    "REQUIREMENTS_SOURCE",
    "TYPE_KEY",
    "ZERO_GPU_LIMIT",
    "Evaluation",
    "GpuProblem",
    "GpuProblemKind",
    "KeyRequirement",
    "RequirementError",
    "Step",
    "can_select_gpu_types",
    "candidates",
    "evaluate",
    "gpu_limit_is_zero",
    "is_gpu_pool",
    "kept_evaluation",
    "reduce_by_key",
]

#: The public source of Karpenter's ``Requirement.Intersection`` (one key's requirements reduced to one), for messages.
INTERSECTION_SOURCE = "kubernetes-sigs/karpenter pkg/scheduling/requirement.go@22664681"
#: The public source of ``Requirements.Add`` and ``Requirements.Intersects``, at the same commit, for messages.
REQUIREMENTS_SOURCE = INTERSECTION_SOURCE.replace("requirement.go", "requirements.go")
#: Where Karpenter drops a type whose node exceeds the NodePool's limits, for messages.
FILTER_BY_REMAINING_RESOURCES = (
    "filterByRemainingResources, kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/scheduler.go")
#: Why a NodePool whose ``limits`` ``nvidia.com/gpu`` is 0 launches no node with GPUs, whatever its requirements.
ZERO_GPU_LIMIT = (f"limits nvidia.com/gpu is 0, so no node with GPUs fits ({FILTER_BY_REMAINING_RESOURCES}; raise "
                  "limits nvidia.com/gpu)")
_ASCII_INTEGER = re.compile(r"^[0-9]+$")
OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte")
_COMPARE = {"Gt": Fraction.__gt__, "Lt": Fraction.__lt__, "Gte": Fraction.__ge__, "Lte": Fraction.__le__}
#: Limited resources the catalog can judge, with the type's single-node capacity (in base units).
_CAPACITY = {"cpu": lambda t: Fraction(t.vcpu), "memory": lambda t: Fraction(t.memory_capacity_mib * 2**20),
             "nvidia.com/gpu": lambda t: Fraction(t.nvidia_gpus)}
SUMMARY_SIZE = 5
#: What a type without the key matches (``Requirements.Intersects``).
_ABSENT_OK = ("NotIn", "DoesNotExist")


class RequirementError(ValueError):
    """A malformed requirement or limit (bad operator, non-integer Gt value, unparseable quantity)."""


@dataclass(frozen=True)
class Step:
    """What one requirement did.

    Attributes:
        index: position in the requirements list.
        requirement: the requirement as given.
        evaluated: False for pass-through and unknown keys.
        alone: types this requirement alone allows (of the whole catalog); None if not evaluated.
        left: types left after this and all earlier requirements; None if not evaluated.
        reason: why it was not evaluated, or "" .
    """

    index: int
    requirement: Mapping[str, Any]
    evaluated: bool
    alone: int | None
    left: int | None
    reason: str = ""

    def describe(self) -> str:
        """``requirements[2] karpenter.k8s.aws/instance-gpu-manufacturer In [nvidia]: allows 69 types alone, 0 left``."""
        r = self.requirement
        values = r.get("values")
        key = r.get("key")
        stable = NORMALIZED_LABELS.get(key) if isinstance(key, str) else None
        text = f"requirements[{self.index}] {expression_text(key, r.get('operator'), values)}"
        if stable:
            text += f" (Karpenter reads it as {stable})"
        if not self.evaluated:
            return f"{text}: not evaluated ({self.reason})"
        return f"{text}: allows {self.alone} type(s) alone, {self.left} left after it"


@dataclass(frozen=True)
class Evaluation:
    """The outcome of :func:`evaluate`.

    Attributes:
        candidates: the types Karpenter could launch for this NodePool (requirements and limits).
        steps: one :class:`Step` per requirement, in order.
        after_requirements: how many types the requirements left (before limits).
        over_limits: names of types dropped because one node exceeds ``limits`` (with the resource).
        limit_message: Karpenter's message when limits leave nothing, else "".
        not_evaluated: sentences naming requirements/limits the catalog cannot judge.
        unjudged: type name -> requirement keys whose value for that type is unknown (kept).
        min_values: sentences for ``minValues`` not met (Karpenter launches nothing then).
        gpu_limit: ``limits`` ``nvidia.com/gpu`` as written when it drops a type with GPUs, else "".
        gpu_limit_zero: ``limits`` ``nvidia.com/gpu`` is 0 (as :func:`gpu_limit_is_zero`).
        reduced_absent: ``(key, sentence)`` per key whose requirements ask for it yet reduce to ``NotIn`` or
            ``DoesNotExist``, so that types without the key match (rule 2).
    """

    candidates: tuple[InstanceType, ...]
    steps: tuple[Step, ...]
    after_requirements: int
    over_limits: tuple[str, ...] = ()
    limit_message: str = ""
    not_evaluated: tuple[str, ...] = ()
    unjudged: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    min_values: tuple[str, ...] = ()
    gpu_limit: str = ""
    reduced_absent: tuple[tuple[str, str], ...] = ()
    gpu_limit_zero: bool = False

    @property
    def empty(self) -> bool:
        """Karpenter can launch no type for this NodePool."""
        return not self.candidates or bool(self.min_values)

    @property
    def gpu_candidates(self) -> tuple[InstanceType, ...]:
        """Candidates with ``nvidia.com/gpu`` capacity > 0: the ones a pod requesting GPUs can use."""
        return tuple(t for t in self.candidates if t.nvidia_gpus > 0)

    @property
    def warnings(self) -> tuple[str, ...]:
        """Known risks of the candidate types (p5.4xlarge, g6f/gr6f), each once."""
        return tuple(dict.fromkeys(w for t in self.candidates for w in t.warnings))

    def summary(self, size: int = SUMMARY_SIZE) -> str:
        """``g6.xlarge, g6.2xlarge, ... (+12 more, 17 types)``, or ``no instance type``."""
        names = [t.name for t in self.candidates]
        if not names:
            return "no instance type"
        head = ", ".join(names[:size])
        more = f", ... (+{len(names) - size} more, {len(names)} types)" if len(names) > size else f" ({len(names)} types)"
        return head + more

    def gpu_problem(self) -> GpuProblem | None:
        """For a pool meant for GPU pods: why no such pod can get a node, or None when one can. In this order:
        the requirements on GPU keys select only types without GPUs (:attr:`GpuProblemKind.ONLY_TYPES_WITHOUT_GPUS`);
        ``limits`` ``nvidia.com/gpu`` drops every type with GPUs the requirements leave (``GPU_LIMIT``,
        :data:`FILTER_BY_REMAINING_RESOURCES`); Karpenter can launch nothing (``NO_TYPE``); every candidate has 0
        ``nvidia.com/gpu`` capacity (``FRACTIONAL_ONLY``: g6f/gr6f, aws/karpenter-provider-aws#8368), which Karpenter
        never launches for pods requesting GPUs."""
        types = self.summary()
        found = functools.partial(GpuProblem, explanation=tuple(self.explanation()), types=types,
                                  gpu_limit=self.gpu_limit, gpu_limit_zero=self.gpu_limit_zero)
        gpu_keys = [why for key, why in self.reduced_absent if key_suffix(key) in GPU_SUFFIXES]
        if gpu_keys and self.candidates and not any(t.ec2_gpus or t.is_nvidia for t in self.candidates):
            return found(GpuProblemKind.ONLY_TYPES_WITHOUT_GPUS, (
                f"its requirements select only types without GPUs ({types}): {'; '.join(gpu_keys)}; "
                "require the GPUs you want with In (e.g. instance-gpu-manufacturer In [nvidia])"))
        if self.gpu_limit and not self.gpu_candidates and not self.min_values:
            left = f"; the types left ({types}) have 0 nvidia.com/gpu capacity" if self.candidates else ""
            return found(GpuProblemKind.GPU_LIMIT, (
                f"the NodePool launches no GPU node while limits nvidia.com/gpu is {self.gpu_limit}: that is below one "
                "node of every GPU type the requirements leave, and Karpenter drops a type whose node exceeds the "
                f"limits (\"all available instance types exceed limits for nodepool\": {FILTER_BY_REMAINING_RESOURCES})"
                f"{left}; raise limits nvidia.com/gpu to the GPUs the pool may run, at least those of one node"))
        if self.empty:
            return found(GpuProblemKind.NO_TYPE, "Karpenter can launch no instance type for this NodePool")
        if not self.gpu_candidates:
            return found(GpuProblemKind.FRACTIONAL_ONLY, (
                f"every candidate type ({types}) has 0 nvidia.com/gpu capacity in Karpenter (EC2 reports 0 "
                "GPUs for fractional GPUs, https://github.com/aws/karpenter-provider-aws/issues/8368), so pods "
                "requesting nvidia.com/gpu stay Pending; use whole-GPU types (e.g. g6, g6e) or add a NodeOverlay "
                "for nvidia.com/gpu"))
        return None

    def gpu_problems(self) -> list[str]:
        """:meth:`gpu_problem` as lines: its sentence (ending in ``:`` for ``NO_TYPE``, which the explanation
        follows), then :meth:`explanation`; ``[]`` when a GPU pod can get a node."""
        problem = self.gpu_problem()
        if problem is None:
            return []
        head = f"{problem.sentence}:" if problem.kind is GpuProblemKind.NO_TYPE else problem.sentence
        return [head, *problem.explanation]

    def explanation(self) -> list[str]:
        """Why the result is what it is: one sentence per requirement, then limits, minValues and
        what was not evaluated (for a config error listing each requirement and what it left)."""
        lines = [s.describe() for s in self.steps]
        if self.limit_message:
            lines.append(f"limits: {self.limit_message} (dropped {', '.join(self.over_limits[:SUMMARY_SIZE])}"
                         f"{', ...' if len(self.over_limits) > SUMMARY_SIZE else ''})")
        elif self.over_limits:
            lines.append(f"limits: dropped {len(self.over_limits)} type(s) whose single node exceeds them")
        lines += self.min_values + tuple(why for _, why in self.reduced_absent)
        lines += [f"not evaluated: {n}" for n in self.not_evaluated]
        return lines


def _reader(key: str) -> Callable[[InstanceType], str | LabelValue]:
    """``t -> t``'s value of ``key``, the key worked out once (a requirement is read on every catalog type)."""
    if key == ARCH_KEY:
        return _ARCHITECTURE
    if key == TYPE_KEY:
        return _NAME
    suffix = key_suffix(key)
    return lambda t: t.label(suffix)


_ARCHITECTURE = operator.attrgetter("architecture")
_NAME = operator.attrgetter("name")


def _check(index: int, req: Mapping[str, Any]) -> tuple[str, str, list[str]]:
    where = f"requirements[{index}]"
    if not isinstance(req, Mapping):
        raise RequirementError(f"{where}: {req!r} is not a mapping with key, operator, values")
    key, op, values = req.get("key"), req.get("operator"), req.get("values") or []
    if not isinstance(key, str) or not key:
        raise RequirementError(f"{where}.key: {key!r} must be a non-empty label key")
    if op not in OPERATORS:
        raise RequirementError(f"{where}.operator: {op!r} is not one of {', '.join(OPERATORS)} (Karpenter v1 CRD)")
    values = [str(v) for v in values]
    if op == "In" and not values:
        raise RequirementError(f"{where}: operator In needs at least one value (Karpenter CRD CEL rule)")
    if op in _COMPARE and (len(values) != 1 or not full_match(_ASCII_INTEGER, values[0])):
        raise RequirementError(
            f"{where}: operator {op} needs exactly one non-negative integer value, got {values} (Karpenter CRD CEL rule)"
        )
    return NORMALIZED_LABELS.get(key, key), op, values


def _matches(value: str | LabelValue, op: str, values: list[str], absent_ok: bool) -> bool | None:
    """Rule 2 and 3 for one type (``absent_ok``: a type without the key matches); None when the value is unknown."""
    if value is LabelValue.UNKNOWN:
        return None
    if value is LabelValue.ABSENT:
        return absent_ok
    if op == "In":
        return value in values
    if op == "NotIn":
        return value not in values
    if op in ("Exists", "DoesNotExist"):
        return op == "Exists"
    return full_match(_ASCII_INTEGER, value) and _COMPARE[op](Fraction(int(value)), Fraction(int(values[0])))


def _show(resource: str, value: Fraction) -> str:
    """A quantity for messages: memory in Mi, others as plain numbers."""
    if resource == "memory":
        return f"{round(value / 2**20)}Mi"
    return str(value.numerator) if value.denominator == 1 else str(float(value))


def _verdicts(universe: tuple[InstanceType, ...], key: str, op: str, values: list[str], *,
              catalog: bool, absent_ok: bool) -> tuple[Sequence[bool | None], int]:
    """:func:`_matches` of every type of ``universe`` for one checked requirement, in universe order, and
    how many types it allows alone (verdict not False).
    For the whole catalog (``catalog``) the answer is kept per requirement: the NodePools of a stack
    share most requirements (the component adds the same ones to each), and the catalog does not change
    while it stays loaded (the kept answers belong to the loaded table and go with it)."""
    value_of = _reader(key)
    if not catalog:
        verdicts = [_matches(value_of(t), op, values, absent_ok) for t in universe]
        return verdicts, sum(1 for verdict in verdicts if verdict is not False)
    _forget_other_tables()
    memo = (key, op, tuple(values), absent_ok)
    found = _VERDICTS.get(memo)
    if found is None:
        if len(_VERDICTS) >= _VERDICTS_KEPT:  # a row per catalog type each: bounded memory
            _VERDICTS.clear()
        verdicts = tuple(_matches(value_of(t), op, values, absent_ok) for t in universe)
        found = _VERDICTS[memo] = (verdicts, sum(1 for verdict in verdicts if verdict is not False))
    return found


def _forget_other_tables() -> None:
    """Drop the answers kept for the whole catalog when the loaded table is not the one they were made from."""
    table = _types()
    if _VERDICTS_OF[0] is not table:
        _VERDICTS.clear()
        _kept.cache_clear()
        _VERDICTS_OF[0] = table


#: :func:`_verdicts` for the whole catalog, by requirement, and the loaded table they were made from.
_VERDICTS: dict[tuple[str, str, tuple[str, ...], bool], tuple[tuple[bool | None, ...], int]] = {}
_VERDICTS_OF: list[Any] = [None]
_VERDICTS_KEPT = 1024


def _limit_value(name: str, raw: Any) -> Fraction:
    value = parse_quantity(raw)
    if value is None or value < 0:
        raise RequirementError(f"limits.{name}: {raw!r} is not a non-negative Kubernetes quantity (e.g. 8, 500m, 64Gi)")
    return value


def evaluate(
    requirements: Sequence[Mapping[str, Any]],
    limits: Mapping[str, Any] | None = None,
    types: Iterable[InstanceType] | None = None,
) -> Evaluation:
    """Evaluate a NodePool's final requirements and limits against the catalog (rules in the module docstring).

    Args:
        requirements: ``[{key, operator, values?, minValues?}]`` - the NodePool's
            ``spec.template.spec.requirements`` (the user's plus everything the component adds).
        limits: ``spec.limits``, e.g. ``{"cpu": 1000, "memory": "1000Gi", "nvidia.com/gpu": 8}``.
        types: the universe (default: every catalog type).

    Returns:
        An :class:`Evaluation`; ``.empty`` means Karpenter would launch nothing.

    Raises:
        RequirementError: a malformed requirement or limit (one line naming it and the rule).
    """
    universe = tuple(types) if types is not None else all_types()
    current = list(range(len(universe)))  # positions in universe of the types still in
    steps: list[Step] = []
    not_evaluated: list[str] = []
    unjudged: dict[str, list[str]] = {}
    min_values: list[str] = []
    reduced, reduced_absent = reduce_by_key(requirements), {}
    for index, req in enumerate(requirements):
        key, op, values = _check(index, req)
        kept_req = reduced.get(key)
        absent_ok = op in _ABSENT_OK or (kept_req is not None and kept_req.operator in _ABSENT_OK)
        if key in PASS_THROUGH_KEYS:
            steps.append(Step(index, req, False, None, None, "selects offerings, not instance types"))
            continue
        if key not in (ARCH_KEY, TYPE_KEY) and key_suffix(key) is None:
            reason = "a label the instance catalog does not model; Karpenter treats it as a node label"
            steps.append(Step(index, req, False, None, None, reason))
            not_evaluated.append(f"requirements[{index}] {key}: {reason}")
            continue
        integer_valued = key not in (ARCH_KEY, TYPE_KEY) and INSTANCE_LABELS[key_suffix(key)]
        if op in _COMPARE and not integer_valued:
            raise RequirementError(f"requirements[{index}]: operator {op} on {key}, whose values are not integers")
        if op not in _ABSENT_OK and absent_ok and kept_req is not None:
            at = listed(f"requirements[{i}]" for i in kept_req.indices)
            reduced_absent[key] = (key, f"{at} on {key} reduce to {kept_req.operator} (Requirements.Add intersects them), "
                                   "which every type without the label matches (Requirements.Intersects, "
                                   f"{REQUIREMENTS_SOURCE})")
        verdicts, alone = _verdicts(universe, key, op, values, catalog=types is None, absent_ok=absent_ok)
        if key in reduced_absent:  # what it allows alone: as written
            alone = _verdicts(universe, key, op, values, catalog=types is None, absent_ok=False)[1]
        kept = []
        for i in current:
            verdict = verdicts[i]
            if verdict is None:
                unjudged.setdefault(universe[i].name, []).append(key)
            if verdict is not False:
                kept.append(i)
        current = kept
        steps.append(Step(index, req, True, alone, len(current)))
        wanted = req.get("minValues")
        if wanted:
            value_of = _reader(key)
            distinct = {v for i in current if isinstance(v := value_of(universe[i]), str)}
            if len(distinct) < int(wanted):
                min_values.append(
                    f"requirements[{index}] {key} minValues {wanted}: the remaining types offer only "
                    f"{len(distinct)} distinct value(s) {sorted(distinct)[:SUMMARY_SIZE]}"
                )
    current = [universe[i] for i in current]
    after = len(current)
    over, message, gpu_limit, gpu_limit_zero = [], "", "", False
    for name, raw in (limits or {}).items():
        if name == "nodes":
            if _limit_value(name, raw) == 0:
                message = "node limits have been exhausted for nodepool (limits.nodes is 0)"
                over, current = [t.name for t in current], []
            continue
        capacity = _CAPACITY.get(name)
        if capacity is None:
            not_evaluated.append(f"limits.{name}: the catalog has no per-type capacity for it")
            continue
        limit = _limit_value(name, raw)
        gpu_limit_zero = gpu_limit_zero or (name == "nvidia.com/gpu" and limit == 0)
        if name == "nvidia.com/gpu" and any(capacity(t) > limit for t in current):
            gpu_limit = str(raw)
        over += [f"{t.name} ({name} {_show(name, capacity(t))} > {_show(name, limit)})" for t in current if capacity(t) > limit]
        current = [t for t in current if capacity(t) <= limit]
    if after and not current and not message:
        message = "all available instance types exceed limits for nodepool"
    kept_names = {t.name for t in current}
    return Evaluation(
        candidates=tuple(current),
        steps=tuple(steps),
        after_requirements=after,
        over_limits=tuple(over),
        limit_message=message,
        not_evaluated=tuple(not_evaluated),
        unjudged={n: tuple(k) for n, k in unjudged.items() if n in kept_names},
        min_values=tuple(min_values),
        gpu_limit=gpu_limit,
        reduced_absent=tuple(reduced_absent.values()),
        gpu_limit_zero=gpu_limit_zero,
    )


def kept_evaluation(requirements: Sequence[Mapping[str, Any]], limits: Mapping[str, Any] | None = None) -> Evaluation:
    """:func:`evaluate` over the whole catalog, kept per content of the requirements and limits (a stack's NodePools
    share a few sets of them; config validation, warnings, the plan and every policy ask for the same pool) and
    for the loaded table only. Plain data only (JSON-like: dicts, lists, strings, numbers, booleans, None), told
    apart as :func:`evaluate` tells them apart (``1``, ``1.0`` and ``True`` are three keys); anything else is
    evaluated every time.

    Raises:
        RequirementError: as :func:`evaluate` (a malformed requirement or limit is never kept).
    """
    try:
        key = (content(requirements), content(limits))
    except TypeError:
        return evaluate(requirements, limits)
    _forget_other_tables()
    return _kept(*key)


def candidates(requirements: Sequence[Mapping[str, Any]], limits: Mapping[str, Any] | None = None) -> tuple[InstanceType, ...]:
    """``evaluate(requirements, limits).candidates`` over the whole catalog, kept as :func:`kept_evaluation` keeps it
    (:class:`RequirementError` as :func:`evaluate`)."""
    return kept_evaluation(requirements, limits).candidates


@functools.lru_cache(maxsize=256)
def _kept(requirements: Any, limits: Any) -> Evaluation:
    """:func:`kept_evaluation` of the plain data :func:`~.plain_content.content` stands for (kept for the loaded table only)."""
    return evaluate(thaw(requirements), thaw(limits))


def gpu_limit_is_zero(limits: Mapping[str, Any] | None) -> bool:
    """``limits: {nvidia.com/gpu: 0}`` - the NodePool launches no node with GPU capacity (a g6f node, with 0
    ``nvidia.com/gpu`` capacity, would still fit: aws/karpenter-provider-aws#8368)."""
    raw = (limits or {}).get("nvidia.com/gpu")
    return raw is not None and parse_quantity(raw) == 0


def can_select_gpu_types(requirements: Sequence[Mapping[str, Any]], limits: Mapping[str, Any] | None = None) -> bool:
    """The requirements (and limits) leave an NVIDIA type, fractional ones included (none: True, Karpenter picks them
    for pods that request GPUs). Raises :class:`RequirementError` on malformed input."""
    result = evaluate(requirements, limits)
    return not result.empty and any(t.is_nvidia for t in result.candidates)


def is_gpu_pool(requirements: Sequence[Mapping[str, Any]], limits: Mapping[str, Any] | None = None) -> bool:
    """The NodePool can select an NVIDIA type and ``nvidia.com/gpu`` is not limited to 0."""
    return not gpu_limit_is_zero(limits) and can_select_gpu_types(requirements, limits)


@dataclass(frozen=True)
class KeyRequirement:
    """A NodePool's requirements on one ``key`` (:data:`NORMALIZED_LABELS` applied), at ``indices``, written with
    ``operators``, reduced to one as Karpenter's ``Requirement.Intersection`` does (:data:`INTERSECTION_SOURCE`): a
    set of ``values`` or its ``complement``, with inclusive integer bounds ``gte``/``lte`` (``Gt N`` is ``>= N+1``,
    ``Lt N`` is ``<= N-1``) that a set of values drops."""

    key: str
    indices: tuple[int, ...]
    complement: bool
    values: frozenset[str]
    gte: int | None
    lte: int | None
    operators: tuple[str, ...]

    @property
    def operator(self) -> str:
        """``In``, ``NotIn``, ``Exists`` or ``DoesNotExist``: Karpenter's ``Requirement.Operator``."""
        return ("NotIn" if self.values else "Exists") if self.complement else ("In" if self.values else "DoesNotExist")

    @property
    def reduced_to_does_not_exist(self) -> bool:
        """The requirements become ``DoesNotExist`` though one of them asks for the key (not all are DoesNotExist)."""
        return self.operator == "DoesNotExist" and any(op != "DoesNotExist" for op in self.operators)

    @property
    def single_value(self) -> str | None:
        """The value of an ``In`` with one value (the node label Karpenter sets), else None."""
        return next(iter(self.values)) if self.operator == "In" and len(self.values) == 1 else None


def _one(key: str, index: int, op: str, values: list[str]) -> KeyRequirement:
    """A checked requirement as ``NewRequirementWithFlexibility`` builds it (``Gt`` MaxInt: nothing)."""
    bound = int(values[0]) if op in _COMPARE else 0
    empty = op == "Gt" and bound >= INT64_MAX
    gte = bound + 1 if op == "Gt" and not empty else bound if op == "Gte" else None
    lte = bound - 1 if op == "Lt" else bound if op == "Lte" else None
    kept = frozenset(values) if op in ("In", "NotIn") else frozenset()
    return KeyRequirement(key, (index,), op not in ("In", "DoesNotExist") and not empty, kept, gte, lte, (op,))


def _intersection(a: KeyRequirement, b: KeyRequirement) -> KeyRequirement:
    """``a.Intersection(b)``: bounds that cross give ``DoesNotExist``; a set of values keeps those within the bounds."""
    where, ops = a.indices + b.indices, a.operators + b.operators
    gte = max((x for x in (a.gte, b.gte) if x is not None), default=None)
    lte = min((x for x in (a.lte, b.lte) if x is not None), default=None)
    if gte is not None and lte is not None and gte > lte:
        return KeyRequirement(a.key, where, False, frozenset(), None, None, ops)
    complement = a.complement and b.complement
    if complement or not (a.complement or b.complement):
        values = a.values | b.values if complement else a.values & b.values
    else:
        values = b.values - a.values if a.complement else a.values - b.values
    if gte is not None or lte is not None:  # withinBounds: a value that is no integer is out
        values = frozenset(v for v in values if full_match(_ASCII_INTEGER, v.removeprefix("-"))
                           and (gte is None or int(v) >= gte) and (lte is None or int(v) <= lte))
    kept = (gte, lte) if complement else (None, None)  # a set of values drops its bounds
    return KeyRequirement(a.key, where, complement, values, *kept, ops)


def reduce_by_key(requirements: Sequence[Any]) -> dict[str, KeyRequirement | None]:
    """A NodePool's requirements per key as Karpenter's ``Requirements.Add`` keeps them, keys in order of first
    appearance; None for a key with a requirement :func:`evaluate` refuses; an item without a string key skipped."""
    out: dict[str, KeyRequirement | None] = {}
    for index, req in enumerate(requirements):
        raw = req.get("key") if isinstance(req, Mapping) else None
        if not isinstance(raw, str):
            continue
        try:
            key, op, values = _check(index, req)
        except RequirementError:
            out[NORMALIZED_LABELS.get(raw, raw)] = None
            continue
        one, kept = _one(key, index, op, values), out.get(key, ...)
        out[key] = one if kept is ... else kept and _intersection(kept, one)
    return out
