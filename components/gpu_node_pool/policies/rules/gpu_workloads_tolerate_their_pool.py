"""Policy ``gpu-workloads-tolerate-their-pool``: a workload that targets GPU nodes can land on them.

For each pod template (not a DaemonSet: ``daemonsets-tolerate-gpu-taints`` judges those) whose
required node selection (``nodeSelector``, required node affinity) is met by the labels of some
GPU pools, every ``NoSchedule``/``NoExecute`` taint of at least one of those pools must be
tolerated by the pod's *effective* tolerations (:func:`gpu_node_pool.k8s.taints.effective_tolerations`:
its own, plus ``ExtendedResourceToleration``'s for the extended resources it requests on EKS and
GKE, or where ``admissionPlugins`` says the plugin is on). Otherwise the pod stays Pending for
good (the pattern of aws/karpenter-provider-aws#5703 and vllm-project/aibrix#909). Matching is
Kubernetes' (``taints.py``): with ``Equal`` the values must match. The finding names each key of the pod's
tolerations that is no field of ``Toleration`` (:func:`gpu_node_pool.policies.workloads.toleration_notes`): the API
server's default field validation drops it, so the verdict is the toleration's without it.

A pod whose only untolerated taints on some pool it targets are ones the pool's platform may tolerate for it
(tolerations the platform's documentation neither promises nor rules out) is not judged, with the reason its
backend gives: the registry's ``untolerated_not_judged`` (:func:`_platform_unsure`). On GKE that is a pod whose
``nodeSelector`` selects a custom ComputeClass and whose only untolerated taint is that class's
``cloud.google.com/compute-class=<class>:NoSchedule`` (:mod:`gpu_node_pool.backends.gke.compute_class`).

A pod template that requests GPUs and whose required node selection every GPU pool's declared labels refuse
(``gpu-node-pools/pool: inferense`` beside pools ``inference`` and ``burst``) selects no GPU pool of the stack:
it is reported too, naming the values the pools carry for the keys it selects, as the in-cluster rule
``gpu-node-pools-gpu-workloads-reach-their-pool`` warns (:mod:`gpu_node_pool.admission.vap_pods`). A selection
that depends on a label no pool declares (an instance type, a zone) is not judged so, nor is a stack with a pool
whose labels are unknown at preview.
"""

from __future__ import annotations

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    StackValidationArgs,
    StackValidationPolicy,
)

from ...k8s.effective import runs_own_api_server
from ...k8s.taints import Taint, Toleration, effective_tolerations, untolerated_taints
from ...registry import find
from ...sdk.props import Undecided, UnknownValueError, plain
from ..pools import GpuPool
from ..stack import stack_index
from ..workloads import (
    WORKLOAD_POD_SPEC_PATHS,
    NodeSelection,
    gpu_resources_requested,
    notes_text,
    read_tolerations,
    toleration_notes,
)
from ._shared import _NE, _NS, REFUSED_FIX, _config, _fmt, _resource, _stack_pools

_ABSENT: object = object()


def _targets(selection: NodeSelection, pools: list, by_values: dict, group_of: list[int]) -> tuple[list[int], list[int]]:
    """The pools (positions, in pool order) whose labels meet ``selection``, and their groups in first-seen order.
    ``on`` depends only on a pool's values for ``selection.keys``: decided once per distinct values
    (``by_values`` keeps the pools grouped so per keys)."""
    groups_of_values = by_values.get(selection.keys)
    if groups_of_values is None:
        grouped: dict[tuple[object, ...], tuple[list[int], dict[str, str]]] = {}
        for i, p in enumerate(pools):
            key = tuple(p.labels.get(k, _ABSENT) for k in selection.keys)
            grouped.setdefault(key, ([], p.labels))[0].append(i)
        groups_of_values = by_values[selection.keys] = list(grouped.values())
    targets = [i for positions, labels in groups_of_values if selection.on(labels) is True for i in positions]
    targets.sort()  # pool order
    return targets, list(dict.fromkeys(group_of[i] for i in targets))


