"""The what-if of ``gpupool audit --stack``: every DaemonSet judged on the nodes each declared pool would get, and
what the audit says about it.

A column ``pool <name> as declared`` per declared pool, judged on :func:`.declared.whatif_nodes` (the pool's live nodes
with the stack's taints and labels, or, for a pool with no node yet, one made-up node per kind of node the plan knows).
Findings, per DaemonSet of the cluster and declared pool, judged as the audit judges the live GPU pools
(:mod:`.report`: ``daemonset-does-not-run``, mandatory; :mod:`.starved`: a GPU node no device plugin covers, mandatory)
and as the pack's ``daemonsets-tolerate-gpu-taints`` and ``device-plugin-covers-gpu-pools`` rules do (both mandatory;
``policies/rules/``):

* ``whatif-would-stop`` (mandatory): it runs on a live node of the pool now, and the declared taints would stop it.
  The fix per taint: the toleration to add, or, for a ``NoExecute`` taint whose first matching toleration has
  ``tolerationSeconds``, to remove them from that one (Kubernetes applies only the first match:
  :func:`~gpu_node_pool.policies.workloads.stay_on`; :func:`~gpu_node_pool.policies.daemonset_nodes.stay_fix`).
* ``whatif-does-not-run`` (mandatory): a taint of the pool's nodes-to-be that it does not tolerate for good, and that no
  finding names already: a taint its pod already fails on a live node of the pool is the live pool's
  ``daemonset-does-not-run``, a taint that stops it where it runs now is ``whatif-would-stop``. The fix: the toleration
  to add (or the ``tolerationSeconds`` to remove), or to keep it off GPU nodes by its selection, the way the pack
  accepts for a DaemonSet that is not for GPU nodes; not that way out for a device plugin those nodes need (below),
  whose finding says they would advertise no ``nvidia.com/gpu``.
* ``whatif-kept-off``: its own selection (``nodeSelector``, required node affinity) keeps it off some of the pool's
  nodes-to-be, naming each label key that refuses them and what the nodes carry:

  - mandatory for the NVIDIA device plugin (:func:`.starved.is_device_plugin`, the agent the audit requires on GPU
    nodes), on a pool whose nodes get their plugin from a DaemonSet (the pool's ``device_plugin_source`` is
    ``none``: not Bottlerocket NVIDIA, EKS Auto Mode or GKE, whose nodes run their own) when no device plugin, the
    cluster's or the stack's, would run on those nodes: they would advertise no ``nvidia.com/gpu`` (the kubelet
    advertises a device only once a device plugin registers it:
    https://kubernetes.io/docs/concepts/extend-kubernetes/compute-storage-net/device-plugins/; which images run
    their own plugin: ``PoolBase.device_plugin_source`` in ``gpu_node_pool/config/common.py``);
  - advisory for any other DaemonSet that runs on a GPU node of the cluster now: it is meant for GPU nodes and
    would miss these;
  - nothing otherwise: keeping off GPU nodes by its selection is what the pack asks of a DaemonSet not meant for them.

  A node its selection keeps off now already is the live pool's (the audit's own columns), not reported again.
* ``whatif-stack-daemonset`` (mandatory): a DaemonSet the stack deploys would not run on the pool's nodes.
* ``whatif-two-device-plugins`` (mandatory, as the pack's ``device-plugin-covers-gpu-pools`` says of two plugins
  landing on one pool): two NVIDIA device plugins (:func:`.starved.is_device_plugin`; the cluster's, the stack's)
  would run on one of the pool's nodes (or kinds of node), or one would run where the node image runs its own
  (``device_plugin_source`` ``image``: Bottlerocket NVIDIA, EKS Auto Mode). Each registers ``nvidia.com/gpu`` with
  the node's kubelet, whose device manager keeps one endpoint per resource name and replaces it on each
  registration (kubernetes/kubernetes ``pkg/kubelet/cm/devicemanager/manager.go``, ``registerEndpoint``;
  https://kubernetes.io/docs/concepts/extend-kubernetes/compute-storage-net/device-plugins/), so the GPUs flap
  between them. The finding names every such DaemonSet and the fix for each: remove the cluster's, or turn the
  stack's off (``gpu-node-pools:devicePlugin: {enabled: false}`` for the chart the stack installs from it,
  :attr:`.declared.Declared.plugin_namespace`).

The nodes the what-if judges carry the labels the stack's discovery agents would set once they run there
(:attr:`.declared.Declared.discovery`; :func:`~gpu_node_pool.k8s.discovery.labels_once_discovered`): on a live node the
label a selection reads and the node lacks, on a kind of node through the placement verdict's ``discovered``. So the
device plugin the stack's GPU Operator would create (:func:`.declared.operator_plugin_daemonset`, selecting
``nvidia.com/gpu.deploy.device-plugin=true``, which the operator sets on every NVIDIA GPU node without a value for it)
is judged where it would run; its fix in ``whatif-two-device-plugins`` is that label set to ``false`` on the pool
(``pools[i].labels``: the operator leaves a deploy label a node already has, NVIDIA/gpu-operator@v26.7.0
``controllers/state_manager.go``).

A what-if cell not judged (a selection reading a label no one is known to set...) is listed as not judged, with why,
and so is an agent of the stack the audit could not model (:attr:`.declared.Declared.unmodelled`), once.
A DaemonSet that cannot be read (a pod spec the API server refuses, a part unknown before apply), the cluster's or the
one the stack deploys, is listed once by :mod:`.report` (:mod:`.unread`: each refused field, and for the stack's that
the fix belongs in the stack), not per pool here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from ..k8s.discovery import OPERATOR_DEPLOY_PREFIX, labels_once_discovered
from ..k8s.selection import NodeLabels, excluding_keys
from ..k8s.taints import Taint, Toleration
from ..k8s.wellknown import NVIDIA_GPU_RESOURCE
from ..policies.daemonset_nodes import Cell, DaemonSet, NodeVerdict, judge, pool_cell, stay_fix
from ..policies.workloads import Stay
from .cluster import Node
from .declared import Declared, DeclaredPool, whatif_nodes
from .device_plugins import REGISTERS, plugins_together
from .findings import Finding, NotJudged
from .starved import is_device_plugin

__all__ = ["whatif", "on_new_nodes", "KEEP_OFF_FIX"]

#: The other way out the audit offers a DaemonSet that does not tolerate a GPU pool's taints (the pack's
#: ``daemonsets-tolerate-gpu-taints`` accepts it): not to run there at all.
KEEP_OFF_FIX = "keep it off GPU nodes explicitly (nodeSelector/required node affinity)"

#: How a finding says to widen a DaemonSet's node selection.
_WIDEN = "widen its node selection (nodeSelector/required node affinity) to admit them"


class _Row(Protocol):
    """A row of the report (:class:`.report.Row`): the DaemonSet, its live pools' cells, its what-if cells."""

    ds: DaemonSet
    cells: dict[str, Cell]
    whatif: dict[str, Cell]


