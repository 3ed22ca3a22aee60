"""The stack's resources grouped once per evaluation, so that no stack policy walks the whole stack.

A stack policy asks for the resources it can judge (the DaemonSets, the charts, the workloads)
instead of scanning every resource: on a 50k-resource stack the pack's ten stack policies used to
walk all 50k resources each and classify the 14k workloads again and again.
:func:`stack_index` builds the index once per evaluation when the runner offers its shared cache
(``args.derived``, :func:`gpu_node_pool.sdk.props.derived`); under pulumi_policy's analyzer,
which gives every policy its own freshly decoded resources and no cache, each policy builds it
once, still walking the stack a single time.

Every selection keeps stack order, so findings come out in the order a full scan gives.

:func:`stack_index` also sets, for every stack policy, the Kubernetes version the stack's GpuNodePools declare
(:meth:`StackIndex.kube_version`) as the one pod specs are judged on
(:func:`gpu_node_pool.policies.workloads.judge_on_kube_version`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from ..k8s.wellknown import GPU_NODE_POOL_TYPE
from ..sdk.props import UnknownValueError, derived
from .workloads import WORKLOAD_POD_SPEC_PATHS, Workload, judge_on_kube_version, kind_of, workload_of

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
        self._kube_version: tuple[tuple[str, str] | None] | None = None

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

    def kube_version(self) -> tuple[str, str] | None:
        """``(version, who declares it)`` of the stack's cluster: the ``kubernetesVersion`` property every
        ``GpuNodePool`` registers (:data:`gpu_node_pool.component.pool.KUBERNETES_VERSION`, ``"1.33"``), the oldest
        when they differ (a pod spec must hold on every cluster the stack may install to), who being
        ``GpuNodePool 'gpu'`` (``GpuNodePool 'a', 'b'`` when several declare it); None when none declares a minor
        version (``1.NN``; a value unknown at preview is not read)."""
        if self._kube_version is None:
            from ..component.pool import KUBERNETES_VERSION
            from ..config.version_calendars import parse_minor

            found: dict[str, list[str]] = {}
            for res in self.of_types((GPU_NODE_POOL_TYPE,)):
                try:
                    version = res.props.get(KUBERNETES_VERSION)
                except UnknownValueError:
                    continue
                if isinstance(version, str) and parse_minor(version):
                    found.setdefault(version, []).append(repr(res.name))
            oldest = min(found, key=lambda v: parse_minor(v) or (0, 0), default=None)
            declared = None if oldest is None else (oldest, f"GpuNodePool {', '.join(found[oldest])}")
            self._kube_version = (declared,)
        return self._kube_version[0]

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
    runner shares ``args.derived`` across the stack policies, else (the SDK) once per policy. Sets the version pod
    specs are judged on to the stack's (:meth:`StackIndex.kube_version`), for the policy that asks."""
    cache = derived(args)
    index = None if cache is None else cache.get("stack_index")
    if index is None:
        index = StackIndex(args.resources)
        if cache is not None:
            cache["stack_index"] = index
    judge_on_kube_version(index.kube_version())
    return index