def validate_gpu_workloads_tolerate_their_pool(args: StackValidationArgs, report: ReportViolation) -> None:
    """A pod template pinned to GPU pools tolerates every repelling taint of at least one of them."""
    config = _config(args, "gpu-workloads-tolerate-their-pool")
    plugins = list(config.get("admissionPlugins") or [])
    undecided = Undecided()
    found_pools = _stack_pools(args, undecided)
    pools = [p for p in found_pools if p.labels]
    every_pool_labelled = len(pools) == len(found_pools)
    if pools:
        # pools with the same platform, backend (its untolerated_not_judged) and taints get the same verdict: numbered once
        groups: dict[tuple[str, str, tuple[Taint, ...]], int] = {}
        group_of = [groups.setdefault((p.platform, p.backend, tuple(p.taints)), len(groups)) for p in pools]
        pool_of_group = {g: pools[i] for i, g in reversed(list(enumerate(group_of)))}  # its first pool
        displays = [p.display for p in pools]
        # selection keys -> the pools (positions) per distinct values of those labels, with one pool's labels
        by_values: dict[tuple[object, ...], list[tuple[list[int], dict[str, str]]]] = {}
        # per content of a selection: the pools it targets and their groups in first-seen order; per content
        # and verdicts on those groups: the finding's text (the workloads of a stack share a few of each)
        targets_of: dict[tuple[object, ...], tuple[list[int], list[int]]] = {}
        texts: dict[tuple[object, ...], tuple[str, list[str]]] = {}
        for res, workload, read_error in stack_index(args).workloads():
            try:
                if read_error is not None:
                    raise read_error
                if workload is None or workload.kind == "DaemonSet":
                    continue
                selection = NodeSelection.of(workload.pod_spec)
                if selection.refused:  # the API server refuses it: which pools it targets is moot
                    where = ".".join(WORKLOAD_POD_SPEC_PATHS[workload.kind])
                    undecided.not_judged(workload.display, f"not judged: {where}.{selection.refused}", REFUSED_FIX)
                    continue
                if not selection.keys:  # selects nothing (gpu-workloads-select-gpu-nodes' business), or only empty terms
                    if every_pool_labelled and _refused_by_every_pool(workload.pod_spec, selection, pools):
                        report(_selects_no_pool(workload.display, selection, pools), res.urn)
                    continue
                content: tuple[object, ...] | None = (selection.node_selector,
                                                      tuple((tuple(e), f) for e, f in selection.terms))
                try:
                    found_targets = targets_of.get(content)
                except TypeError:  # a value that cannot be hashed: judged without keeping it
                    content = found_targets = None
                if found_targets is None:
                    found_targets = _targets(selection, pools, by_values, group_of)
                    if content is not None:
                        targets_of[content] = found_targets
                targets, order = found_targets
                if not targets:
                    if every_pool_labelled and _refused_by_every_pool(workload.pod_spec, selection, pools):
                        report(_selects_no_pool(workload.display, selection, pools), res.urn)
                    continue
                spec = plain(workload.pod_spec)
                own, _ = read_tolerations(workload.pod_spec)  # malformed items skipped (and reported elsewhere)
            except UnknownValueError as err:
                undecided.add(_resource(res), err)
                continue
            # the verdict on a pool is its group's; the groups in the order their first pool comes (as pool by pool)
            verdicts: list[tuple[list[Taint], str]] = []
            by_platform: dict[str, list[Toleration]] = {}  # what admission adds depends on the platform only
            unsure: tuple[str, str] | None = None  # why a pool it targets may still take it, and the fix: then not judged
            for g in order:
                pool = pool_of_group[g]
                tolerations = by_platform.get(pool.platform)
                if tolerations is None:
                    # the stack's admission plugins describe a self-managed API server; EKS and GKE keep their defaults
                    enabled = (plugins or None) if runs_own_api_server(pool.platform) else None
                    tolerations = by_platform[pool.platform] = effective_tolerations(
                        spec, pool.platform, workload.kind, admission_plugins=enabled, tolerations=own)
                missing = [t for t in untolerated_taints(tolerations, pool.taints) if t.effect.repels]
                if not missing:
                    break  # some pool it targets takes it
                unsure = unsure or _platform_unsure(pool, missing, selection)
                verdicts.append((missing, f": {_fmt(missing)} not tolerated"))
            else:
                if unsure:
                    undecided.not_judged(workload.display, *unsure)
                    continue
                key = (content, tuple(shown for _, shown in verdicts))
                text = texts.get(key) if content is not None else None
                if text is None:
                    shown_of = dict(zip(order, (shown for _, shown in verdicts), strict=True))
                    details = "; ".join([displays[i] + shown_of[group_of[i]] for i in targets])
                    text = (details, sorted({str(Toleration.for_taint(t)) for t in verdicts[0][0]}))
                    if content is not None:
                        texts[key] = text
                details, fixes = text
                # a key that is no field of Toleration: dropped by the default field validation, so the verdict stands
                where = ".".join(WORKLOAD_POD_SPEC_PATHS[workload.kind]) + "."
                unknown = notes_text(toleration_notes(workload.pod_spec, where))
                report(
                    f"{workload.display} selects GPU nodes it can never land on, so its pods stay Pending: "
                    f"{details}.{unknown} Add the toleration(s) {fixes} (with Equal the value must match the "
                    "taint's exactly), or select another pool.",
                    res.urn,
                )
    undecided.raise_if_any()