@dataclass(frozen=True)
class _Column:
    """One declared pool as the what-if judges it: its nodes-to-be (``shapes``, from :func:`.declared.whatif_nodes`),
    whether they are made up (no live node yet), and per kind of node whether a device plugin would run there."""

    pool: DeclaredPool
    name: str
    shapes: list[tuple[str, NodeLabels, list[Taint]]]
    made_up: bool
    covered: tuple[bool, ...]


def whatif(declared: Declared, nodes: list[Node], rows: Sequence[_Row], managed: set[tuple[str, str]],
           findings: list[Finding], not_judged: list[NotJudged]) -> list[str]:
    """Fill ``row.whatif`` of every row (the cluster's DaemonSets and, ``origin == "stack"``, the stack's) for each
    declared pool, and add the findings and not-judged items of the module docstring. ``managed``:
    ``(namespace, name)`` of the cluster's DaemonSets the stack deploys and that carry its labels (judged in their
    stack row; one of the same name without them is judged as the cluster's: :mod:`.name_taken`). Returns the
    column names, ``pool <name> as declared``, in the order the stack declares the pools."""
    live = {n.name: n for n in nodes}
    not_judged += [NotJudged(subject, why) for subject, why in declared.unmodelled]
    keys = tuple(dict.fromkeys(k for row in rows if row.ds.selection is not None for k in row.ds.selection.keys))
    columns = []
    for pool in declared.pools:
        name = f"pool {pool.name} as declared"
        columns.append(name)
        shapes = _once_discovered(whatif_nodes(pool, nodes), keys, declared.discovery)
        made_up = not any(node in live for node, _, _ in shapes)  # the pool has no node yet: its kinds of node
        judged: list[tuple[_Row, list[NodeVerdict]]] = []
        for row in rows:
            if row.ds.origin == "cluster" and (row.ds.namespace, row.ds.name) in managed:
                row.whatif[name] = Cell("notJudged", "the stack deploys one of this name: judged in its (stack) row")
                continue
            would = [judge(row.ds, node, labels, taints, discovered=declared.discovery) for node, labels, taints in shapes]
            cell = pool_cell(would)
            row.whatif[name] = replace(cell, summary=on_new_nodes(row.ds, cell, would, shapes, "its")) if made_up else cell
            judged.append((row, would))
        covered = tuple(any(is_device_plugin(r.ds) and would[i].status == "runs" for r, would in judged)
                        for i in range(len(shapes)))
        column = _Column(pool, name, shapes, made_up, covered)
        findings += _two_plugins(declared, column, judged)
        for row, would in judged:
            cell = row.whatif[name]
            if cell.status == "notJudged" and not row.ds.problem:  # a DaemonSet not read is listed once, not per pool
                not_judged.append(NotJudged(f"DaemonSet {row.ds.display} on {name}", cell.summary))
            if row.ds.origin == "stack":
                findings += _stack_findings(row, column, would, cell)
            else:
                now = [_live_verdict(row.ds, live.get(node)) for node, _, _ in shapes]
                findings += _cluster_findings(row, column, would, now)
    return columns


