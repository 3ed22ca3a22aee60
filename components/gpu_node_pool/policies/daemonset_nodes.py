"""DaemonSet x node and DaemonSet x pool verdicts, with the rules the DaemonSet controller uses.

A daemon pod runs on a node when (``nodeShouldRunDaemonPod`` in kubernetes
``pkg/controller/daemon/daemon_controller.go``; https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/):

0. its template's ``nodeName``, when set, is the node's name
   (:func:`gpu_node_pool.k8s.selection.fits_node_name`), else it is *kept off* by it;
1. its ``nodeSelector`` and required node affinity match the node's labels
   (:mod:`gpu_node_pool.k8s.selection`, complete label set), else it is *kept off* by its own selection;
2. every ``NoSchedule`` and ``NoExecute`` taint of the node is tolerated by its *effective*
   tolerations (:func:`gpu_node_pool.k8s.taints.effective_tolerations`, kind ``DaemonSet``: the
   controller's own tolerations are not on the template and are added here), else it *does not
   run*. ``PreferNoSchedule`` never stops a daemon pod.

A ``NoExecute`` taint tolerated only with ``tolerationSeconds`` does not keep the pod off: the controller matches
tolerations without their seconds (kubernetes ``pkg/controller/daemon/daemon_controller.go``@v1.33.0 ``predicates``
calls ``v1helper.FindMatchingUntoleratedTaint``, whose ``Toleration.ToleratesTaint`` in ``k8s.io/api/core/v1/
toleration.go`` compares key, operator, value and effect only), so it creates the pod, the taint manager evicts it
after N s (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/#taint-based-evictions) and
the controller creates it again. Such a node counts towards ``status.desiredNumberScheduled``
(:attr:`NodeVerdict.placed`); the verdict is still ``doesNotRun`` (it does not stay, as the pack's
``daemonsets-tolerate-gpu-taints`` says), worded "runs for N s, then is evicted and recreated"
(:attr:`NodeVerdict.evicted_after`), the fix being to remove ``tolerationSeconds`` from the toleration that matches first (:func:`stay_fix`).

A template whose placement fields the API server refuses (:mod:`gpu_node_pool.k8s.refusals`: ``tolerations``
no list, a ``nodeSelector`` value no string, ``In`` without values...) is not judged, with that reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..k8s.refusals import metadata_refusal
from ..k8s.selection import NodeLabels
from ..k8s.taints import Taint, TaintError, Toleration, effective_tolerations
from ..k8s.wellknown import SECRET, UNKNOWN
from ..text.terminal import shown
from .workloads import NodeSelection, Stay

__all__ = ["DaemonSet", "read_daemonset", "NodeVerdict", "judge", "Cell", "pool_cell", "placement_cell", "STATUSES",
           "toleration_text", "stay_fix"]

#: Cell statuses, as they appear in the JSON report and the page.
STATUSES = ("runs", "doesNotRun", "keptOff", "partial", "notJudged", "noNodes")


@dataclass
class DaemonSet:
    """A DaemonSet, read. ``tolerations`` are the effective ones; None when unreadable (``problem``)."""

    namespace: str
    name: str
    pod_spec: Mapping[str, Any]
    selection: NodeSelection | None
    tolerations: list[Toleration] | None
    desired: int | None = None
    problem: str = ""
    origin: str = "cluster"  # or "stack": the values the stack would give it
    images: tuple[str, ...] = ()
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def display(self) -> str:
        return f"{self.namespace}/{self.name}"


def read_daemonset(
    obj: Mapping[str, Any], platform: str, admission_plugins: Iterable[str] | None = None, origin: str = "cluster"
) -> DaemonSet:
    """Read a DaemonSet object (plain camelCase mapping); a malformed part goes to ``problem``, and so does a
    ``spec``, ``spec.template`` or pod spec that is no object (a Pulumi secret or a value unknown before apply,
    as the plan shows them: :data:`~gpu_node_pool.k8s.wellknown.SECRET`, :data:`~gpu_node_pool.k8s.wellknown.UNKNOWN`)."""
    meta = _mapping(obj.get("metadata"))
    status = _mapping(obj.get("status"))
    problem = ""
    pod_spec: Mapping[str, Any] = {}
    part: Any = obj
    for path in ("spec", "spec.template", "spec.template.spec"):
        part = part.get(path.rpartition(".")[2]) or {}
        if not isinstance(part, Mapping):
            problem = f"{path} is {_not_an_object(part)}"
            break
    else:
        pod_spec = part
    refused_meta = metadata_refusal("DaemonSet", meta.get("name"), meta.get("namespace"))
    if refused_meta is not None:  # a hand-written dump can hold one; the API server never stores it
        problem = refused_meta[1]
    desired = status.get("desiredNumberScheduled")
    ds = DaemonSet(
        namespace=str(meta.get("namespace") or "default"),
        name=str(meta.get("name", "")),
        pod_spec=pod_spec,
        selection=None,
        tolerations=None,
        desired=desired if isinstance(desired, int) and not isinstance(desired, bool) else None,
        origin=origin,
        images=tuple(str(c.get("image", "")) for c in pod_spec.get("containers") or [] if isinstance(c, Mapping)),
        labels={str(k): str(v) for k, v in _mapping(meta.get("labels")).items()},
    )
    if problem:
        ds.problem = problem
        return ds
    try:
        ds.tolerations = effective_tolerations(pod_spec, platform, "DaemonSet", admission_plugins=admission_plugins)
    except TaintError as err:
        ds.problem = f"spec.template.spec.{err}"
    try:
        ds.selection = NodeSelection.of(pod_spec)
    except (TypeError, ValueError, AttributeError) as err:
        ds.problem = ds.problem or f"spec.template.spec node selection unreadable: {err}"
    if ds.selection is not None and ds.selection.refused:  # every refused field, as the pack's rules name them
        ds.problem = f"spec.template.spec.{ds.selection.refused}"
        ds.selection = None
    return ds


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _not_an_object(value: Any) -> str:
    """What a part that should be an object is, in the words of the report."""
    if value == SECRET:
        return "a Pulumi secret's placeholder"
    if value == UNKNOWN:
        return "unknown before apply"
    return f"{shown(value)}, not an object"


#: Why a DaemonSet is kept off a node whose labels its selection refuses (the other reason is its ``nodeName``).
_KEPT_BY_LABELS = "its nodeSelector/required node affinity does not match the node's labels"


@dataclass(frozen=True)
class NodeVerdict:
    """One DaemonSet on one node: ``status`` in runs/doesNotRun/keptOff/notJudged, and why."""

    node: str
    status: str
    reason: str = ""
    #: for doesNotRun: (taint, the toleration that would let it run), one per stopping taint.
    missing: tuple[tuple[Taint, Toleration], ...] = ()
    #: for doesNotRun: how it fares against each stopping taint (:func:`~gpu_node_pool.policies.workloads.stay_on`),
    #: in the order of ``missing``.
    stays: tuple[Stay, ...] = ()

    @property
    def evicted_after(self) -> int | None:
        """For a ``doesNotRun`` verdict whose every stopping taint is tolerated, with ``tolerationSeconds``: the seconds
        its pod runs before the taint manager evicts it (the least of them; the controller then creates it again,
        module docstring). None otherwise."""
        if self.status != "doesNotRun" or not self.stays or not all(s.tolerated for s in self.stays):
            return None
        return min(s.evicted_after for s in self.stays if s.evicted_after is not None)

    @property
    def placed(self) -> bool:
        """Whether the DaemonSet controller creates its pod on the node, the count ``status.desiredNumberScheduled``
        holds: it runs there, or it is evicted after :attr:`evicted_after` seconds and created again."""
        return self.status == "runs" or self.evicted_after is not None


def judge(ds: DaemonSet, node: str, labels: Mapping[str, str] | NodeLabels, taints: Iterable[Taint], *,
          complete: bool = True, discovered: Iterable[str] = ()) -> NodeVerdict:
    """Rules 0-2 of the module docstring for ``ds`` on a node with ``labels`` and ``taints``: the
    verdict of :func:`gpu_node_pool.policies.placement.place_on` (the one every report uses) on that node.
    ``complete``: a live node, whose labels are all there and whose name is ``node``; else a node not
    launched yet (a what-if), named by ``node`` only for the report. ``labels`` given as
    :class:`~gpu_node_pool.k8s.selection.NodeLabels` (a kind of node the plan knows) say themselves what
    is known of the node, and ``complete`` is not read."""
    from .placement import place_on

    if ds.tolerations is None or ds.selection is None:
        return NodeVerdict(node, "notJudged", ds.problem)
    taints = list(taints)
    complete = labels.complete if isinstance(labels, NodeLabels) else complete
    here = labels if isinstance(labels, NodeLabels) else NodeLabels(
        dict(labels), name=node, complete=complete, node_name=node if complete else None)
    placement = place_on(ds.tolerations, ds.selection, taints, [here], discovered=discovered)
    if placement.status == "keptOff":
        if placement.excluded[0][1] == ("nodeName",):
            return NodeVerdict(node, "keptOff", f"its nodeName {shown(ds.selection.node_name)} names another node (the "
                                                "DaemonSet controller runs its pod only on the node of that name)")
        return NodeVerdict(node, "keptOff", _KEPT_BY_LABELS)
    if placement.status == "doesNotRun":
        missing = tuple((s.taint, Toleration.for_taint(s.taint, exists=True)) for s in placement.missing)
        return NodeVerdict(node, "doesNotRun", "; ".join(s.describe() for s in placement.missing), missing,
                           tuple(placement.missing))
    if placement.status == "notJudged":
        why = placement.not_judged_text() if (placement.pending or placement.unknowable or placement.pinned) else (
            "its node affinity has a term the API server rejects (a matchFields key other than metadata.name, or an "
            "unknown operator)" if complete else placement.not_judged_text())
        # Placement's text is a whole clause ("not judged: its node selection reads ..."); a verdict's reason is
        # what follows "not judged" where it is shown (the cell's summary, its details, a starved node's reason).
        return NodeVerdict(node, "notJudged", why.removeprefix("not judged: "))
    return NodeVerdict(node, "runs")


@dataclass
class Cell:
    """One DaemonSet x pool cell: the verdict over the pool's nodes.

    ``missing``: (taint, the toleration that would let it run) per stopping taint; ``stays``: how it fares against
    each of them, in that order. ``evicted_after``: for ``doesNotRun``, when on every node of the pool its pod is
    created and evicted after that many seconds (:attr:`NodeVerdict.evicted_after`); else None."""

    status: str
    summary: str
    details: list[str] = field(default_factory=list)
    missing: list[tuple[Taint, Toleration]] = field(default_factory=list)
    runs_on: int = 0
    stays: list[Stay] = field(default_factory=list)
    evicted_after: int | None = None

    def to_json(self) -> dict[str, Any]:
        stays = self.stays or [None] * len(self.missing)
        return {
            "status": self.status,
            "summary": self.summary,
            "details": list(self.details),
            "missingTolerations": [{"taint": str(t), "addToleration": tol.to_k8s()}
                                   | ({"why": _timed_why(stay)} if stay is not None and stay.tolerated else {})
                                   for (t, tol), stay in zip(self.missing, stays, strict=True)],
        }


def toleration_text(tol: Toleration) -> str:
    """A toleration in YAML flow style: ``{key: nvidia.com/gpu, operator: Exists, effect: ...}``."""
    return "{" + ", ".join(f"{k}: {v}" for k, v in tol.to_k8s().items()) + "}"


def stay_fix(ds: DaemonSet, taint: Taint, tol: Toleration, stay: Stay | None) -> str:
    """The fix for one stopping taint of ``ds``: when the taint is tolerated for a while (``stay``), remove
    ``tolerationSeconds`` from the toleration that matches it first (``stay.toleration``; Kubernetes applies only that
    one, :func:`~gpu_node_pool.policies.workloads.stay_on`, so removing them from a later one changes nothing); else
    tolerate it with ``tol``."""
    if stay is not None and stay.tolerated:
        written = toleration_text(stay.toleration) if stay.toleration is not None else f"of {taint}"
        return f"remove tolerationSeconds from its toleration {written} ({taint} evicts its pod after {stay.evicted_after} s)"
    return f"tolerate {taint} with {toleration_text(tol)}"


def _timed_why(stay: Stay) -> str:
    return (f"tolerated for {stay.evicted_after} s only (tolerationSeconds): the pod is evicted, then recreated; "
            "remove tolerationSeconds from the toleration")


def _stopped_by(stay: Stay) -> str:
    """One stopping taint, as a cell's summary names it."""
    if stay.tolerated:
        return f"{stay.taint} tolerated for {stay.evicted_after} s only (tolerationSeconds)"
    return f"{stay.taint} not tolerated"


