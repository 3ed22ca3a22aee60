"""The shapes of the fields the audit reads, per kind, as the API server serves them, and what an object of another
shape is told.

:data:`FIELDS` is the one table: kind -> ``(path, shape, the API's type)`` for every field of a Node, DaemonSet, Pod or
Event the verdicts read. The types are those of k8s.io/api ``core/v1`` and ``apps/v1`` (types.go), as the Kubernetes
API reference gives them (:data:`SOURCES`). The API server decodes every object into these types before it stores
it, so an object served with another shape there (``metadata.labels`` an array, ``spec.containers`` a string) never
came from an API server: the dump was edited or is not a kubectl dump. The audit skips such an object
(:meth:`.snapshot.Snapshot.add`) and says why with :func:`shape_problems`; an absent field, or ``null`` (which the
API server's decoder reads as absent), is no problem.

The fields the API server refuses an object without (``spec.selector`` and a pod template with containers of a
DaemonSet, the containers of a Pod) are :data:`gpu_node_pool.k8s.refusals.REQUIRED_FIELDS`, with their rules and
sources; the verdicts would otherwise judge such an object as if empty (a DaemonSet without a template tolerates
nothing). :func:`required_problems` says which are absent, ``null`` or an empty array; such an object is skipped as
one of another shape is.

A path is dotted field names; ``[]`` steps into every item of an array
(``spec.template.spec.containers[].resources``). A path is checked only where its parent has the parent's shape: the
parent's own entry tells the rest.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..k8s.refusals import REQUIRED_FIELDS
from ..text.terminal import shown

__all__ = ["FIELDS", "SOURCES", "SHAPES", "json_value", "required_problems", "shape_problems",
           "shape_problem_line"]


def _is_object(value: Any) -> bool:
    return isinstance(value, Mapping)


def _is_array(value: Any) -> bool:
    return isinstance(value, list)


def _is_array_of_objects(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, Mapping) for item in value)


def _is_map_of_strings(value: Any) -> bool:
    return isinstance(value, Mapping) and all(isinstance(v, str) for v in value.values())


def _is_string(value: Any) -> bool:
    return isinstance(value, str)


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


#: shape name -> its test. The names are what a message says the API server holds.
SHAPES: dict[str, Callable[[Any], bool]] = {
    "an object": _is_object,
    "an array": _is_array,
    "an array of objects": _is_array_of_objects,
    "a map of strings": _is_map_of_strings,
    "a map of quantities": _is_object,  # each GPU quantity is read (and told) by .cluster
    "a string": _is_string,
    "an integer": _is_integer,
}

_CORE = "k8s.io/api core/v1"
_META = "ObjectMeta.labels, map[string]string"
_NAMESPACE = ("metadata.namespace", "a string", "ObjectMeta.namespace, string")
#: A pod spec's node selection as the DaemonSet verdict reads it (its values, and a Pod's whole selection, are
#: judged by the API server's rules of :mod:`gpu_node_pool.k8s.refusals`).
_NODE_SELECTION = (
    ("nodeSelector", "an object", "PodSpec.nodeSelector, map[string]string"),
    ("affinity", "an object", "PodSpec.affinity, Affinity"),
    ("affinity.nodeAffinity", "an object", "Affinity.nodeAffinity, NodeAffinity"),
    ("affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution", "an object",
     "NodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, NodeSelector"),
    ("affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms", "an array of objects",
     "NodeSelector.nodeSelectorTerms, []NodeSelectorTerm"),
    ("affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[].matchExpressions",
     "an array of objects", "NodeSelectorTerm.matchExpressions, []NodeSelectorRequirement"),
    ("affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[].matchFields",
     "an array of objects", "NodeSelectorTerm.matchFields, []NodeSelectorRequirement"),
)
#: A pod spec's containers, whose resources say whether it requests a GPU.
_CONTAINERS = (
    ("containers", "an array of objects", "PodSpec.containers, []Container"),
    ("containers[].resources", "an object", "Container.resources, ResourceRequirements"),
    ("containers[].resources.requests", "a map of quantities", "ResourceRequirements.requests, ResourceList"),
    ("containers[].resources.limits", "a map of quantities", "ResourceRequirements.limits, ResourceList"),
    ("initContainers", "an array of objects", "PodSpec.initContainers, []Container"),
    ("initContainers[].resources", "an object", "Container.resources, ResourceRequirements"),
    ("initContainers[].resources.requests", "a map of quantities", "ResourceRequirements.requests, ResourceList"),
    ("initContainers[].resources.limits", "a map of quantities", "ResourceRequirements.limits, ResourceList"),
)

#: kind -> ``(path, shape, the API's field and type)`` of every field the audit reads (module docstring). A pod
#: spec's tolerations, a Pod's node selection and the items of a Node's taints are not here: what the API server
#: refuses of them (a list that is no list too) is told by their one reader (:mod:`gpu_node_pool.k8s.refusals`,
#: :mod:`gpu_node_pool.k8s.taints`), the DaemonSet or pod judged on no node, the taint a malformed-taint finding.
FIELDS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "Node": (
        ("metadata.labels", "a map of strings", _META),
        ("spec", "an object", "Node.spec, NodeSpec"),
        ("spec.taints", "an array", "NodeSpec.taints, []Taint"),
        ("spec.providerID", "a string", "NodeSpec.providerID, string"),
        ("status", "an object", "Node.status, NodeStatus"),
        ("status.capacity", "a map of quantities", "NodeStatus.capacity, ResourceList"),
        ("status.allocatable", "a map of quantities", "NodeStatus.allocatable, ResourceList"),
        ("status.conditions", "an array of objects", "NodeStatus.conditions, []NodeCondition"),
        ("status.nodeInfo", "an object", "NodeStatus.nodeInfo, NodeSystemInfo"),
        ("status.nodeInfo.osImage", "a string", "NodeSystemInfo.osImage, string"),
    ),
    "DaemonSet": (
        _NAMESPACE,
        ("metadata.labels", "a map of strings", _META),
        ("spec", "an object", "DaemonSet.spec, DaemonSetSpec"),
        ("spec.template", "an object", "DaemonSetSpec.template, PodTemplateSpec"),
        ("spec.template.spec", "an object", "PodTemplateSpec.spec, PodSpec"),
        *((f"spec.template.spec.{path}", shape, api) for path, shape, api in (*_NODE_SELECTION, *_CONTAINERS)),
        ("status", "an object", "DaemonSet.status, DaemonSetStatus"),
        ("status.desiredNumberScheduled", "an integer", "DaemonSetStatus.desiredNumberScheduled, int32"),
    ),
    "Pod": (
        _NAMESPACE,
        ("metadata.ownerReferences", "an array of objects", "ObjectMeta.ownerReferences, []OwnerReference"),
        ("metadata.ownerReferences[].kind", "a string", "OwnerReference.kind, string"),
        ("metadata.ownerReferences[].name", "a string", "OwnerReference.name, string"),
        ("spec", "an object", "Pod.spec, PodSpec"),
        ("spec.nodeName", "a string", "PodSpec.nodeName, string"),
        *((f"spec.{path}", shape, api) for path, shape, api in _CONTAINERS),
        ("status", "an object", "Pod.status, PodStatus"),
        ("status.phase", "a string", "PodStatus.phase, string"),
        ("status.conditions", "an array of objects", "PodStatus.conditions, []PodCondition"),
        ("status.containerStatuses", "an array of objects", "PodStatus.containerStatuses, []ContainerStatus"),
        ("status.initContainerStatuses", "an array of objects", "PodStatus.initContainerStatuses, []ContainerStatus"),
        *((f"status.{group}[].{path}", "an object", api) for group in ("containerStatuses", "initContainerStatuses")
          for path, api in (("state", "ContainerStatus.state, ContainerState"),
                            ("state.waiting", "ContainerState.waiting, ContainerStateWaiting"))),
    ),
    "Event": (
        _NAMESPACE,
        ("involvedObject", "an object", "Event.involvedObject, ObjectReference"),
        *((f"involvedObject.{name}", "a string", f"ObjectReference.{name}, string") for name in ("kind", "namespace", "name")),
        ("reason", "a string", "Event.reason, string"),
        ("message", "a string", "Event.message, string"),
    ),
}

#: kind -> where its types are published: the Kubernetes API reference page and the Go package of its types.
SOURCES: dict[str, str] = {
    "Node": f"{_CORE}, https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/node-v1/",
    "DaemonSet": "k8s.io/api apps/v1, https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/daemon-set-v1/",
    "Pod": f"{_CORE}, https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/",
    "Event": f"{_CORE}, https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/event-v1/",
}


def json_text(value: Any, limit: int = 80) -> str:
    """``value`` (as a JSON or YAML document decodes) written as JSON, as the dump holds it: ``{"key": "x"}``,
    ``["a"]``, ``"text"``, ``null``; cut after ``limit`` characters with its full length said, and an array or object
    of more than ``limit`` items said by its count alone (never rendered whole to show ``limit`` characters)."""
    if isinstance(value, (list, Mapping)) and len(value) > limit:
        return f"{'an array' if isinstance(value, list) else 'an object'} of {len(value)} item(s)"
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, default=str)
    except (ValueError, RecursionError):
        return shown(value, quote=False, limit=limit)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def json_value(value: Any) -> str:
    """What ``value`` is, in JSON's words (YAML's documents decode to the same): ``null``, ``an empty array``,
    ``an array of 2 item(s)``, ``a string "x"``, ``a number 3``, ``true``, ``an object``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"a number {shown(value, quote=False)}"
    if isinstance(value, str):
        return f"a string {json_text(value)}"
    if isinstance(value, list):
        return "an empty array" if not value else f"an array of {len(value)} item(s)"
    return "an object" if isinstance(value, Mapping) else shown(value, quote=False)