def _once_discovered(shapes: list[tuple[str, NodeLabels, list[Taint]]], keys: Sequence[Any],
                     installed: Sequence[str]) -> list[tuple[str, NodeLabels, list[Taint]]]:
    """``shapes`` with, on each live node (labels ``complete``), the labels among ``keys`` (those the DaemonSets'
    selections read) that the ``installed`` discovery agents would set there and it lacks
    (:func:`~gpu_node_pool.k8s.discovery.labels_once_discovered`; a value not known ahead is carried as unknown).
    A kind of node is left as it is: the placement verdict adds them itself (``discovered``)."""
    if not installed or not keys:
        return shapes
    out = []
    for node, labels, taints in shapes:
        if labels.complete:
            known, carried = labels_once_discovered(keys, labels.labels, installed)
            if known or carried:
                labels = labels.adding(known, carried)
        out.append((node, labels, taints))
    return out


def _two_plugins(declared: Declared, column: _Column, judged: list[tuple[_Row, list[NodeVerdict]]]) -> list[Finding]:
    """``whatif-two-device-plugins`` (module docstring) on one declared pool: the device plugins of ``judged`` (each
    row with its verdicts on ``column.shapes``) that would run where another plugin runs, or where the node image
    runs its own (:func:`.device_plugins.plugins_together`, the detector the live audit uses too)."""
    pool = column.pool
    own = pool.device_plugin_source == "image"
    where, which = plugins_together([(row.ds, would) for row, would in judged], len(column.shapes), own)
    if not where:
        return []
    rows = [judged[k][0] for k in which]
    names = [_plugin_name(row) for row in rows]
    subject = ("DaemonSet " if len(rows) == 1 else "DaemonSets ") + " and ".join(
        row.ds.display + (" (stack)" if row.ds.origin == "stack" else "") for row in rows)
    if own:
        message = (f"{' and '.join(names)} would run on {_on(column, where, 'taints and labels')}, whose node image "
                   f"already runs NVIDIA's device plugin (Bottlerocket NVIDIA variants, EKS Auto Mode): each {REGISTERS}")
    else:
        message = (f"{len(rows)} NVIDIA device plugins would run on {_on(column, where, 'taints and labels')}: "
                   f"{', '.join(names)}; each {REGISTERS}")
    if own:
        fix = "; ".join(f"keep {row.ds.display} off pool {pool.name}'s nodes (a required node affinity on the pools "
                        "that need it)" + (" in the stack" if row.ds.origin == "stack" else "") for row in rows)
    else:
        fix = "keep one device plugin per node: " + ", or ".join(_plugin_fix(declared, pool, row) for row in rows)
    return [Finding("mandatory", "whatif-two-device-plugins", subject, message, fix, pool.name)]


