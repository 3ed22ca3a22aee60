"""Policy ``daemonsets-tolerate-gpu-taints``: every DaemonSet tolerates every taint of every GPU pool, or keeps off GPU nodes by
``nodeSelector`` or required node affinity (mandatory)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

from ...k8s.effective import cluster_platform
from ...k8s.labels import DEFAULT_GPU_LABEL
from ...k8s.taints import Taint, Toleration, effective_tolerations
from ...sdk.props import Undecided, UnknownValueError, plain
from ..pools import (
    GpuPool,
)
from ..stack import stack_index
from ..workloads import (
    NodeSelection,
    Workload,
    read_tolerations,
    stay_on,
    workload_of,
)
from ._shared import (
    _NE,
    _TAINT_LIST,
    CONFIG_DEFAULTS,
    _config,
    _describe_tolerations,
    _parse_taints,
    _resource,
    _stack_pools,
)


def _exempt(workload: Workload, exemptions: Iterable[Any]) -> bool:
    for ex in exemptions or []:
        if not isinstance(ex, Mapping) or ex.get("namespace") != workload.namespace:
            continue
        if ex.get("name") in (None, "", "*", workload.name):
            return True
    return False


def _outside_pool(taints: list[Taint], labels: Mapping[str, Any], source: str) -> GpuPool:
    return GpuPool(
        backend="outside this stack",
        resource_type="policy config",
        name=source,
        urn="",
        taints=taints,
        labels={str(k): str(v) for k, v in (labels or {}).items()},
        where="the pool's own definition",
    )


@dataclass
class _PoolChecks:
    """The pools a DaemonSet is judged against, prepared once per stack.

    ``taints``: the distinct repelling taints of all pools; ``groups``: the distinct sets of
    repelling taints (positions in ``taints``, each pool's order); ``pools``: ``(pool, its group,
    its display)``.
    """

    taints: list[Taint]
    groups: list[tuple[int, ...]]
    pools: list[tuple[GpuPool, int, str]]
    labels_known: bool = True  # no pool's node labels are unknown at preview
    _projections: dict[tuple[Any, ...], Any] = dataclasses.field(default_factory=dict)
    #: per content of a DaemonSet's tolerations: its number here and why each group of taints is not tolerated for good
    _why_by_group: dict[tuple[Toleration, ...], tuple[int, list[str]]] = dataclasses.field(default_factory=dict)
    #: per (tolerations' number, node selection's content): the failures on every pool (copies of one chart share it)
    _failures: dict[tuple[Any, ...], str] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, pools: list[GpuPool]) -> _PoolChecks:
        taints: dict[Taint, int] = {}
        groups: dict[tuple[int, ...], int] = {}
        checks = []
        for pool in pools:
            group = tuple(taints.setdefault(t, len(taints)) for t in pool.taints if t.effect.repels)
            checks.append((pool, groups.setdefault(group, len(groups)), pool.display))
        return cls(list(taints), list(groups), checks, all(pool.labels is not None for pool in pools))

    def projection(self, keys: tuple[Any, ...]) -> tuple[list[tuple[Any, ...]], dict[tuple[Any, ...], Mapping[str, str]]]:
        """Per pool, its values of the label ``keys`` (:data:`_ABSENT` when missing), and the labels of
        one pool per distinct such values; made once per distinct ``keys``."""
        out = self._projections.get(keys)
        if out is None:
            values = [tuple([(pool.labels or {}).get(k, _ABSENT) for k in keys]) for pool, _, _ in self.pools]
            labels = {}
            for (pool, _, _), value in zip(self.pools, values, strict=True):
                if pool.labels is not None:
                    labels.setdefault(value, pool.labels)
            out = self._projections[keys] = (values, labels)
        return out


def _daemonset_failures(workload: Workload, tolerations: list[Toleration], checks: _PoolChecks,
                        undecided: Undecided) -> str:
    """``"<pool>: <why>"`` for every pool whose nodes the DaemonSet would not run on and does not keep off,
    joined by `` | `` (empty when there is none).

    Tolerations are matched once per distinct taint and judged once per distinct set of pool
    taints, never per pool: a DaemonSet that tolerates them all costs nothing per pool. The pod
    spec's node selection is read once, and judged only for pools with a taint it does not
    tolerate, once per distinct value of the labels it looks at. Both verdicts depend on nothing
    but the content of the tolerations and of the selection: ``checks`` keeps them per content, for
    the other DaemonSets of the stack (copies of one chart).
    """
    own = tuple(tolerations)
    kept = checks._why_by_group.get(own)
    if kept is None:
        stays = [stay_on(tolerations, t) for t in checks.taints]
        bad = [None if stay.ok else stay.describe() for stay in stays]
        kept = checks._why_by_group[own] = (len(checks._why_by_group), [
            "; ".join([bad[i] for i in group if bad[i] is not None]) for group in checks.groups])
    number, why_by_group = kept
    if not any(why_by_group):
        return ""
    if checks.labels_known:
        try:
            read = NodeSelection.of(workload.pod_spec)
        except UnknownValueError:
            pass  # each pool it concerns is undecided: below
        else:
            content: tuple[Any, ...] | None = (number, read.node_selector, tuple((tuple(e), f) for e, f in read.terms))
            try:
                found = checks._failures.get(content)
            except TypeError:  # a value that cannot be hashed: judged without keeping it
                content = found = None
            if found is None:
                # The verdict on a pool depends only on its values of the label keys the selection
                # reads: judge each distinct one once.
                projection, labels_of = checks.projection(read.keys)
                keeps_off = {key for key, labels in labels_of.items() if read.on(labels) is False}
                found = " | ".join([
                    f"{display}: {why}"
                    for (_, group, display), key in zip(checks.pools, projection, strict=True)
                    if (why := why_by_group[group]) and key not in keeps_off
                ])
                if content is not None:
                    checks._failures[content] = found
            return found
    selection: NodeSelection | UnknownValueError | None = None
    projection: list[tuple[Any, ...]] = []
    on_labels: dict[tuple[Any, ...], bool | None] = {}
    failures: list[str] = []
    rows = checks.pools
    for i in range(len(rows)):
        pool, group, display = rows[i]
        why = why_by_group[group]
        if not why:
            continue  # every repelling taint of the pool tolerated for good
        labels = pool.labels
        if labels is None:
            undecided.add(f"{workload.display} on {display}", UnknownValueError(UNKNOWN_STRING_VALUE, [pool.name, "labels"]))
            continue
        if selection is None:
            try:
                selection = NodeSelection.of(workload.pod_spec)
                projection = checks.projection(selection.keys)[0]
            except UnknownValueError as err:
                selection = err
        if isinstance(selection, UnknownValueError):
            undecided.add(f"{workload.display} on {display}", selection)
            continue
        # The verdict depends only on the pool's values of the label keys the selection reads.
        key = projection[i]
        selected = on_labels.get(key, _ABSENT)
        if selected is _ABSENT:
            selected = on_labels[key] = selection.on(labels)
        if selected is False:
            continue  # keeps off the pool's nodes
        failures.append(f"{display}: {why}")
    return " | ".join(failures)


_ABSENT: Any = object()


def validate_daemonsets_tolerate_gpu_taints(args: StackValidationArgs, report: ReportViolation) -> None:
    """Every DaemonSet tolerates every taint of every GPU pool, or keeps off GPU nodes."""
    config = _config(args, "daemonsets-tolerate-gpu-taints")
    undecided = Undecided()
    pools = [p for p in _stack_pools(args, undecided) if not p.problem]
    extra = _parse_taints(config.get("extraTaints"))
    if extra:
        pools.append(_outside_pool(extra, config.get("extraPoolLabels") or {}, "extraTaints (policy config)"))
    if not pools:
        undecided.raise_if_any()
        return
    checks = _PoolChecks.of(pools)
    exemptions = config.get("exemptions")
    # one cluster per stack: GKE if any pool is, else EKS unless every pool is self-managed (kubeadm)
    platform = cluster_platform(p.platform for p in pools)
    for res in stack_index(args).daemonsets():
        try:
            workload = workload_of(res.resource_type, res.props, res.name)
            assert workload is not None
            if _exempt(workload, exemptions):
                continue
            tolerations, problems = read_tolerations(workload.pod_spec)
            # what the cluster adds (DaemonSet controller; ExtendedResourceToleration for what it requests)
            tolerations = effective_tolerations(plain(workload.pod_spec), platform, "DaemonSet", tolerations=tolerations)
        except UnknownValueError as err:
            undecided.add(f"{_resource(res)}", err)
            continue
        failures = _daemonset_failures(workload, tolerations, checks, undecided)
        if failures:
            note = f" ({'; '.join(problems)})" if problems else ""
            report(
                f"DaemonSet {workload.namespace}/{workload.name} will not run on GPU nodes and does not keep off "
                f"them: {failures}. Its tolerations: {_describe_tolerations(tolerations)}{note}. "
                "Tolerate each taint (operator Exists with the taint's key and effect) or keep the DaemonSet off "
                f"GPU nodes with a required node affinity ({DEFAULT_GPU_LABEL[0]} NotIn [{DEFAULT_GPU_LABEL[1]}]).",
                res.urn,
            )
    undecided.raise_if_any()


POLICY = StackValidationPolicy(
    name="daemonsets-tolerate-gpu-taints",
    description="Every DaemonSet tolerates every taint of every GPU pool, or keeps off GPU nodes through nodeSelector or required node affinity.",
    validate=validate_daemonsets_tolerate_gpu_taints,
    enforcement_level=EnforcementLevel.MANDATORY,
    config_schema=PolicyConfigSchema(
        properties={
            "exemptions": {
                "type": "array",
                "description": "DaemonSets not checked: {namespace, name}; without name (or '*') the whole namespace.",
                "items": {
                    "type": "object",
                    "properties": {"namespace": {"type": "string"}, "name": {"type": "string"}},
                    "required": ["namespace"],
                    "additionalProperties": False,
                },
                "default": CONFIG_DEFAULTS["daemonsets-tolerate-gpu-taints"]["exemptions"],
            },
            "extraTaints": {
                **_TAINT_LIST,
                "description": "Taints of GPU pools outside this stack, kubelet form key=value:Effect.",
                "default": CONFIG_DEFAULTS["daemonsets-tolerate-gpu-taints"]["extraTaints"],
            },
            "extraPoolLabels": {
                "type": "object",
                "additionalProperties": {"type": "string"},
                "description": "Node labels of those outside pools (a DaemonSet that cannot match them keeps off).",
                "default": CONFIG_DEFAULTS["daemonsets-tolerate-gpu-taints"]["extraPoolLabels"],
            },
        }
    ),
    remediation_steps=(
        "Give the DaemonSet a toleration per GPU pool taint ({key, operator: Exists, effect}) or a catch-all "
        f"if it is a node agent; or keep it off GPU nodes with a required node affinity on {DEFAULT_GPU_LABEL[0]}. "
        f"A {_NE} toleration with tolerationSeconds only delays eviction."
    ),
)
