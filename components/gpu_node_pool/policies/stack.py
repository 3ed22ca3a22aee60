"""The stack's resources grouped once per evaluation, so that no stack policy walks the whole stack.

A stack policy asks for the resources it can judge (the DaemonSets, the charts, the workloads)
instead of scanning every resource: on a 50k-resource stack the pack's ten stack policies used to
walk all 50k resources each and classify the 14k workloads again and again.
:func:`stack_index` builds the index once per evaluation when the runner offers its shared cache
(``args.derived``, :func:`gpu_node_pool.sdk.props.derived`); under pulumi_policy's analyzer,
which gives every policy its own freshly decoded resources and no cache, each policy builds it
once, still walking the stack a single time.

Every selection keeps stack order, so findings come out in the order a full scan gives.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from ..sdk.props import UnknownValueError, derived
from .workloads import WORKLOAD_POD_SPEC_PATHS, Workload, kind_of, workload_of

__all__ = ["StackIndex", "stack_index", "WorkloadEntry"]

#: ``(resource, workload, error)``: the workload read from ``resource`` (None when reading it
#: raised), and the ``UnknownValueError`` reading it raised (None when it did not).
WorkloadEntry = tuple[Any, "Workload | None", "UnknownValueError | None"]


class StackIndex:
    """The resources of one stack grouped by type token, in stack order.

    Attributes:
        resources: every resource, as the policy got them (``PolicyResource``: ``resource_type``,
            ``props``, ``name``, ``urn``).
    """

    def __init__(self, resources: Sequence[Any]) -> None:
        self.resources = resources
        by_type: dict[str, list[int]] = {}
        for i, res in enumerate(resources):
            positions = by_type.get(res.resource_type)
            if positions is None:
                by_type[res.resource_type] = [i]
            else:
                positions.append(i)
        self._by_type = by_type
        self._selections: dict[Any, list[Any]] = {}
        self._workloads: list[WorkloadEntry] | None = None
        self._parents: frozenset[str] | None = None

    def select(self, key: Any, accept: Callable[[str], bool]) -> list[Any]:
        """The resources whose type token ``accept`` takes, in stack order; kept under ``key``
        (the same ``key`` must always mean the same ``accept``)."""
        found = self._selections.get(key)
        if found is None:
            positions = [p for t, ps in self._by_type.items() if accept(t) for p in ps]
            positions.sort()
            found = self._selections[key] = [self.resources[p] for p in positions]
        return found

    def of_types(self, types: Collection[str]) -> list[Any]:
        """The resources of the given type tokens, in stack order."""
        wanted = frozenset(types)
        return self.select(("types", wanted), wanted.__contains__)

    def of_kinds(self, kinds: Collection[str]) -> list[Any]:
        """The Kubernetes resources (``kubernetes:<group>/<version>:<Kind>``) of the given kinds, in stack order."""
        wanted = frozenset(kinds)
        return self.select(("kinds", wanted), lambda t: kind_of(t) in wanted)

    def parent_urns(self) -> frozenset[str]:
        """The URN of every resource that is some resource's parent."""
        if self._parents is None:
            self._parents = frozenset(r.parent.urn for r in self.resources if r.parent is not None)
        return self._parents

    def daemonsets(self) -> list[Any]:
        """Every DaemonSet, in stack order."""
        return self.of_kinds(("DaemonSet",))

    def workloads(self) -> list[WorkloadEntry]:
        """Every resource that carries a pod template (:data:`WORKLOAD_POD_SPEC_PATHS`), read once:
        ``(resource, workload, error)`` in stack order."""
        if self._workloads is None:
            out: list[WorkloadEntry] = []
            for res in self.of_kinds(WORKLOAD_POD_SPEC_PATHS):
                try:
                    out.append((res, workload_of(res.resource_type, res.props, res.name), None))
                except UnknownValueError as err:
                    out.append((res, None, err))
            self._workloads = out
        return self._workloads


def stack_index(args: Any) -> StackIndex:
    """The :class:`StackIndex` of a ``StackValidationArgs``: built once per evaluation when the
    runner shares ``args.derived`` across the stack policies, else (the SDK) once per policy."""
    cache = derived(args)
    if cache is None:
        return StackIndex(args.resources)
    index = cache.get("stack_index")
    if index is None:
        index = cache["stack_index"] = StackIndex(args.resources)
    return index