def _plugin_name(row: _Row) -> str:
    return f"{row.ds.display} ({'the stack' if row.ds.origin == 'stack' else 'the cluster'}'s)"


def _plugin_fix(declared: Declared, pool: DeclaredPool, row: _Row) -> str:
    """How to do without the device plugin of ``row`` on ``pool``: the cluster's is removed, the stack's chart is turned
    off in the stack config, the stack's GPU Operator's kept off the pool by its deploy label, any other DaemonSet of
    the stack is removed from its program."""
    ds = row.ds
    if row.ds.origin != "stack":
        return f"remove the cluster's {ds.display} (kubectl -n {ds.namespace} delete daemonset {ds.name})"
    if ds.namespace == declared.plugin_namespace:
        return (f"turn the stack's {ds.display} off (gpu-node-pools:devicePlugin: {{enabled: false}} in stack "
                f"{declared.stack})")
    if (ds.namespace, ds.name) == declared.operator_plugin:
        return (f"keep the stack's GPU Operator's {ds.display} off pool {pool.name}'s nodes "
                f"({OPERATOR_DEPLOY_PREFIX}device-plugin: 'false' in {pool.where}.labels of stack {declared.stack}: the "
                "operator leaves a deploy label the node already has, NVIDIA/gpu-operator@v26.7.0 controllers/state_manager.go)")
    return f"remove the stack's {ds.display} from its program"


def _live_verdict(ds: DaemonSet, node: Node | None) -> NodeVerdict | None:
    """``ds`` on a live node as it is now (its own taints and labels), or None for a made-up node."""
    return None if node is None else judge(ds, node.name, node.labels, node.steady_taints)


def _stack_findings(row: _Row, column: _Column, would: list[NodeVerdict], cell: Cell) -> list[Finding]:
    """A DaemonSet the stack deploys that would not run on the pool's nodes (``whatif-stack-daemonset``), and the
    device plugin it deploys kept off nodes no plugin would cover (``whatif-kept-off``)."""
    pool = column.pool
    out = []
    if cell.status in ("doesNotRun", "partial") and cell.missing:
        whose = f"pool {pool.name}'s"
        said = (f"it {on_new_nodes(row.ds, cell, would, column.shapes, whose)}" if column.made_up
                else f"it {cell.summary} on pool {pool.name}")
        out.append(Finding("mandatory", "whatif-stack-daemonset", f"DaemonSet {row.ds.display} (stack)",
                           f"as the stack would deploy it, {said}", "fix its tolerations in the stack", pool.name))
    return out + _kept_off(row, column, would, [None] * len(would), "(stack)")


def _cluster_findings(row: _Row, column: _Column, would: list[NodeVerdict], now: list[NodeVerdict | None]) -> list[Finding]:
    """The findings of a cluster DaemonSet on one declared pool (module docstring)."""
    ds, pool = row.ds, column.pool
    out = []
    stopped = [(nv, wv) for nv, wv in zip(now, would, strict=True)
               if nv is not None and nv.status == "runs" and wv.status == "doesNotRun"]
    named: set[tuple[Any, ...]] = set()  # taints a finding names already
    if stopped:
        stops: dict[tuple[Any, ...], tuple[Taint, Toleration, Stay]] = {}
        for _, wv in stopped:
            for (t, tol), stay in zip(wv.missing, wv.stays or tuple(Stay(t, False) for t, _ in wv.missing), strict=True):
                stops.setdefault(_taint_id(t), (t, tol, stay))
        named |= set(stops)
        ordered = sorted(stops.values(), key=lambda stop: str(stop[0]))
        nodes_text = ", ".join(nv.node for nv, _ in stopped)
        # the fix per taint: the toleration to add, or the tolerationSeconds to remove from the one that matches first
        out.append(Finding("mandatory", "whatif-would-stop", f"DaemonSet {ds.display}",
            f"adding {', '.join(str(t) for t, _, _ in ordered)} to pool {pool.name} would stop it (it runs now on "
            f"{nodes_text}): " + ", ".join(stay.describe() for _, _, stay in ordered),
            "; ".join(stay_fix(ds, t, tol, stay) for t, tol, stay in ordered), pool.name))
    # Taints that stop it on a node where it does not run now: new unless that node stops it on them already
    # (the live pool's daemonset-does-not-run names them).
    new: dict[tuple[Any, ...], tuple[Taint, Toleration, Stay]] = {}
    where: list[int] = []  # the nodes (kinds of node) it names, by their place in column.shapes
    for i, (nv, wv) in enumerate(zip(now, would, strict=True)):
        if wv.status != "doesNotRun" or (nv is not None and nv.status == "runs"):
            continue
        already = {_taint_id(t) for t, _ in nv.missing} if nv is not None else set()
        stays = wv.stays or tuple(Stay(t, False) for t, _ in wv.missing)
        fresh = [(t, tol, stay) for (t, tol), stay in zip(wv.missing, stays, strict=True)
                 if _taint_id(t) not in already | named]
        for t, tol, stay in fresh:
            new.setdefault(_taint_id(t), (t, tol, stay))
        if fresh:
            where.append(i)
    if new:
        out.append(_does_not_run(row, column, list(new.values()), where))
    return out + _kept_off(row, column, would, now, "")