def _holds(value: Any, shape: str) -> str:
    """What ``value`` holds, said for a field that should be ``shape``: a map of strings with a value of another
    kind names that value; an array or object is shown (cut)."""
    if shape == "a map of strings" and isinstance(value, Mapping):
        key, item = next((k, v) for k, v in value.items() if not isinstance(v, str))
        return f"an object whose value at {json_text(str(key))} is {json_value(item)}"
    if shape == "an array of objects" and isinstance(value, list):
        i, item = next((i, v) for i, v in enumerate(value) if not isinstance(v, Mapping))
        return f"an array whose item [{i}] is {json_value(item)}"
    if isinstance(value, (list, Mapping)) and value:
        return f"{json_value(value)} {json_text(value)}"
    return json_value(value)


def _walk(obj: Any, path: str, at: str = "") -> Iterator[tuple[str, Any]]:
    """``(place, value)`` of each value ``path`` reaches in ``obj`` whose parents are objects (``[]`` over every item
    of an array; an absent or null value is not given)."""
    head, _, rest = path.partition(".")
    many = head.endswith("[]")
    name = head[:-2] if many else head
    if not isinstance(obj, Mapping) or obj.get(name) is None:
        return
    value = obj[name]
    place = f"{at}.{name}" if at else name
    if not rest:
        yield place, value
        return
    if many:
        for i, item in enumerate(value if isinstance(value, list) else ()):
            yield from _walk(item, rest, f"{place}[{i}]")
    else:
        yield from _walk(value, rest, place)


