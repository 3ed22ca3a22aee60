"""What the audit keeps of a cluster: each object read as it arrives, reduced to what the verdicts need.

The sources (:mod:`.sources`) hand every listed object to :meth:`Snapshot.add` one at a time (a
dump item by item, a live page by page) and drop it; the snapshot keeps

* per Node its :class:`~.cluster.Node` record (name, labels, taints, GPU counts, pool, OS image);
* per DaemonSet its name, namespace, labels, pod template spec and ``desiredNumberScheduled``;
* per Pending pod with no ``spec.nodeName`` its name, namespace, spec and ``PodScheduled=False``
  conditions (the pending-pod verdict, :mod:`.pending`);
* per pod a DaemonSet owns on a node, only whether it is Ready and, if not, why (the starved-node
  verdict, :mod:`.starved`): ``pod_states[(namespace, DaemonSet, node)]``, the first such pod;
* per Pod its latest ``FailedScheduling`` Event (``lastTimestamp``, else ``eventTime``);
* per node, the first few pods bound there that request no GPU (name no GPU resource in a container's or init
  container's requests or limits: :func:`~gpu_node_pool.k8s.effective.requested_extended_resources`) and that no
  DaemonSet or the node itself (a static pod) owns, by ``namespace/name`` only (the untainted-GPU-pool verdict, :mod:`.untainted`): at most
  :data:`WORKLOADS_KEPT` names a node, so a cluster of many pods costs a few names per node;

every other pod, event and field is dropped on arrival. The verdicts then run over these records
(:func:`gpu_node_pool.audit.report.run_audit`) and give the report they gave over whole objects.

An object of a dump is kept once: a second copy of an object kept (a dump directory holding one
object in two files; a Node is known by its name, a namespaced object by its namespace/name and uid)
is dropped and noted, or, when it differs from the kept copy in what the verdicts read, listed among
the objects left out (:mod:`.identity`). Only the objects kept are remembered for this: a pod or event
the snapshot drops is not, and neither is anything a live list serves (one consistent list, in pages,
holds each object once). An object without ``metadata.name`` is left out the same way as one with a
field of the wrong shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..k8s.effective import requested_extended_resources
from ..k8s.wellknown import is_gpu_resource
from ..text.terminal import shown
from .cluster import Node, read_node
from .findings import SHOWN_SUBJECTS
from .identity import Repeats, display
from .shapes import required_problems, shape_problem_line, shape_problems

__all__ = ["Snapshot", "KINDS", "ADMISSION_KINDS", "WORKLOADS_KEPT", "is_admission", "pod_state"]

#: kind -> snapshot attribute, in the order the live source lists them.
KINDS = {"Node": "nodes", "DaemonSet": "daemonsets", "Pod": "pods", "Event": "events"}
#: The admission objects the audit keeps whole (their spec and annotations are what drift is judged on);
#: Gatekeeper Constraints are recognised by their group, ``constraints.gatekeeper.sh``.
ADMISSION_KINDS = ("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "ConstraintTemplate")
CONSTRAINT_GROUP = "constraints.gatekeeper.sh/"
#: How many non-GPU pods per node the snapshot names (:attr:`Snapshot.workloads`): one more than a finding shows
#: (:data:`.findings.SHOWN_SUBJECTS`), so that it knows there are more.
WORKLOADS_KEPT = SHOWN_SUBJECTS + 1
#: Pod phases of a pod that no longer runs (https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/).
_FINISHED = ("Succeeded", "Failed")


def is_admission(kind: Any, obj: Mapping[str, Any]) -> bool:
    """A ValidatingAdmissionPolicy, its binding, a Gatekeeper ConstraintTemplate or Constraint."""
    return kind in ADMISSION_KINDS or str(obj.get("apiVersion", "")).startswith(CONSTRAINT_GROUP)


def pod_state(pod: Mapping[str, Any]) -> str:
    """'' when the pod is Ready (condition ``Ready=True``), else what it is:
    ``pod NAME is PHASE, not Ready (container: waiting reason; ...)``."""
    meta = pod.get("metadata") or {}
    status = pod.get("status") or {}
    conditions = [c for c in status.get("conditions") or [] if isinstance(c, Mapping)]
    if any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions):
        return ""
    waiting = [
        f"{c.get('name')}: {((c.get('state') or {}).get('waiting') or {}).get('reason', 'not ready')}"
        for c in (status.get("initContainerStatuses") or []) + (status.get("containerStatuses") or [])
        if isinstance(c, Mapping) and not c.get("ready")
    ]
    return f"pod {meta.get('name')} is {status.get('phase', 'not Ready')}, not Ready" + (
        f" ({'; '.join(waiting)})" if waiting else ""
    )


@dataclass
class Snapshot:
    """What was read, reduced (module docstring). ``source`` names where from."""

    source: str
    nodes: list[Node] = field(default_factory=list)
    daemonsets: list[dict[str, Any]] = field(default_factory=list)
    #: Pending pods with no node, reduced: ``{"metadata": {name, namespace}, "spec": .., "status": {phase, conditions}}``.
    pending: list[dict[str, Any]] = field(default_factory=list)
    #: (pod namespace, owning DaemonSet name, node name) -> '' (Ready) or why not (:func:`pod_state`).
    pod_states: dict[tuple[Any, Any, Any], str] = field(default_factory=dict)
    #: node name -> ``namespace/name`` of the first :data:`WORKLOADS_KEPT` distinct pods bound there (not
    #: ``Succeeded``/``Failed``) that request no GPU resource and that no DaemonSet or Node owns, in the order read.
    workloads: dict[str, list[str]] = field(default_factory=dict)
    #: (pod namespace, pod name) -> (timestamp, message) of its latest FailedScheduling event.
    failed_scheduling: dict[tuple[Any, Any], tuple[str, str]] = field(default_factory=dict)
    #: admission objects (:data:`ADMISSION_KINDS`, Constraints): ``{apiVersion, kind, metadata, spec}``.
    admission: list[dict[str, Any]] = field(default_factory=list)
    #: kinds that were read (a dump without events has no "Event"; "admission" once any admission list was).
    read: set[str] = field(default_factory=set)
    #: one line per list the API refused (partial RBAC).
    forbidden: list[str] = field(default_factory=list)
    #: one line per list that failed otherwise (an HTTP error, a ``continue`` chain that never ends).
    unread: list[str] = field(default_factory=list)
    #: one line per file part that holds no object (an item that is not a mapping, bytes that are not UTF-8)
    #: or admission list that could not be read: not judged, said so.
    problems: list[str] = field(default_factory=list)
    #: one line per object of a kind the verdicts read that was left out (a field of the wrong shape, no
    #: ``metadata.name``, a second copy that differs from the kept one): the verdict lacks it, so the report is partial.
    skipped: list[str] = field(default_factory=list)
    #: one line naming the entries of a dump directory that were not read (other suffixes, subdirectories).
    files_not_read: list[str] = field(default_factory=list)
    #: kind -> how many objects of a kind the audit does not read (a dump's Deployments) were left out;
    #: ``""`` counts items without a kind.
    ignored: dict[str, int] = field(default_factory=dict)
    #: read from the API (:func:`.sources.load_live`): each list one consistent list served in pages, which
    #: holds each object once, so no copy is looked for; an item is named by its place in the whole list.
    live: bool = False
    _repeats: Repeats = field(default_factory=Repeats, repr=False)

    @property
    def remembered(self) -> int:
        """How many objects are remembered to find their copies (those kept, of a dump)."""
        return len(self._repeats)

    @property
    def notes(self) -> list[str]:
        """What was read but not judged, and needs no verdict: the files of a dump directory not read (one line),
        objects read twice alike (one line per pair of files, counted by kind), objects of kinds the audit does not
        read (one line, counted by kind)."""
        lines = [*self.files_not_read, *self._repeats.notes()]
        if self.ignored:
            counts = ", ".join(f"{n} {kind}" if kind else f"{n} item(s) without a kind"
                               for kind, n in sorted(self.ignored.items()))
            lines.append(f"left out, not judged: {counts}; the audit reads Node, DaemonSet, Pod and Event objects "
                         "and the admission policies, no other kind")
        return lines

    def ignore(self, kind: Any) -> None:
        """Count an object of a kind the audit does not read (``kind`` None or "": an item without one)."""
        name = kind if isinstance(kind, str) else ""
        self.ignored[name] = self.ignored.get(name, 0) + 1

    def add(self, kind: str, obj: Mapping[str, Any], where: str = "the API", index: int | None = None) -> None:
        """Keep what the verdicts need of ``obj`` (a camelCase mapping of ``kind``, one of :data:`KINDS`),
        read from ``where`` (a dump file, an API list) as its item ``index``.

        An object with a field of the wrong shape (``metadata.labels`` an array, ``status.conditions``
        a string: the API server never serves these, a hand-made dump may; the shapes are :data:`.shapes.FIELDS`),
        without a field the API server requires (a DaemonSet's ``spec.selector`` or pod template, a Pod's containers:
        :data:`gpu_node_pool.k8s.refusals.REQUIRED_FIELDS`) or without ``metadata.name`` is skipped and named in :attr:`skipped`
        (:func:`.shapes.shape_problem_line`), which makes the report partial; so is a second copy of
        an object that differs from the first (:mod:`.identity`), while a second copy alike is noted.
        """
        self.read.add(kind)
        if not self._named(kind, obj, where, index):
            return
        problems, missing = shape_problems(kind, obj), required_problems(kind, obj)
        if problems or missing:
            meta = obj["metadata"]
            namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
            self.skipped.append(shape_problem_line(kind, display(kind, namespace, meta["name"]), problems, live=self.live,
                                                   missing=missing))
            return
        self._add(kind, obj, where)

    def _named(self, kind: str, obj: Mapping[str, Any], where: str, index: int | None) -> bool:
        """Whether ``obj`` has a ``metadata.name``; if not, it is skipped (said in :attr:`skipped`)."""
        meta = obj.get("metadata")
        name = meta.get("name") if isinstance(meta, Mapping) else None
        if isinstance(name, str) and name:
            return True
        namespace = meta.get("namespace") if isinstance(meta, Mapping) else None
        at = self.item_at(where, index) + (f" (namespace {shown(namespace)})" if isinstance(namespace, str) and namespace else "")
        what = ("no metadata" if meta is None else "metadata is not an object" if not isinstance(meta, Mapping)
                else "no metadata.name" if name is None else f"metadata.name {shown(name)} is not a name")
        why = "an API server sends none without one: is it a Kubernetes API server?" if self.live else "a hand-made dump?"
        self.skipped.append(f"{kind} at {at}: {what} (every Kubernetes object has a name; {why}); skipped")
        return False

    def item_at(self, where: str, index: int | None) -> str:
        """Where an item was read: ``dump.json items[3]``; live, ``GET /api/v1/pods item 1234 of the list`` (its
        place in the whole list, counting from 0 over all its pages); ``where`` alone without an index."""
        if index is None:
            return where
        return f"{where} item {index} of the list" if self.live else f"{where} items[{index}]"

    def _keep(self, kind: str, obj: Mapping[str, Any], where: str, parts: Mapping[str, Any]) -> bool:
        """Whether this is the first copy of ``obj`` (keep it); a later one is noted or, differing, skipped.
        Called for the objects the snapshot keeps only; live, every object is the first."""
        if self.live:
            return True
        cluster_scoped = kind == "Node" or is_admission(kind, obj)
        first, conflict = self._repeats.see(kind, obj["metadata"], where, parts, cluster_scoped=cluster_scoped)
        if conflict:
            self.skipped.append(conflict)
        return first

    def _add(self, kind: str, obj: Mapping[str, Any], where: str) -> None:
        if kind == "Node":
            node = read_node(obj)  # declared pools are applied by run_audit
            if self._keep(kind, obj, where, _node_parts(node)):
                self.nodes.append(node)
        elif kind == "DaemonSet":
            ds = _daemonset(obj)
            parts = {"metadata.labels": ds["metadata"].get("labels"), "spec.template.spec": ds["spec"]["template"]["spec"],
                     "status.desiredNumberScheduled": ds["status"].get("desiredNumberScheduled")}
            if self._keep(kind, obj, where, parts):
                self.daemonsets.append(ds)
        elif kind == "Pod":
            self._workload(obj)
            pending, states = _reduce_pod(obj)
            if not pending and not states:
                return  # neither Pending nor a DaemonSet's on a node: dropped, not remembered
            parts = ({"spec": pending["spec"], "status.conditions": [{k: c.get(k) for k in ("status", "reason", "message")}
                                                                     for c in pending["status"]["conditions"]]}
                     if pending else {"spec.nodeName, metadata.ownerReferences and status": states})
            if self._keep(kind, obj, where, parts):
                if pending:
                    self.pending.append(pending)
                for key, state in states:
                    self.pod_states.setdefault(key, state)
        elif kind == "Event":
            self._event(obj)  # the latest time of all the events of a pod counts, a copy's too

    def add_admission(self, kind: str, obj: Mapping[str, Any], where: str = "the API", index: int | None = None) -> None:
        """Keep an admission object (:func:`is_admission`) with the parts drift is judged on (once, as :meth:`add`)."""
        self.read.add("admission")
        if not self._named(kind, obj, where, index):
            return
        meta = obj["metadata"]
        kept = {"apiVersion": obj.get("apiVersion"), "kind": kind,
                "metadata": {k: meta[k] for k in ("name", "labels", "annotations") if k in meta}, "spec": obj.get("spec")}
        parts = {"metadata.labels": meta.get("labels"), "metadata.annotations": meta.get("annotations"), "spec": kept["spec"]}
        if self._keep(kind, obj, where, parts):
            self.admission.append(kept)

    def drop(self, kind: str) -> None:
        """Forget what was kept of ``kind`` (a list that failed part-way: it counts as not read)."""
        self.read.discard(kind)
        if kind == "Node":
            self.nodes.clear()
        elif kind == "DaemonSet":
            self.daemonsets.clear()
        elif kind == "Pod":
            self.pending.clear()
            self.pod_states.clear()
            self.workloads.clear()
        elif kind == "Event":
            self.failed_scheduling.clear()

    def _workload(self, pod: Mapping[str, Any]) -> None:
        """Name ``pod`` among its node's :attr:`workloads` if it is one (bound, not finished, no GPU requested, owned
        by no DaemonSet or Node) and its node has fewer than :data:`WORKLOADS_KEPT` named; a copy of a named pod
        (a dump directory holding it twice) is named once."""
        spec = pod.get("spec") or {}
        node = spec.get("nodeName") if isinstance(spec, Mapping) else None
        status = pod.get("status") or {}
        if not isinstance(node, str) or not node or (isinstance(status, Mapping) and status.get("phase") in _FINISHED):
            return
        named = self.workloads.get(node, [])
        if len(named) >= WORKLOADS_KEPT:
            return
        meta = pod["metadata"]
        owners = meta.get("ownerReferences")
        if any(isinstance(o, Mapping) and o.get("kind") in ("DaemonSet", "Node") for o in owners or []):
            return
        if any(is_gpu_resource(name) for name in requested_extended_resources(spec)):
            return
        name = f"{meta.get('namespace') or 'default'}/{meta['name']}"
        if name not in named:
            self.workloads.setdefault(node, named).append(name)

    def _event(self, event: Mapping[str, Any]) -> None:
        involved = event.get("involvedObject") or {}
        if not isinstance(involved, Mapping) or involved.get("kind") != "Pod" or event.get("reason") != "FailedScheduling":
            return
        key = (involved.get("namespace"), involved.get("name"))
        stamp = str(event.get("lastTimestamp") or event.get("eventTime") or "")
        if key not in self.failed_scheduling or stamp > self.failed_scheduling[key][0]:
            self.failed_scheduling[key] = (stamp, str(event.get("message", "")))


def _node_parts(node: Node) -> dict[str, Any]:
    """The fields of a Node the verdicts read, by API path, to compare two copies (:mod:`.identity`)."""
    return {"metadata.labels": node.labels, "spec.taints": [[repr(t) for t in node.taints], [str(b) for b in node.bad_taints]],
            "spec.providerID": node.provider_id, "status.capacity and allocatable":
            [node.gpu_capacity, node.gpu_allocatable, node.bad_resources],
            "status.nodeInfo.osImage": node.os_image, "status.conditions Ready": node.ready}


def _reduce_pod(pod: Mapping[str, Any]) -> tuple[dict[str, Any] | None, list[tuple[tuple[Any, Any, Any], str]]]:
    """``(pending, states)``: a Pending pod with no node reduced for the pending-pod verdict (else None), and
    for a pod DaemonSets own on a node, ``((namespace, DaemonSet, node), state)`` per owner (:func:`pod_state`)."""
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    node = spec.get("nodeName")
    if status.get("phase") == "Pending" and not node:
        conditions = [c for c in status.get("conditions") or []
                      if isinstance(c, Mapping) and c.get("type") == "PodScheduled" and c.get("status") == "False"]
        return {"metadata": {k: meta[k] for k in ("name", "namespace") if k in meta}, "spec": spec,
                "status": {"phase": "Pending", "conditions": conditions}}, []
    owners = [o.get("name") for o in meta.get("ownerReferences") or []
              if isinstance(o, Mapping) and o.get("kind") == "DaemonSet"]
    if not owners or node is None:
        return None, []
    state = pod_state(pod)
    return None, [((meta.get("namespace"), owner, node), state) for owner in owners]


def _daemonset(obj: Mapping[str, Any]) -> dict[str, Any]:
    """The parts :func:`gpu_node_pool.policies.daemonset_nodes.read_daemonset` reads (of a DaemonSet whose fields
    have the shapes of :data:`.shapes.FIELDS`)."""
    meta = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    template = spec.get("template") or {} if isinstance(spec, Mapping) else {}
    status = obj.get("status") or {}
    pod_spec = template.get("spec") or {}
    return {
        "metadata": {k: meta[k] for k in ("name", "namespace", "labels") if k in meta},
        "spec": {"template": {"spec": pod_spec}},
        "status": {k: status[k] for k in ("desiredNumberScheduled",) if k in status},
    }

