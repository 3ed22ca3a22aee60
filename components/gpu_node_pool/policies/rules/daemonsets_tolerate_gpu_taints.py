"""Policy ``daemonsets-tolerate-gpu-taints``: every DaemonSet tolerates every taint of every GPU pool, or keeps off GPU nodes by
``nodeSelector`` or required node affinity (mandatory).

A toleration key that is no field of ``Toleration`` (``opertor``) is named in the finding with the field it most
likely means (:func:`gpu_node_pool.policies.workloads.toleration_notes`); the verdict is the toleration's without it,
as the API server's default field validation keeps it."""

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
from ...k8s.selection import expression_text
from ...k8s.taints import Taint, Toleration, effective_tolerations
from ...k8s.wellknown import POOL_LABEL_KEY
from ...sdk.props import Undecided, UnknownValueError, plain
from ...text.listing import listed
from ..gpu_agents import agent_resources, discovery_agents
from ..placement import StackPlacements
from ..pools import (
    GpuPool,
)
from ..stack import stack_index
from ..workloads import (
    NodeSelection,
    Workload,
    notes_text,
    read_tolerations,
    stay_on,
    toleration_notes,
    workload_of,
)
from ._shared import (
    _NE,
    _TAINT_LIST,
    CONFIG_DEFAULTS,
    REFUSED_FIX,
    _config,
    _describe_tolerations,
    _parse_taints,
    _resource,
    _stack_placements,
    _stack_pools,
    placement_fix,
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
    #: per content of a DaemonSet's tolerations: why each group of taints is not tolerated for good
    _why_by_group: dict[tuple[Toleration, ...], list[str]] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, pools: list[GpuPool]) -> _PoolChecks:
        taints: dict[Taint, int] = {}
        groups: dict[tuple[int, ...], int] = {}
        checks = []
        for pool in pools:
            group = tuple(taints.setdefault(t, len(taints)) for t in pool.taints if t.effect.repels)
            checks.append((pool, groups.setdefault(group, len(groups)), pool.display))
        return cls(list(taints), list(groups), checks)


