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
   run*. A ``NoExecute`` taint tolerated only for ``tolerationSeconds`` counts as "does not run"
   (evicted after N s). ``PreferNoSchedule`` never stops a daemon pod.

A template whose placement fields the API server refuses (:mod:`gpu_node_pool.k8s.refusals`: ``tolerations``
no list, a ``nodeSelector`` value no string, ``In`` without values...) is not judged, with that reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..k8s.selection import NodeLabels
from ..k8s.taints import Taint, TaintError, Toleration, effective_tolerations
from ..k8s.wellknown import SECRET, UNKNOWN
from ..text.terminal import shown
from .workloads import NodeSelection

__all__ = ["DaemonSet", "read_daemonset", "NodeVerdict", "judge", "Cell", "pool_cell", "placement_cell", "STATUSES",
           "toleration_text"]

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
    if ds.selection is not None and ds.selection.refused:
        ds.problem = ds.problem or f"spec.template.spec.{ds.selection.refused}"
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
        return NodeVerdict(node, "doesNotRun", "; ".join(s.describe() for s in placement.missing), missing)
    if placement.status == "notJudged":
        why = placement.not_judged_text() if (placement.pending or placement.unknowable or placement.pinned) else (
            "its node affinity uses matchFields or an operator the API server rejects" if complete else placement.not_judged_text())
        # Placement's text is a whole clause ("not judged: its node selection reads ..."); a verdict's reason is
        # what follows "not judged" where it is shown (the cell's summary, its details, a starved node's reason).
        return NodeVerdict(node, "notJudged", why.removeprefix("not judged: "))
    return NodeVerdict(node, "runs")


@dataclass
class Cell:
    """One DaemonSet x pool cell: the verdict over the pool's nodes."""

    status: str
    summary: str
    details: list[str] = field(default_factory=list)
    missing: list[tuple[Taint, Toleration]] = field(default_factory=list)
    runs_on: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "summary": self.summary,
            "details": list(self.details),
            "missingTolerations": [{"taint": str(t), "addToleration": tol.to_k8s()} for t, tol in self.missing],
        }


def toleration_text(tol: Toleration) -> str:
    """A toleration in YAML flow style: ``{key: nvidia.com/gpu, operator: Exists, effect: ...}``."""
    return "{" + ", ".join(f"{k}: {v}" for k, v in tol.to_k8s().items()) + "}"


def pool_cell(verdicts: list[NodeVerdict]) -> Cell:
    """Aggregate node verdicts into a cell: all alike gives that status, a mix gives ``partial``."""
    if not verdicts:
        return Cell("noNodes", "no nodes in the pool now")
    statuses = {v.status for v in verdicts}
    missing: dict[tuple[str, Any], tuple[Taint, Toleration]] = {}
    details = []
    for v in verdicts:
        for taint, tol in v.missing:
            missing.setdefault(taint.identity + (taint.value,), (taint, tol))
        if v.status == "doesNotRun":
            adds = ", ".join(toleration_text(tol) for _, tol in v.missing)
            details.append(f"does not run on {v.node}: {v.reason}; add toleration {adds}")
        elif v.status in ("keptOff", "notJudged"):
            details.append(f"{'kept off' if v.status == 'keptOff' else 'not judged on'} {v.node}: {v.reason}")
        else:
            details.append(f"runs on {v.node}")
    runs = sum(v.status == "runs" for v in verdicts)
    status = statuses.pop() if len(statuses) == 1 else "partial"
    summary = {
        "runs": f"runs on all {len(verdicts)} node(s)",
        "doesNotRun": "does not run: " + ", ".join(f"{t} not tolerated" for t, _ in missing.values()),
        "keptOff": "kept off by its own selection" + (
            f": {verdicts[0].reason}" if len({v.reason for v in verdicts}) == 1 and verdicts[0].reason != _KEPT_BY_LABELS else ""),
        "notJudged": "not judged: " + verdicts[0].reason,
        "partial": f"runs on {runs} of {len(verdicts)} node(s)"
        + ("; stopped by " + ", ".join(str(t) for t, _ in missing.values()) if missing else ""),
    }[status]
    return Cell(status, summary, details, list(missing.values()), runs)


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