def shape_problems(kind: str, obj: Mapping[str, Any]) -> list[str]:
    """Each field of ``obj`` (a ``kind`` of :data:`FIELDS`) whose value has another shape than the API server
    holds there: ``spec.taints is an object {"key": "a"}, where the API server holds an array of objects
    (NodeSpec.taints, []Taint)``, in the table's order; ``[]`` for a kind not in the table."""
    problems = []
    for path, shape, api in FIELDS.get(kind, ()):
        for place, value in _walk(obj, path):
            if not SHAPES[shape](value):
                problems.append(f"{place} is {_holds(value, shape)}, where the API server holds {shape} ({api})")
    return problems


def required_problems(kind: str, obj: Mapping[str, Any]) -> list[str]:
    """Each field of :data:`gpu_node_pool.k8s.refusals.REQUIRED_FIELDS` that ``obj`` (a ``kind``) lacks:
    ``spec.selector is absent, where the API server requires a label selector (...)``; ``spec.containers is absent
    (spec is null), where ...``; an empty array is said as one. A path under a parent of another shape is left to
    :func:`shape_problems`; ``[]`` for a kind not in the table."""
    problems = []
    for field in REQUIRED_FIELDS.get(kind, ()):
        path, needs = field.path, field.requires
        value: Any = obj
        seen: list[str] = []
        lacking = ""
        for name in path.split("."):
            if not isinstance(value, Mapping):
                break  # a parent of another shape: shape_problems tells it
            seen.append(name)
            place = ".".join(seen)
            if value.get(name) is None:
                said = "null" if name in value else "absent"
                lacking = f"{path} is {said}" if place == path else f"{path} is absent ({place} is {said})"
                break
            value = value[name]
        else:
            if isinstance(value, list) and not value:
                lacking = f"{path} is an empty array"
        if lacking:
            problems.append(f"{lacking}, where the API server requires {needs}")
    return problems


def shape_problem_line(kind: str, subject: str, problems: list[str], *, live: bool = False,
                       missing: list[str] | None = None) -> str:
    """The one line a skipped object is told with: ``subject`` (``Node n0``, ``Pod ml/p``), each of its
    ``problems`` (:func:`shape_problems`) and of the ``missing`` fields the API server requires
    (:func:`required_problems`), the source of the types, why no API server serves it (``live``: read from a
    server, which then is none), what the audit did and the fix."""
    missing = missing or []
    if live:
        why, fix = "so the server that sent it is not a Kubernetes API server", "audit the cluster through its API server"
    else:
        why = "so the dump was edited or is not a kubectl dump"
        fix = "write the dump again with kubectl get nodes,daemonsets,pods,events -A -o json, or fix the field in the dump"
    what = ("a field has the wrong shape" if not missing else "a field the API server requires is missing"
            if not problems else "a field has the wrong shape and one the API server requires is missing")
    holds = ("it holds each field in its type" if not missing else "it refuses one without them" if not problems
             else "it holds each field in its type and refuses one without the fields it requires")
    return (f"{subject}: {what}: {'; '.join([*problems, *missing])} ({SOURCES[kind]}); an API server never "
            f"serves such a {kind} ({holds}), {why}; this {kind} was not judged and the report is partial -> {fix}")