def _does_not_run(row: _Row, column: _Column, stops: list[tuple[Taint, Toleration, Stay]], where: list[int]) -> Finding:
    """``whatif-does-not-run`` for the taints in ``stops`` on the nodes (or kinds of node) ``where`` (their places in
    ``column.shapes``)."""
    ds, pool = row.ds, column.pool
    verb = "would not stay on" if all(stay.tolerated for _, _, stay in stops) else "would not run on"
    message = f"it {verb} {_on(column, where, 'taints')}: " + ", ".join(stay.describe() for _, _, stay in stops)
    # the device plugin, where no other plugin would run and the nodes run none of their own: they need this one
    starves = is_device_plugin(ds) and _needs_plugin(pool) and not all(column.covered[i] for i in where)
    if starves:
        message += f"; no device plugin would run there, so those nodes would advertise no {NVIDIA_GPU_RESOURCE}"
    fix = "; ".join(stay_fix(ds, t, tol, stay) for t, tol, stay in stops)
    return Finding("mandatory", "whatif-does-not-run", f"DaemonSet {ds.display}", message,
                   fix if starves else f"{fix}, or {KEEP_OFF_FIX}", pool.name)


def _kept_off(row: _Row, column: _Column, would: list[NodeVerdict], now: Sequence[NodeVerdict | None],
              origin: str) -> list[Finding]:
    """``whatif-kept-off`` (module docstring) for the kinds of node (or live nodes) of the pool its selection keeps
    ``row.ds`` off (``would``) and did not keep it off before (``now``: None for a made-up node); ``origin``: ``""``
    for a DaemonSet of the cluster, ``"(stack)"`` for one the stack deploys."""
    ds, pool = row.ds, column.pool
    if ds.selection is None:
        return []
    off = [i for i, (wv, nv) in enumerate(zip(would, now, strict=True))
           if wv.status == "keptOff" and (nv is None or nv.status != "keptOff")]
    if not off:
        return []
    if is_device_plugin(ds):
        uncovered = [i for i in off if not column.covered[i]]
        if not (_needs_plugin(pool) and uncovered):
            return []  # another plugin runs there, or the pool's nodes run their own
        level, off = "mandatory", uncovered
        why = f"; no device plugin would run there, so those nodes would advertise no {NVIDIA_GPU_RESOURCE}"
        also = ""
    elif origin or not any(c.status == "runs" or c.runs_on for c in row.cells.values()):
        return []  # not meant for GPU nodes, as far as the cluster shows
    else:
        level = "advisory"
        serves = sorted(pid for pid, c in row.cells.items() if c.status == "runs" or c.runs_on)
        why = f"; it runs on the cluster's GPU nodes of {', '.join(serves)} now"
        also = f", or leave it so if it is not meant for pool {pool.name}"
    refusals = list(dict.fromkeys(r for i in off for r in _refused_by(ds, column.shapes[i][1])))
    carried = list(dict.fromkeys(c for i in off for c in _carried(ds, column.shapes[i][1])))
    subject = f"DaemonSet {ds.display}" + (f" {origin}" if origin else "")
    fix = f"{_WIDEN}: {'; '.join(carried)}" if carried else _WIDEN
    return [Finding(level, "whatif-kept-off", subject,
                    f"its own selection would keep it off {_on(column, off, 'labels')}: {'; '.join(refusals)}{why}",
                    fix + (" in the stack" if origin else "") + also, pool.name)]


