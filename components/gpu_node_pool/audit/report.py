"""Run the audit over a snapshot and build the report (JSON, text, the page's matrix).

The JSON report (``report.schema.json`` beside this file, ``schemaVersion: 1``) has camelCase
keys and the envelope of every ``gpupool`` report (:func:`gpu_node_pool.sdk.outcome.envelope`).
Exit codes (:attr:`AuditReport.exit_code`, by :func:`gpu_node_pool.sdk.outcome.exit_code`, the
rule of every command): 0 clean, 1 a finding at or above ``--fail-on`` or a partial verdict (anything not read or
not judged: :attr:`AuditReport.partial`); 2 (unreadable input), 64
(usage) and 70 (internal error) are decided by the CLI before a report exists.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from ..k8s.selection import with_match_fields
from ..plan.html import Matrix, MatrixCell, MatrixColumn, MatrixRow
from ..policies.daemonset_nodes import Cell, DaemonSet, judge, pool_cell, read_daemonset, toleration_text
from ..sdk.outcome import SCHEMA_VERSION, envelope, exit_code
from ..text.terminal import terminal_text
from .cluster import Node, Pool, detect_platform, group_pools, with_declared
from .declared import Declared, drift
from .device_plugins import live_two_plugins
from .drifted import DriftedTaints, taint_fix
from .findings import Finding, NotJudged, finding_lines
from .name_taken import name_taken_finding, not_the_stacks, stack_labels
from .pending import PendingPod, pending_pods
from .snapshot import Snapshot
from .sources import LISTS
from .starved import starved_reason
from .text_pools import pool_lines
from .transient import count_explained, transient_note
from .unread import unread_daemonset
from .untainted import untainted_findings
from .whatif import KEEP_OFF_FIX, whatif

__all__ = ["SCHEMA_VERSION", "AuditReport", "run_audit", "NO_DAEMONSETS"]

#: Why DaemonSet verdicts are missing when a dump has no DaemonSet list.
NO_DAEMONSETS = "the dump holds no DaemonSets"

NO_NODES = "GET /api/v1/nodes"
NO_GPU_NODES = "GPU nodes"
NO_NODES_WHY = ("no Node was read (a cluster without nodes, or a dump without them: kubectl get "
                "nodes,daemonsets,pods,events -A -o json); no GPU node was judged")


def no_gpu_node_why(nodes: int, whatif: bool) -> str:
    """Why DaemonSet coverage of GPU nodes is not judged when none of the ``nodes`` read is a GPU node
    (:mod:`.cluster`: GPU capacity, a GPU label, an NVIDIA instance type, a declared pool's label); ``whatif``: the
    stack's pools were judged on the nodes they would get (``--stack``)."""
    then = ("the what-if columns judge the stack's GPU pools on the nodes they would get" if whatif else
            "pass --stack STACK for the what-if on the nodes the stack's GPU pools would get, or audit the cluster "
            "that has the GPU nodes")
    return (f"no GPU node among the {nodes} node(s) read (no nvidia.com/gpu capacity, GPU label, NVIDIA instance type "
            f"or declared pool label): DaemonSet coverage of GPU nodes was not judged; {then}")


def _list_failed(snapshot: Snapshot, kind: str) -> bool:
    """Whether the list of ``kind`` was refused or failed (its line is in ``forbidden`` or ``unread``: live only)."""
    what = LISTS[kind][1]
    return any(line.startswith(what) for line in [*snapshot.forbidden, *snapshot.unread])


def _no_pods_why(snapshot: Snapshot) -> str:
    """Why pending pods are not judged when no pods were read: the pods list refused or failed (its ``PARTIAL`` line
    says how; live only), or a dump without pods (:func:`_absent_lists` gives its ``PARTIAL`` line)."""
    pods_list = LISTS["Pod"][1]
    if _list_failed(snapshot, "Pod"):
        return f"no pods were read ({pods_list} was not read: its PARTIAL line says why); pending pods are not judged"
    return "the dump holds no pods: pending pods are not judged (add `kubectl get pods -A -o json` to the dump)"


def _absent_lists(snapshot: Snapshot) -> list[str]:
    """One line per list the verdicts need that a dump does not hold (DaemonSets, Pods; a live list that was refused
    or failed has its own line): what was not read is never clean, as a live 403 on the same list is not. Events are
    optional (the pods' ``PodScheduled`` conditions stand in)."""
    lines = []
    for kind, needed in (("DaemonSet", "which agents cover the GPU pools and why a GPU node is starved are not judged"),
                         ("Pod", "pending pods, the pods on untainted GPU nodes and whether a device plugin's pod is "
                                 "Ready are not judged")):
        if kind not in snapshot.read and not _list_failed(snapshot, kind):
            plural = f"{kind}s"
            lines.append(f"{LISTS[kind][1]}: the dump holds no {plural}: {needed} (add `kubectl get "
                         f"{plural.lower()} -A -o json` to the dump)")
    return lines


def _item_problems(snapshot: Snapshot) -> tuple[list[str], list[str]]:
    """``(items, lists)``: :attr:`.snapshot.Snapshot.problems` split into the items that hold no object (``dump.json
    items[0]: not an object; skipped``), skipped as objects of the wrong shape are, and the admission lists that
    could not be read."""
    items = [line for line in snapshot.problems if line.endswith("; skipped")]
    return items, [line for line in snapshot.problems if not line.endswith("; skipped")]


@dataclass
class Row:
    ds: DaemonSet
    cells: dict[str, Cell]
    rules_say: int
    whatif: dict[str, Cell] = field(default_factory=dict)


@dataclass
class AuditReport:
    source: str
    platform: str
    platform_evidence: str
    events_available: bool
    nodes: list[Node]
    pools: list[Pool]
    rows: list[Row]
    starved: list[dict[str, str]]
    pending: list[PendingPod]
    findings: list[Finding]
    not_judged: list[NotJudged]
    forbidden: list[str]
    notes: list[str]
    stack: str | None = None
    whatif_pools: list[str] = field(default_factory=list)
    fail_on: str = "mandatory"
    #: Lists that failed otherwise than by a 403 (an HTTP error, a ``continue`` chain that never ends).
    unread: list[str] = field(default_factory=list)
    #: Objects left out of every verdict (a field of the wrong shape), one line each.
    skipped: list[str] = field(default_factory=list)
    #: DaemonSets read but judged on no node (a pod spec the API server refuses: :mod:`.unread`), one line each.
    unjudged: list[str] = field(default_factory=list)
    #: Pending pods read but not judged (a pod spec the API server refuses: :func:`.unread.unread_pod`), one line each.
    unjudged_pods: list[str] = field(default_factory=list)
    #: Why DaemonSet coverage of GPU nodes was judged nowhere (nodes read, none a GPU node, no what-if), or "".
    no_gpu_node: str = ""
    #: Lists a dump lacks (DaemonSets, Pods) and admission lists that could not be read, one line each.
    absent: list[str] = field(default_factory=list)
    #: Every other part of the verdict not judged (a GPU count left out of the starved verdict, a DaemonSet not judged
    #: on a pool, whether two device plugins share a node...): ``subject: reason``, one line each, as under Not judged.
    parts_not_judged: list[str] = field(default_factory=list)

    @property
    def lists_not_read(self) -> list[str]:
        """One line per list the verdict lacks: refused (403), failed, absent from the dump, or no Node read at all."""
        missing = [*self.forbidden, *self.unread, *self.absent]
        if not self.nodes:
            missing.append(f"{NO_NODES}: {NO_NODES_WHY}")
        return missing

    @property
    def partial(self) -> bool:
        """The verdict lacks a list (:attr:`lists_not_read`) or an object (:attr:`skipped`, :attr:`unjudged`,
        :attr:`unjudged_pods`), judged DaemonSets on no GPU node (:attr:`no_gpu_node`) or left another part not judged
        (:attr:`parts_not_judged`): what was not read or not judged is never clean."""
        return bool(self.lists_not_read or self.skipped or self.unjudged or self.unjudged_pods or self.no_gpu_node
                    or self.parts_not_judged)

    @property
    def exit_code(self) -> int:
        """0 clean, 1 a finding at or above :attr:`fail_on` (``info``, ``advisory``, ``mandatory``, ``none``),
        or a :attr:`partial` verdict under any ``fail_on`` but ``none`` (what was not read cannot be clean)."""
        code = exit_code((f.level for f in self.findings), self.fail_on)
        return max(int(code), 1) if self.partial and self.fail_on != "none" else int(code)

    @property
    def gpu_pools(self) -> list[Pool]:
        return [p for p in self.pools if p.is_gpu]

    # --- JSON --------------------------------------------------------------------------------
    def to_json(self, cloud_api_called: bool = False) -> dict[str, Any]:
        """``gpupool audit --json``'s report (``report.schema.json``): the envelope (``schemaVersion``,
        ``command: "audit"``, ``exitCode``, ``cloudApiCalled``: true when the snapshot was read from
        a live cluster's API) and the audit's keys."""
        counts = {lvl: sum(f.level == lvl for f in self.findings) for lvl in ("info", "advisory", "mandatory")}
        return envelope("audit", self.exit_code, cloud_api_called=cloud_api_called, **{
            "failOn": self.fail_on,
            "source": self.source,
            "readOnly": True,
            "platform": {"name": self.platform, "evidence": self.platform_evidence},
            "stack": self.stack,
            "eventsAvailable": self.events_available,
            "forbiddenLists": list(self.forbidden),
            "partial": self.partial,
            "listsNotRead": self.lists_not_read,
            "objectsSkipped": [*self.skipped, *self.unjudged, *self.unjudged_pods],
            "summary": {"nodes": len(self.nodes), "gpuNodes": sum(n.is_gpu for n in self.nodes),
                        "gpuPools": len(self.gpu_pools), "daemonSets": len(self.rows), "findings": counts},
            "gpuPools": [
                {
                    "id": p.id, "kind": p.kind, "name": p.name, "label": f"{p.key[0]}={p.key[1]}",
                    "nodes": [
                        {"name": n.name, "taints": [str(t) for t in n.taints], "malformedTaints": [str(b) for b in n.bad_taints],
                         "malformedResources": list(n.bad_resources),
                         "gpuEvidence": n.gpu_evidence, "gpuCapacity": dict(n.gpu_capacity),
                         "gpuAllocatable": dict(n.gpu_allocatable), "starved": n.starved}
                        for n in p.nodes
                    ],
                }
                for p in self.gpu_pools
            ],
            "daemonSets": [
                {
                    "namespace": r.ds.namespace, "name": r.ds.name, "origin": r.ds.origin,
                    "desiredNumberScheduled": r.ds.desired, "nodesByRules": r.rules_say if r.ds.origin == "cluster" else None,
                    "pools": {pid: c.to_json() for pid, c in r.cells.items()},
                    "whatIf": {pid: c.to_json() for pid, c in r.whatif.items()},
                }
                for r in self.rows
            ],
            "starvedNodes": list(self.starved),
            "pendingPods": [
                {"namespace": p.namespace, "name": p.name, "schedulerMessage": p.reason, "reasonSource": p.reason_source,
                 "pools": list(p.pools), "requestsGpu": p.requests_gpu,
                 "missingTolerations": [{"taint": str(t), "addToleration": tol.to_k8s(), "why": why}
                                        for t, tol, why in p.missing if p.requests_gpu]}
                for p in self.pending
            ],
            "findings": [f.to_json() for f in self.findings],
            "notJudged": [n.to_json() for n in self.not_judged],
            "notes": list(self.notes),
        })

    # --- text --------------------------------------------------------------------------------
    def to_text(self) -> str:
        lines = [f"gpupool audit of {self.source} (read-only)", f"platform: {self.platform} ({self.platform_evidence})"]
        if self.stack:
            lines.append(f"declared pools: stack {self.stack!r} (offline plan, no cloud API called)")
        for line in [*self.lists_not_read, *self.skipped, *self.unjudged, *self.unjudged_pods,
                     *([self.no_gpu_node] if self.no_gpu_node else []), *self.parts_not_judged]:
            lines.append(f"PARTIAL: {line}")
        if not self.events_available:
            lines.append("no events read: pending reasons come from the pods' PodScheduled conditions")
        lines.append("")
        lines.append("GPU pools:")
        lines += pool_lines(self.gpu_pools) or ([f"  none: no GPU node among the {len(self.nodes)} node(s) read"]
                                                if self.nodes else [])
        lines.append("")
        lines.append("DaemonSet x GPU pool:")
        for r in self.rows:
            lines.append(f"  {r.ds.display}{' (as the stack would deploy it)' if r.ds.origin == 'stack' else ''}")
            for pid, c in r.cells.items():
                lines.append(f"    {pid}: {c.summary}")
            for pid, c in r.whatif.items():
                lines.append(f"    what-if {pid}: {c.summary}")
            if self.nodes and not self.gpu_pools and r.ds.origin == "cluster":
                lines.append(f"    {NO_GPU_NODES}: not judged (no GPU node read)")
        if self.findings:
            lines.append("")
            lines.append("Findings:")
            lines += [f"  {line}" for line in finding_lines(self.findings)]
        if self.not_judged:
            lines.append("")
            lines.append("Not judged:")
            lines += [f"  {n.subject}: {n.reason}" for n in self.not_judged]
        if self.notes:
            lines.append("")
            lines.append("Notes:")
            lines += [f"  {note}" for note in self.notes]
        lines.append("")
        counts = ", ".join(f"{sum(f.level == lvl for f in self.findings)} {lvl}" for lvl in ("mandatory", "advisory", "info"))
        missing = [f"{n} {what}" for n, what in ((len(self.lists_not_read), "list(s) not read"),
                                                 (len(self.skipped), "object(s) not read"),
                                                 (len(self.unjudged), "DaemonSet(s) judged on no node"),
                                                 (len(self.unjudged_pods), "Pending pod(s) not judged"),
                                                 (len(self.parts_not_judged), "other part(s) not judged")) if n]
        missing += ["no GPU node judged"] if self.no_gpu_node else []
        partial = f"; PARTIAL verdict: {', '.join(missing)}" if self.partial else ""
        lines.append(f"{counts}{partial}; exit {self.exit_code} (--fail-on {self.fail_on})")
        return terminal_text(lines)

    # --- the page's matrix -------------------------------------------------------------------
    def matrix(self) -> Matrix:
        columns = tuple(
            MatrixColumn(p.id, tuple(sorted({str(t) for n in p.nodes for t in n.steady_taints})), len(p.nodes),
                         _shared_labels(p))
            for p in self.gpu_pools
        )
        whatif = tuple(self.whatif_pools)
        rows = []
        for r in self.rows:
            if r.ds.origin == "stack":
                cells = tuple(MatrixCell("notJudged", "not in the cluster: the stack's version, judged in the what-if columns")
                              for _ in columns)
            else:
                cells = tuple(_mcell(r.cells.get(c.id)) for c in columns)
            wcells = tuple(_mcell(r.whatif.get(pid)) for pid in whatif)
            label = r.ds.display + (" (stack)" if r.ds.origin == "stack" else "")
            rows.append(MatrixRow(label, cells, wcells))
        lists = (
            ("Findings", tuple(finding_lines(self.findings, " Fix: "))),
            ("Drift", tuple(f"{f.subject}: {f.message}" for f in self.findings
                            if f.code in ("imperative-taint", "declared-taint-missing", "label-drift", "taint-value-drift"))),
            ("GPU-starved nodes", tuple(f"{s['node']}: {s['reason']}" for s in self.starved)),
            ("Pending pods blocked by GPU taints", tuple(f"{p.display}: {p.reason}" for p in self.pending)),
            ("Not judged", tuple(f"{n.subject}: {n.reason}" for n in self.not_judged)),
        )
        subtitle = f"{self.source}; platform {self.platform}" + (f"; stack {self.stack}" if self.stack else "")
        return Matrix("gpupool audit: DaemonSet x GPU pool", subtitle, columns, tuple(rows), whatif, lists)


def _shared_labels(pool: Pool) -> tuple[str, ...]:
    """``key=value`` of the labels every node of ``pool`` carries, sorted; a node's own (its hostname) drop
    out, and so does the label naming the pool (``pool.key``: the column's name says it)."""
    if not pool.nodes:
        return ()
    shared = set(pool.nodes[0].labels.items())
    for node in pool.nodes[1:]:
        shared &= set(node.labels.items())
    return tuple(f"{k}={v}" for k, v in sorted(shared) if k != pool.key[0])


def _mcell(cell: Cell | None) -> MatrixCell:
    if cell is None:
        return MatrixCell("notJudged", "not evaluated", ())
    return MatrixCell(cell.status, cell.summary, tuple(cell.details))


def _read_daemonset(obj: Any, platform: str, plugins: list[str] | None, origin: str = "cluster") -> DaemonSet:
    """:func:`~gpu_node_pool.policies.daemonset_nodes.read_daemonset`, with the ``matchFields`` of its required node
    affinity read too: the audit knows each node's name, which decides them
    (:func:`~gpu_node_pool.k8s.selection.with_match_fields`)."""
    ds = read_daemonset(obj, platform, plugins, origin=origin)
    if ds.selection is not None and any(fields for _, fields in ds.selection.terms):
        required = (((ds.pod_spec.get("affinity") or {}).get("nodeAffinity") or {})
                    .get("requiredDuringSchedulingIgnoredDuringExecution"))
        ds.selection = replace(ds.selection, terms=with_match_fields(ds.selection.terms, required))
    return ds


def run_audit(
    snapshot: Snapshot,
    *,
    platform: str | None = None,
    admission_plugins: Iterable[str] | None = None,
    declared: Declared | None = None,
    fail_on: str = "mandatory",
) -> AuditReport:
    """Judge ``snapshot`` (and, with ``declared``, drift and the what-if). Pure: no I/O."""
    plugins = list(admission_plugins) if admission_plugins is not None else None
    declared_names = [p.name for p in declared.pools] if declared else []
    nodes = [with_declared(node, declared_names) for node in snapshot.nodes]
    evidence = "--platform"
    if platform is None:
        platform, evidence = detect_platform(nodes)
    pools = group_pools(nodes)
    findings: list[Finding] = []
    not_judged: list[NotJudged] = []
    notes: list[str] = list(snapshot.notes)  # what was read and needs no verdict: objects read twice, other kinds
    for node in nodes:
        for bad in node.bad_taints:
            findings.append(Finding("mandatory", "malformed-taint", f"Node {node.name}", f"{bad}; it was left out of every verdict",
                                    bad.fix))
    absent = _absent_lists(snapshot)
    item_problems, admission_unread = _item_problems(snapshot)
    absent += admission_unread
    skipped = [*item_problems, *snapshot.skipped]
    for line in [*snapshot.forbidden, *snapshot.unread]:
        not_judged.append(NotJudged(line.split(":")[0], line))
    for line in absent:
        subject, _, reason = line.partition(": ")
        not_judged.append(NotJudged(subject, reason))
    if not nodes:
        not_judged.append(NotJudged(NO_NODES, NO_NODES_WHY))
    for line in skipped:
        not_judged.append(NotJudged("dump", line))
    told = len(not_judged)  # each item so far has its own PARTIAL line (a list, an object); later ones are marked
    own_line: set[int] = set()  # the id of each later item that has its own PARTIAL line too
    # Taints a controller puts on a node it drains or deletes: said once per GPU node, no part of any verdict.
    notes += [transient_note(f"Node {node.name}", t) for node in nodes if node.is_gpu for t in node.transient_taints]
    for node in nodes:
        for bad in node.bad_resources:
            not_judged.append(NotJudged(f"Node {node.name}", f"{bad}; this resource was left out of the GPU-starved verdict"))

    # Drift first: a taint drift says to remove is not one any other finding says to tolerate (:mod:`.drifted`).
    dfind, dnotes = drift(declared, nodes) if declared is not None else ([], [])
    drifted = DriftedTaints.of(dfind)

    # GPU pools whose GPU nodes no taint keeps other pods off (the live side of the pack's gpu-pool-declares-taint).
    findings += untainted_findings(pools, snapshot.workloads if "Pod" in snapshot.read else None, dfind)

    # DaemonSets: the cluster's, with the stack's own replacing theirs in the what-if. One judged on no node (a pod
    # spec the API server refuses) is listed once, each refused field with its reason, and makes the verdict partial.
    daemonsets = []
    unjudged: list[str] = []
    for ds in (_read_daemonset(obj, platform, plugins) for obj in snapshot.daemonsets):
        if ds.problem:
            unread = unread_daemonset(ds)
            ds = unread.ds
            not_judged += unread.items
            own_line.update(map(id, unread.items))
            unjudged.append(unread.line)
        daemonsets.append(ds)
    rows: list[Row] = []
    gpu_pools = [p for p in pools if p.is_gpu]
    verdicts_by_node: dict[str, dict[str, Any]] = {n.name: {} for n in nodes}
    for ds in daemonsets:
        node_verdicts = {n.name: judge(ds, n.name, n.labels, n.steady_taints) for n in nodes}
        for name, v in node_verdicts.items():
            verdicts_by_node[name][ds.display] = v
        cells = {p.id: pool_cell([node_verdicts[n.name] for n in p.nodes]) for p in gpu_pools}
        rules_say = sum(v.placed for v in node_verdicts.values())  # a pod evicted after tolerationSeconds counts
        # the same count with the transient taints too: the status may have been counted with them
        rules_now = rules_say + sum(judge(ds, n.name, n.labels, n.taints).placed - node_verdicts[n.name].placed
                                    for n in nodes if n.transient_taints)
        rows.append(Row(ds, cells, rules_say))
        for p in gpu_pools:
            cell = cells[p.id]
            if cell.status in ("doesNotRun", "partial"):
                stays = cell.stays or [None] * len(cell.missing)
                names = [n.name for n in p.nodes]
                fixes = [taint_fix(ds, t, tol, stay, names, drifted)
                         for (t, tol), stay in zip(cell.missing, stays, strict=True)]
                # the taints no drift finding names (or keep it off), then each drifted one with what drift says;
                # stopped by drift alone, it tolerates what the pool declares: meant for these nodes, not kept off
                own = "; ".join(fix for fix, by_drift in fixes if not by_drift)
                by_drift = [fix for fix, by_drift in fixes if by_drift]
                adds = "; ".join(([f"{own}, or {KEEP_OFF_FIX}"] if own else []) + by_drift)
                nowhere = " It runs on no node at all." if rules_say == 0 else ""
                findings.append(Finding("mandatory", "daemonset-does-not-run", f"DaemonSet {ds.display}",
                    f"in {p.id}: {cell.summary}.{nowhere}", adds, p.id))
            elif cell.status == "notJudged" and not ds.problem:  # a DaemonSet judged on no node is listed once, above
                not_judged.append(NotJudged(f"DaemonSet {ds.display} on {p.id}", cell.summary))
        if (ds.desired is not None and ds.desired != rules_say and not ds.problem
                and count_explained(ds.desired, rules_say, rules_now)):
            notes.append(f"DaemonSet {ds.display}: status.desiredNumberScheduled is {ds.desired}; the taint and selection "
                         f"rules say {rules_say} node(s) without the transient taints and {rules_now} with them: nodes a "
                         "controller is draining or deleting explain the difference (their notes say which)")
        elif ds.desired is not None and ds.desired != rules_say and not ds.problem:
            findings.append(Finding("advisory", "daemonset-count-mismatch", f"DaemonSet {ds.display}",
                f"status.desiredNumberScheduled is {ds.desired} but the taint and selection rules say {rules_say} node(s): "
                "a rule the audit does not model is at work (a node changing state, a stale status)",
                "kubectl describe daemonset and compare its nodes with the verdicts"))

    # Two NVIDIA device plugins on one live GPU node, by the detector the what-if uses.
    pfind, pjudged = live_two_plugins(gpu_pools, daemonsets, verdicts_by_node)
    findings += pfind
    not_judged += pjudged

    # GPU-starved nodes.
    starved = []
    pods_read = "Pod" in snapshot.read
    ds_read = "DaemonSet" in snapshot.read
    no_daemonsets = (f"{LISTS['DaemonSet'][1]} was not read: its PARTIAL line says why" if _list_failed(snapshot, "DaemonSet")
                     else NO_DAEMONSETS)
    for node in nodes:
        if node.starved and not ds_read:
            not_judged.append(NotJudged(f"Node {node.name}", f"no GPU resource is allocatable; why is not judged: {no_daemonsets}"))
        elif node.starved:
            reason, fix = starved_reason(node, verdicts_by_node[node.name], daemonsets,
                                         snapshot.pod_states if pods_read else None, drifted)
            pool = node.pool[1] if node.pool else ""
            starved.append({"node": node.name, "pool": pool, "reason": reason, "fix": fix})
            findings.append(Finding("mandatory", "gpu-node-starved", f"Node {node.name}",
                                    f"no GPU resource is allocatable: {reason}", fix, pool))

    # Pending pods.
    pending: list[PendingPod] = []
    unjudged_pods: list[str] = []
    if not pods_read:
        not_judged.append(NotJudged("pending pods", _no_pods_why(snapshot)))
        own_line.add(id(not_judged[-1]))  # its list's PARTIAL line says it
    else:
        failed = snapshot.failed_scheduling if "Event" in snapshot.read else None
        pending, unread_pods = pending_pods(snapshot.pending, failed, nodes, platform, plugins)
        for unread_pod in unread_pods:  # listed with why, and the verdict partial: what was not judged is never clean
            not_judged += unread_pod.items
            own_line.update(map(id, unread_pod.items))
            unjudged_pods.append(unread_pod.line)
        for p in pending:
            if p.requests_gpu:
                fix = "; ".join(f"{t}: {why}; add {toleration_text(tol)}" for t, tol, why in p.missing) or "read the scheduler message"
            else:  # a GPU toleration would put it on GPU nodes, which the allow-list forbids
                taints = ", ".join(sorted({str(t) for t, _, _ in p.missing}))
                fix = (f"it requests no GPU: keep it off GPU nodes (a nodeSelector or required node affinity for nodes "
                       f"without the GPU taints{' ' + taints if taints else ''}), or add CPU nodes it can run on; do not "
                       "add a GPU toleration (gpu-toleration-allowlist forbids it for workloads that request no GPU)")
            findings.append(Finding("advisory", "pending-gpu-taint", f"Pod {p.display}",
                f"Pending ({p.reason_source}: {p.reason})", fix, ", ".join(p.pools)))

    whatif_pools: list[str] = []
    if declared is not None:
        findings += dfind
        notes += dnotes
        stack_ds = []
        for ds in (_read_daemonset(obj, platform, plugins, origin="stack") for obj in declared.daemonsets):
            if ds.problem:
                unread = unread_daemonset(ds, stack_pools=[p.name for p in declared.pools])
                ds = unread.ds
                not_judged += unread.items
                own_line.update(map(id, unread.items))
                unjudged.append(unread.line)
            stack_ds.append(ds)
        rows += [Row(ds, {}, 0) for ds in stack_ds]
        labels = stack_labels(declared.daemonsets)
        managed = {(d.namespace, d.name) for d in stack_ds}
        for live in daemonsets:  # the cluster's, of a name the stack gives one of its own
            key = (live.namespace, live.name)
            missing = not_the_stacks(live, labels.get(key, {})) if key in managed else []
            if missing:
                managed.discard(key)
                findings.append(name_taken_finding(live, missing, declared.stack))
        whatif_pools = whatif(declared, nodes, rows, managed, findings, not_judged)

    # Nodes, none a GPU node: no DaemonSet was judged on one. Never a silent pass: said, and partial unless the
    # what-if judged the stack's pools on the nodes they would get.
    no_gpu_node = ""
    if nodes and not gpu_pools:
        why = no_gpu_node_why(len(nodes), bool(whatif_pools))
        not_judged.append(NotJudged(NO_GPU_NODES, why))
        own_line.add(id(not_judged[-1]))  # partial with its own line, or judged by the what-if instead
        no_gpu_node = "" if whatif_pools else why

    # The admission guard: installed, its action, drift against the declared pools.
    from .admission import admission_verdicts

    afindings, ajudged, anotes = admission_verdicts(snapshot.admission, "admission" in snapshot.read, declared)
    findings += afindings
    not_judged += ajudged
    notes += anotes
    # Every other part not judged makes the verdict partial too, with a PARTIAL line each.
    parts = [f"{n.subject}: {n.reason}" for n in not_judged[told:] if id(n) not in own_line]

    return AuditReport(
        source=snapshot.source, platform=platform, platform_evidence=evidence,
        events_available="Event" in snapshot.read, nodes=nodes, pools=pools, rows=rows, starved=starved,
        pending=pending, findings=findings, not_judged=not_judged, forbidden=list(snapshot.forbidden), notes=notes,
        unread=list(snapshot.unread), skipped=skipped, unjudged=unjudged, unjudged_pods=unjudged_pods,
        no_gpu_node=no_gpu_node, absent=absent, parts_not_judged=parts,
        stack=declared.stack if declared else None, whatif_pools=whatif_pools, fail_on=fail_on,
    )