def _platform_unsure(pool: GpuPool, missing: list[Taint], selection: NodeSelection) -> tuple[str, str] | None:
    """Why ``pool`` may take the pod although ``missing`` is untolerated, and the fix, ``(reason, fix)`` (None when
    it may not): the answer of the pool's backend (the registry's ``untolerated_not_judged``), which knows the
    tolerations its platform may add undocumented; a backend that declares none, or a pool of no registered
    backend, gives None."""
    backend = find(pool.backend)
    judge = backend.fn("untolerated_not_judged") if backend is not None else None
    return judge(pool, missing, selection.node_selector) if judge is not None else None


def _refused_by_every_pool(pod_spec: object, selection: NodeSelection, pools: list) -> bool:
    """The pod spec requests GPUs and its node selection refuses every pool's declared labels (a term without
    expressions matches no node: Kubernetes API reference, NodeSelectorTerm)."""
    return bool(gpu_resources_requested(pod_spec)) and all(selection.on(p.labels) is False for p in pools)


def _selects_no_pool(display: str, selection: NodeSelection, pools: list) -> str:
    """The finding of a GPU workload whose node selection every GPU pool of the stack refuses."""
    carried = []
    for key in selection.keys:
        values = sorted({p.labels[key] for p in pools if key in p.labels})
        if values:
            carried.append(f"{key} in {values}")
    seen = "; the pools carry " + ", ".join(carried) if carried else ""
    return (
        f"{display} requests GPUs but its node selection matches no GPU pool of this stack "
        f"({', '.join(p.display for p in pools[:5])}{', ...' if len(pools) > 5 else ''}){seen}: unless a node "
        "outside this stack carries those labels, its pods stay Pending. Select a pool of the stack (a typo in a "
        "label value is the usual cause), or, if the pool lives in another stack, ignore this advisory."
    )


POLICY = StackValidationPolicy(
    name="gpu-workloads-tolerate-their-pool",
    description=f"A pod template whose node selection targets GPU pools tolerates every {_NS}/{_NE} taint "
    "of at least one of them (effective tolerations: its own plus what admission adds); one that requests GPUs "
    "selects some pool of the stack.",
    validate=validate_gpu_workloads_tolerate_their_pool,
    enforcement_level=EnforcementLevel.ADVISORY,
    config_schema=PolicyConfigSchema(
        properties={
            "admissionPlugins": {
                "type": "array",
                "items": {"type": "string"},
                "description": "API server admission plugins of a self-managed (kubeadm) cluster, e.g. "
                "[ExtendedResourceToleration]; EKS and GKE have it on already.",
                "default": [],
            },
        }
    ),
    remediation_steps="Add a toleration for each taint of the pool the workload selects (operator Equal with the "
    "taint's value, or Exists), or change its nodeSelector/affinity; select a pool the stack declares.",
)