def pool_cell(verdicts: list[NodeVerdict]) -> Cell:
    """Aggregate node verdicts into a cell: all alike gives that status, a mix gives ``partial``."""
    if not verdicts:
        return Cell("noNodes", "no nodes in the pool now")
    statuses = {v.status for v in verdicts}
    missing: dict[tuple[str, Any], tuple[tuple[Taint, Toleration], Stay]] = {}
    details = []
    for v in verdicts:
        stays = v.stays or tuple(Stay(taint, False) for taint, _ in v.missing)
        for (taint, tol), stay in zip(v.missing, stays, strict=True):
            missing.setdefault(taint.identity + (taint.value,), ((taint, tol), stay))
        if v.evicted_after is not None:
            details.append(f"runs for {v.evicted_after} s on {v.node}, then is evicted and recreated: {v.reason}; "
                           "remove tolerationSeconds from its toleration")
        elif v.status == "doesNotRun":
            adds = ", ".join(toleration_text(tol) for _, tol in v.missing)
            details.append(f"does not run on {v.node}: {v.reason}; add toleration {adds}")
        elif v.status in ("keptOff", "notJudged"):
            details.append(f"{'kept off' if v.status == 'keptOff' else 'not judged on'} {v.node}: {v.reason}")
        else:
            details.append(f"runs on {v.node}")
    runs = sum(v.status == "runs" for v in verdicts)
    status = statuses.pop() if len(statuses) == 1 else "partial"
    timed = [v.evicted_after for v in verdicts if v.evicted_after is not None]
    evicted_after = min(timed) if status == "doesNotRun" and len(timed) == len(verdicts) else None
    why = ", ".join(_stopped_by(stay) for _, stay in missing.values())
    summary = {
        "runs": f"runs on all {len(verdicts)} node(s)",
        "doesNotRun": (f"runs for {evicted_after} s, then is evicted and recreated: {why}" if evicted_after is not None
                       else f"does not run: {why}"),
        "keptOff": "kept off by its own selection" + (
            f": {verdicts[0].reason}" if len({v.reason for v in verdicts}) == 1 and verdicts[0].reason != _KEPT_BY_LABELS else ""),
        "notJudged": "not judged: " + verdicts[0].reason,
        "partial": f"runs on {runs} of {len(verdicts)} node(s)"
        + ("; stopped by " + ", ".join(
            str(stay.taint) + (f" (tolerated for {stay.evicted_after} s only, then evicted and recreated)"
                               if stay.tolerated else "") for _, stay in missing.values()) if missing else ""),
    }[status]
    return Cell(status, summary, details, [pair for pair, _ in missing.values()], runs,
                [stay for _, stay in missing.values()], evicted_after)


def placement_cell(placement: Any) -> Cell:
    """A pool's cell from its :class:`~gpu_node_pool.policies.placement.Placement` (the plan page's cells),
    with the same status and reason text the pack's coverage rules give."""
    missing = [(s.taint, Toleration.for_taint(s.taint, exists=True)) for s in placement.missing]
    details = [f"{kind}: kept off by {', '.join(keys) or 'its required node affinity'}" for kind, keys in placement.excluded]
    if missing:
        details.append("add toleration " + ", ".join(toleration_text(tol) for _, tol in missing))
    summary = placement.describe()
    if placement.status == "runs":
        summary = "runs on every kind of node of the pool" + summary.removeprefix("runs")
    elif placement.status == "keptOff":
        summary = "kept off by its own selection: " + summary
    elif placement.status == "doesNotRun":
        summary = "does not run: " + summary
    elif placement.status == "partial":
        summary = "runs on some kinds of node only: " + summary
    return Cell(placement.status, summary, details, missing, 0)
