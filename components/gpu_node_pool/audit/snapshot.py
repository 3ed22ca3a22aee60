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

every other pod, event and field is dropped on arrival. The verdicts then run over these records
(:func:`gpu_node_pool.audit.report.run_audit`) and give the report they gave over whole objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .cluster import Node, read_node

__all__ = ["Snapshot", "KINDS", "ADMISSION_KINDS", "is_admission", "pod_state"]

#: kind -> snapshot attribute, in the order the live source lists them.
KINDS = {"Node": "nodes", "DaemonSet": "daemonsets", "Pod": "pods", "Event": "events"}
#: The admission objects the audit keeps whole (their spec and annotations are what drift is judged on);
#: Gatekeeper Constraints are recognised by their group, ``constraints.gatekeeper.sh``.
ADMISSION_KINDS = ("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "ConstraintTemplate")
CONSTRAINT_GROUP = "constraints.gatekeeper.sh/"


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
        f"{c.get('name')}: {(c.get('state') or {}).get('waiting', {}).get('reason', 'not ready')}"
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
    #: one line per object of a kind the verdicts read that was left out (a field of the wrong shape): the
    #: verdict lacks it, so the report is partial.
    skipped: list[str] = field(default_factory=list)

    def add(self, kind: str, obj: Mapping[str, Any]) -> None:
        """Keep what the verdicts need of ``obj`` (a camelCase mapping of ``kind``, one of :data:`KINDS`).

        An object with a field of the wrong shape (``metadata.labels`` a list, ``status.conditions``
        a string: the API server never serves these, a hand-made dump may) is skipped and named in
        :attr:`skipped`, which makes the report partial.
        """
        self.read.add(kind)
        try:
            self._add(kind, obj)
        except (AttributeError, TypeError, ValueError) as err:
            meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
            name = "/".join(str(part) for part in (meta.get("namespace"), meta.get("name")) if part) or "?"
            self.skipped.append(f"{kind} {name}: a field has the wrong shape ({type(err).__name__}: {err}); skipped")

    def _add(self, kind: str, obj: Mapping[str, Any]) -> None:
        if kind == "Node":
            self.nodes.append(read_node(obj))  # declared pools are applied by run_audit
        elif kind == "DaemonSet":
            self.daemonsets.append(_daemonset(obj))
        elif kind == "Pod":
            self._pod(obj)
        elif kind == "Event":
            self._event(obj)

    def add_admission(self, kind: str, obj: Mapping[str, Any]) -> None:
        """Keep an admission object (:func:`is_admission`) with the parts drift is judged on."""
        self.read.add("admission")
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
        self.admission.append({"apiVersion": obj.get("apiVersion"), "kind": kind,
                               "metadata": {k: meta[k] for k in ("name", "labels", "annotations") if k in meta},
                               "spec": obj.get("spec")})

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
        elif kind == "Event":
            self.failed_scheduling.clear()

    def _pod(self, pod: Mapping[str, Any]) -> None:
        meta = pod.get("metadata") or {}
        spec = pod.get("spec") or {}
        status = pod.get("status") or {}
        node = spec.get("nodeName")
        if status.get("phase") == "Pending" and not node:
            conditions = [c for c in status.get("conditions") or []
                          if isinstance(c, Mapping) and c.get("type") == "PodScheduled" and c.get("status") == "False"]
            self.pending.append({"metadata": {k: meta[k] for k in ("name", "namespace") if k in meta}, "spec": spec,
                                 "status": {"phase": "Pending", "conditions": conditions}})
            return
        owners = [o.get("name") for o in meta.get("ownerReferences") or []
                  if isinstance(o, Mapping) and o.get("kind") == "DaemonSet"]
        if owners and node is not None:
            state = None
            for owner in owners:
                if (meta.get("namespace"), owner, node) not in self.pod_states:
                    state = pod_state(pod) if state is None else state
                    self.pod_states[(meta.get("namespace"), owner, node)] = state

    def _event(self, event: Mapping[str, Any]) -> None:
        involved = event.get("involvedObject") or {}
        if not isinstance(involved, Mapping) or involved.get("kind") != "Pod" or event.get("reason") != "FailedScheduling":
            return
        key = (involved.get("namespace"), involved.get("name"))
        stamp = str(event.get("lastTimestamp") or event.get("eventTime") or "")
        if key not in self.failed_scheduling or stamp > self.failed_scheduling[key][0]:
            self.failed_scheduling[key] = (stamp, str(event.get("message", "")))


def _daemonset(obj: Mapping[str, Any]) -> dict[str, Any]:
    """The parts :func:`gpu_node_pool.policies.daemonset_nodes.read_daemonset` reads."""
    meta = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    template = spec.get("template") or {} if isinstance(spec, Mapping) else {}
    status = obj.get("status") or {}
    pod_spec = template.get("spec") or {}
    _check_node_selection(pod_spec)
    return {
        "metadata": {k: meta[k] for k in ("name", "namespace", "labels") if k in meta},
        "spec": {"template": {"spec": pod_spec}},
        "status": {k: status[k] for k in ("desiredNumberScheduled",) if k in status},
    }


def _check_node_selection(pod_spec: Mapping[str, Any]) -> None:
    """Raise ``TypeError`` naming the field when the pod template's node selection does not have the
    API's shape (``nodeSelector`` a mapping; required ``nodeSelectorTerms`` a list of mappings whose
    ``matchExpressions``/``matchFields`` are lists of mappings): the API server never serves such a
    DaemonSet, and reading it as no selection would call it kept off every node (or on every node)."""
    path = "spec.template.spec"
    if not isinstance(pod_spec, Mapping):
        raise TypeError(f"{path} is a {type(pod_spec).__name__}, not an object")
    if not isinstance(pod_spec.get("nodeSelector") or {}, Mapping):
        raise TypeError(f"{path}.nodeSelector is not a mapping")
    affinity = pod_spec.get("affinity") or {}
    node_affinity = affinity.get("nodeAffinity") or {} if isinstance(affinity, Mapping) else None
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(node_affinity, Mapping) else None
    if not isinstance(affinity, Mapping) or not isinstance(node_affinity, Mapping):
        raise TypeError(f"{path}.affinity.nodeAffinity is not a mapping")
    if required is None:
        return
    where = f"{path}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
    terms = required.get("nodeSelectorTerms") if isinstance(required, Mapping) else None
    if not isinstance(terms, list) or not all(isinstance(t, Mapping) for t in terms):
        raise TypeError(f"{where}.nodeSelectorTerms is not a list of terms")
    for i, term in enumerate(terms):
        for part in ("matchExpressions", "matchFields"):
            value = term.get(part) or []
            if not isinstance(value, list) or not all(isinstance(e, Mapping) for e in value):
                raise TypeError(f"{where}.nodeSelectorTerms[{i}].{part} is not a list of requirements")