def _on(column: _Column, where: list[int], declares: str) -> str:
    """The nodes ``where`` (places in ``column.shapes``) as a finding names them: the pool's new nodes, some kinds of
    them, or live nodes "with the taints (labels) the stack declares" (``declares``)."""
    pool, kinds = column.pool, len(column.shapes)
    if not column.made_up:
        return f"{', '.join(column.shapes[i][0] for i in where)} with the {declares} the stack declares for pool {pool.name}"
    if len(where) == kinds:
        return f"pool {pool.name}'s new nodes"
    names = ", ".join(column.shapes[i][1].name or column.shapes[i][0] for i in where)
    return f"{len(where)} of the {kinds} kinds of node pool {pool.name} would get ({names})"


def _needs_plugin(pool: DeclaredPool) -> bool:
    """Whether the pool's nodes get their device plugin from a DaemonSet (NVIDIA's chart, the GPU Operator): they run
    none of their own (``device_plugin_source`` ``none``)."""
    return pool.device_plugin_source == "none"


def _refused_by(ds: DaemonSet, labels: NodeLabels) -> list[str]:
    """Each clause of ``ds``'s selection that refuses a node with ``labels``, and what the node carries."""
    selection = ds.selection
    assert selection is not None
    keys = excluding_keys(selection.node_selector, selection.terms, labels)
    if not keys:
        return ["its nodeName names another node"] if selection.node_name else ["its required node affinity"]
    wanted = {str(k): v for k, v in selection.node_selector}
    return [(f"nodeSelector {key}={wanted[key]}" if key in wanted else f"required node affinity on {key}")
            + f" (the nodes carry {_carries(labels, key)})" for key in keys]


def _carried(ds: DaemonSet, labels: NodeLabels) -> list[str]:
    """What a node with ``labels`` carries of each label key ``ds``'s selection refuses it by."""
    selection = ds.selection
    assert selection is not None
    return [_carries(labels, key) for key in excluding_keys(selection.node_selector, selection.terms, labels)]


def _carries(labels: NodeLabels, key: str) -> str:
    value = labels.lookup(key)
    return f"{key}={value}" if isinstance(value, str) else f"no {key} label"


def _taint_id(taint: Taint) -> tuple[Any, ...]:
    return (*taint.identity, taint.value)


def on_new_nodes(ds: DaemonSet, cell: Cell, would: Sequence[NodeVerdict], shapes: Sequence[tuple[str, NodeLabels, list[Taint]]],
                 whose: str) -> str:
    """The summary of a what-if ``cell`` of ``ds``, made of its verdicts ``would`` on the made-up nodes ``shapes`` (a
    pool with no node yet: one per kind of node the plan knows it would get, :func:`.declared.whatif_nodes`), worded
    for ``whose`` (``its``, ``pool gpu's``) new nodes, as no node exists yet to run on. Made of the cell's parts: the
    taints that stop it and how (``cell.stays``), the kinds it runs on, and for a selection that keeps it off, each
    label it refuses them by and what they carry. A cell not judged keeps its own summary; the status stays the cell's."""
    stops = ", ".join(stay.describe() for stay in cell.stays)
    refused = "; ".join(dict.fromkeys(r for verdict, (_, labels, _) in zip(would, shapes, strict=True)
                                      if verdict.status == "keptOff" for r in _refused_by(ds, labels)))
    if cell.status == "runs":
        return f"would run on {whose} new nodes"
    if cell.status == "doesNotRun" and cell.evicted_after is not None:
        return (f"would run on {whose} new nodes for {cell.evicted_after} s, then be evicted and recreated: it tolerates "
                + ", ".join(f"{stay.taint} for {stay.evicted_after} s" for stay in cell.stays) + " only (tolerationSeconds)")
    if cell.status == "doesNotRun":
        return f"would not run on {whose} new nodes: {stops}"
    if cell.status == "partial":
        some = f"some of {whose} new nodes ({cell.runs_on} of {len(shapes)} kinds of node)" if cell.runs_on else f"none of {whose} new nodes"
        return (f"would run on {some}"
                + (f"; stopped by {stops}" if stops else "") + (f"; kept off by its own selection: {refused}" if refused else ""))
    if cell.status == "keptOff":
        return f"would be kept off {whose} new nodes by its own selection: {refused}"
    return cell.summary