def _daemonset_failures(workload: Workload, tolerations: list[Toleration], checks: _PoolChecks,
                        undecided: Undecided, placed: StackPlacements, discovered: tuple[str, ...] = ()) -> str:
    """``"<pool>: <why>"`` for every pool whose nodes the DaemonSet would not run on and does not keep off,
    joined by `` | `` (empty when there is none).

    Tolerations are matched once per distinct taint and judged once per distinct set of pool
    taints, never per pool: a DaemonSet that tolerates them all costs nothing per pool. Node selection
    is judged only for pools with a taint it does not tolerate, by the placement every rule, the plan
    page and the audit share (:class:`~gpu_node_pool.policies.placement.StackPlacements`): against the
    labels the pool's nodes will carry, its own and its platform's, one kind of node per instance type
    and zone. A pool some kind of whose nodes the selection admits is a failure, also when it admits them
    only with the labels nothing known sets taken as absent (``type NotIn [virtual-kubelet]``: a new node
    has no such label); one whose kinds it refuses, or admits only if the nodes carried such a label
    (``example.com/role In [cpu]``), is not a failure, and the latter is reported as not judged (with the
    label and why), never passed.
    """
    own = tuple(tolerations)
    why_by_group = checks._why_by_group.get(own)
    if why_by_group is None:
        stays = [stay_on(tolerations, t) for t in checks.taints]
        bad = [None if stay.ok else stay.describe() for stay in stays]
        why_by_group = checks._why_by_group[own] = [
            "; ".join([bad[i] for i in group if bad[i] is not None]) for group in checks.groups]
    if not any(why_by_group):
        return ""
    try:
        selection = NodeSelection.of(workload.pod_spec)
    except UnknownValueError as err:
        for _, group, display in checks.pools:
            if why_by_group[group]:
                undecided.add(f"{workload.display} on {display}", err)
        return ""
    failures: list[str] = []
    for pool, group, display in checks.pools:
        why = why_by_group[group]
        if not why:
            continue  # every repelling taint of the pool tolerated for good
        if pool.labels is None:
            undecided.add(f"{workload.display} on {display}", UnknownValueError(UNKNOWN_STRING_VALUE, [pool.name, "labels"]))
            continue
        placement = placed(pool, tolerations, selection, discovered=discovered)
        admitted = placement.kinds - len(placement.excluded) - len(placement.undecided)
        if admitted > 0 or placement.admitted_when_absent:
            failures.append(f"{display}: {why}")
        elif placement.undecided:  # only a label nothing known sets would admit the nodes: never a finding, never a pass
            undecided.not_judged(f"{workload.display} on {display}", placement.not_judged_text(), placement_fix(placement))
    return " | ".join(failures)




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
    keep_off = _keep_off_hint(pools)
    placed = _stack_placements(args)
    discovered = discovery_agents(agent_resources(stack_index(args)), undecided)
    exemptions = config.get("exemptions")
    # one cluster per stack: GKE if any pool is, else EKS unless every pool is self-managed (kubeadm)
    platform = cluster_platform(p.platform for p in pools)
    for res in stack_index(args).daemonsets():
        try:
            workload = workload_of(res.resource_type, res.props, res.name)
            assert workload is not None
            if _exempt(workload, exemptions):
                continue
            refused = NodeSelection.of(workload.pod_spec).refused
            if refused:  # the API server refuses it: it runs nowhere, whatever it tolerates
                undecided.not_judged(workload.display, f"not judged: spec.template.spec.{refused}", REFUSED_FIX)
                continue
            tolerations, problems = read_tolerations(workload.pod_spec)
            # what the cluster adds (DaemonSet controller; ExtendedResourceToleration for what it requests)
            tolerations = effective_tolerations(plain(workload.pod_spec), platform, "DaemonSet", tolerations=tolerations)
        except UnknownValueError as err:
            undecided.add(f"{_resource(res)}", err)
            continue
        failures = _daemonset_failures(workload, tolerations, checks, undecided, placed, discovered)
        if failures:
            note = f" ({'; '.join(problems)})" if problems else ""
            # a key that is no field of Toleration: dropped by the default field validation, so the verdict stands
            unknown = notes_text(toleration_notes(workload.pod_spec, "spec.template.spec."))
            report(
                f"DaemonSet {workload.namespace}/{workload.name} will not run on GPU nodes and does not keep off "
                f"them: {failures}. Its tolerations: {_describe_tolerations(tolerations)}{note}.{unknown} "
                "Tolerate each taint (operator Exists with the taint's key and effect) or keep the DaemonSet off "
                f"GPU nodes with a required node affinity ({keep_off}).",
                res.urn,
            )
    undecided.raise_if_any()


def _keep_off_hint(pools: list[Any]) -> str:
    """A required node affinity term that keeps a DaemonSet off every GPU pool's nodes: one ``NotIn`` per label
    key, ANDed in one term (a node lacking the key matches ``NotIn``, so CPU nodes stay eligible). Only labels
    that mark GPU nodes are quoted with their values: the GPU label (``nvidia.com/gpu.present``), else the
    component's pool label; a pool with neither is named, with its declared label keys to choose from (a team or
    tier label may be on CPU nodes too, and a value may be a secret), or as not known at preview."""
    chosen: dict[str, set[str]] = {}
    choose: list[str] = []
    for pool in pools:
        labels = pool.labels
        key = next((k for k in (DEFAULT_GPU_LABEL[0], POOL_LABEL_KEY) if labels and k in labels), None)
        if key is not None:
            chosen.setdefault(key, set()).add(labels[key])
        elif labels is None:
            choose.append(f"pool {pool.name!r}, whose labels are not known at preview")
        elif labels:
            choose.append(f"pool {pool.name!r} (one of its labels {listed(sorted(labels))}, if only its GPU nodes carry it)")
        else:
            choose.append(f"pool {pool.name!r}, which declares no label: add one")
    term = " AND ".join(expression_text(key, "NotIn", sorted(values)) for key, values in sorted(chosen.items()))
    if not choose:
        return term
    rest = "a label only the GPU nodes carry NotIn its value for " + "; ".join(choose)
    return f"{term} AND {rest}" if term else rest


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
