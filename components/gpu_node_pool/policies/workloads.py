"""Pod templates inside Kubernetes resources, their tolerations, and where they may schedule.

Node *selection* (``nodeSelector``, required node affinity) is judged here against the labels
a GPU pool's nodes are known to carry. Toleration *matching* is not: it goes through
:mod:`gpu_node_pool.k8s.taints` (``tolerates``, ``untolerated_taints``).

Selection semantics (Kubernetes ``NodeSelector``, ``k8s.io/component-helpers/scheduling/corev1/nodeaffinity``):
``nodeSelector`` entries are ANDed; required ``nodeSelectorTerms`` are ORed, the expressions
of one term ANDed; a term with no expressions matches no node. Operators ``In``, ``NotIn``,
``Exists``, ``DoesNotExist``, ``Gt``, ``Lt``. A node may carry labels the pool does not
declare (kubelet, cloud and NFD labels), so an expression on an undeclared key is
*undecided*, never a match or a mismatch.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from ..k8s.refusals import (
    metadata_refusal,
    node_name_refusal,
    node_selector_refusal,
    placement_refusal,
    toleration_refusal,
    tolerations_refusal,
)
from ..k8s.selection import Expression as _Expr
from ..k8s.selection import label_value as _label_value
from ..k8s.selection import selection_matches
from ..k8s.taints import Taint, TaintError, Toleration, tolerates, toleration_from_k8s
from ..k8s.toleration_rules import NUMERIC_TOLERATION_OPERATORS, numeric_operator_refusal, unknown_toleration_fields
from ..sdk import props as _props
from ..sdk.props import derived, dig, items, mapping, plain, sequence, text
from ..text.terminal import shown

__all__ = [
    "WORKLOAD_POD_SPEC_PATHS",
    "METADATA_REFUSED_FIX",
    "Workload",
    "workload_of",
    "read_tolerations",
    "judge_on_kube_version",
    "judged_kube_version",
    "toleration_notes",
    "notes_text",
    "selection",
    "NodeSelection",
    "pod_spec_refusals",
    "refusals_text",
    "tolerations_refused_text",
    "keeps_off",
    "Stay",
    "stay_on",
    "containers",
]

#: Where the pod spec sits, per Kubernetes kind (``kubernetes:<group>/<version>:<Kind>``).
WORKLOAD_POD_SPEC_PATHS: dict[str, tuple[str, ...]] = {
    "Pod": ("spec",),
    "DaemonSet": ("spec", "template", "spec"),
    "Deployment": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "ReplicationController": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}


#: What to do about a workload whose ``metadata.name`` or ``namespace`` the API server refuses (:func:`workload_of`).
METADATA_REFUSED_FIX = ("write a metadata.name that is a DNS-1123 subdomain and a metadata.namespace that is a DNS-1123 "
                        "label (the reason offers one): the API server creates no such object")


def kind_of(resource_type: str) -> str | None:
    """The Kubernetes kind of a ``kubernetes:<group>/<version>:<Kind>`` type token, else None."""
    if not isinstance(resource_type, str):
        return None
    kind = _KINDS.get(resource_type, _KINDS)
    if kind is _KINDS:
        kind = resource_type.rsplit(":", 1)[-1] if resource_type.startswith("kubernetes:") else None
        if len(_KINDS) < 4096:  # a stack has a few dozen types; every policy asks for each resource
            _KINDS[resource_type] = kind
    return kind


_KINDS: dict[str, Any] = {}


@dataclass
class Workload:
    """A resource that carries a pod template.

    Attributes:
        kind: ``DaemonSet``, ``Deployment``, ``Job``, ``CronJob``, ``Pod``...
        namespace: ``metadata.namespace``; ``default`` when absent (the provider's default).
        name: ``metadata.name``, or the Pulumi name when absent (auto-named).
        pod_spec: the pod spec mapping (empty when missing or malformed).
    """

    kind: str
    namespace: str
    name: str
    pod_spec: Mapping[str, Any]

    @property
    def display(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"


def workload_of(resource_type: str, props: Mapping[str, Any], pulumi_name: str = "") -> Workload | None:
    """The :class:`Workload` inside a Kubernetes resource, or None for other resource types.

    Raises:
        UnknownValueError: ``metadata.name``/``namespace`` or the pod spec is unknown at preview; or, carrying
            ``not judged: <why>`` and :data:`METADATA_REFUSED_FIX` (:func:`gpu_node_pool.sdk.props.not_judged`, as
            every rule reports what it does not judge), a ``metadata.name`` or ``metadata.namespace`` written that
            the API server refuses (:func:`~gpu_node_pool.k8s.refusals.metadata_refusal`: a name no DNS-1123
            subdomain, a namespace no DNS-1123 label): such an object is never stored, so no verdict is true of it.
    """
    kind = kind_of(resource_type)
    if kind not in WORKLOAD_POD_SPEC_PATHS:
        return None
    cache = derived(props)
    key = ("workload", kind, pulumi_name)
    if cache is not None:
        kept = cache.get(key)
        if kept is not None:
            return kept
    written_namespace = dig(props, "metadata", "namespace")
    written_name = dig(props, "metadata", "name")
    refused = metadata_refusal(kind, written_name, written_namespace)
    if refused:
        raise _props.not_judged(["metadata", refused[0].rpartition(".")[2]], f"not judged: {refused[1]}",
                                METADATA_REFUSED_FIX)
    namespace = text(written_namespace)
    name = text(written_name) or pulumi_name
    pod_spec = mapping(dig(props, *WORKLOAD_POD_SPEC_PATHS[kind]))
    workload = Workload(kind, namespace or "default", name, pod_spec)
    if cache is not None:
        cache[key] = workload  # policies only read workloads
    return workload


#: ``(version, who declares it)`` of the cluster the stack being judged declares, when it is below the first version
#: that serves ``Gt``/``Lt`` (:func:`judge_on_kube_version`); None: judged as on a cluster with the gate on.
_KUBE_VERSION: ContextVar[tuple[str, str] | None] = ContextVar("gpu_node_pool_kube_version", default=None)


def judge_on_kube_version(declared: tuple[str, str] | None) -> None:
    """Judge the pod specs read from now on (in this context) as on a cluster of the declared Kubernetes version:
    ``(version, who declares it)``, e.g. ``("1.33", "GpuNodePool 'gpu'")``, or None when the stack declares none.
    Below 1.35 a ``Gt``/``Lt`` toleration is refused by the API server
    (:func:`~gpu_node_pool.k8s.toleration_rules.numeric_operator_refusal`): :func:`read_tolerations` reports it as a
    problem and :attr:`NodeSelection.refused` names it. Every stack policy sets it for its own stack
    (:func:`gpu_node_pool.policies.stack.stack_index`), so no answer carries over between stacks; the answers kept
    per pod spec (:func:`~gpu_node_pool.sdk.props.derived`) are kept per version."""
    if declared is not None and numeric_operator_refusal(NUMERIC_TOLERATION_OPERATORS[0], *declared) is None:
        declared = None  # 1.35 or later, or no minor version: judged as with the gate on
    _KUBE_VERSION.set(declared)


def judged_kube_version() -> tuple[str, str] | None:
    """The declared version :func:`judge_on_kube_version` set when it refuses ``Gt``/``Lt``, else None."""
    return _KUBE_VERSION.get()


def read_tolerations(pod_spec: Mapping[str, Any]) -> tuple[list[Toleration], list[str]]:
    """``(tolerations, problems)`` of a pod spec; items the API server refuses are skipped, each problem naming
    the item, the rule and the fix (:func:`~gpu_node_pool.k8s.refusals.toleration_refusal`; a ``Gt``/``Lt`` on a
    cluster declared below 1.35 too, :func:`judge_on_kube_version`). Such a pod spec is
    never created: :attr:`NodeSelection.refused` says so, and a placement verdict reads it first.

    ``tolerationSeconds`` arrives as a float in a real preview (protobuf numbers); integral
    floats are read as ints. A missing or ``null`` list reads as no tolerations.

    Raises:
        UnknownValueError: a toleration is unknown at preview.
    """
    version = _KUBE_VERSION.get()
    cache = derived(pod_spec)
    key = ("tolerations", version)
    if cache is not None and key in cache:
        out, problems = cache[key]
        return list(out), list(problems)
    out, problems = [], []
    listed = dig(pod_spec, "tolerations")
    # one plain copy of the list: the items and the first unknown of reading them one by one
    for i, obj in enumerate(plain(sequence(listed))):
        try:
            toleration = toleration_from_k8s(obj)
        except TaintError as err:
            problems.append(toleration_refusal(obj, f"tolerations[{i}]", version) or f"tolerations[{i}] ignored: {err}")
            continue
        refused = toleration_refusal(obj, f"tolerations[{i}]", version) if version is not None else None
        if refused:
            problems.append(refused)
        else:
            out.append(toleration)
    if cache is not None:
        cache[key] = (list(out), list(problems))
    return out, problems


def toleration_notes(pod_spec: Mapping[str, Any], prefix: str = "") -> list[str]:
    """One note per key of a toleration of ``pod_spec`` that is no field of ``Toleration``
    (:func:`~gpu_node_pool.k8s.toleration_rules.unknown_toleration_fields`), each named ``<prefix>tolerations[<i>].<key>``
    (``prefix``: where the pod spec sits, e.g. ``spec.template.spec.``), in the list's order; ``[]`` when there is
    none. Kept apart from :func:`read_tolerations`' problems: the API server's default field validation drops such a
    key with a warning and keeps the toleration, so a rule shows these beside its verdict, never as a refusal.

    Never raises for a value unknown at preview: an item or list unknown at preview gives no note (whoever reads
    the tolerations meets the unknown).
    """
    cache = derived(pod_spec)
    notes = cache.get("toleration_notes") if cache is not None else None
    if notes is None:
        notes = []
        try:
            listed = dig(pod_spec, "tolerations")
            count = len(sequence(listed))
        except Exception as err:
            _unknown_only(err)
            count = 0
        for i in range(count):
            try:
                notes += unknown_toleration_fields(plain(listed[i]), f"tolerations[{i}]")
            except Exception as err:
                _unknown_only(err)
        if cache is not None:
            cache["toleration_notes"] = notes
    return [prefix + note for note in notes]


def notes_text(notes: list[str]) -> str:
    """``notes`` (:func:`toleration_notes`) as sentences to append to a finding: ``" Note: <note>. Note: ..."``, or
    ``""`` for none."""
    return "".join(f" Note: {note}." for note in notes)


def containers(pod_spec: Mapping[str, Any]) -> Iterable[tuple[str, Mapping[str, Any]]]:
    """``(path, container)`` for every container, init container and ephemeral container, read one by one
    (an unknown is met only when the iteration reaches it); once all were read, the list kept of them."""
    cache = derived(pod_spec)
    if cache is not None:
        kept = cache.get("containers")
        if kept is not None:
            return kept
    return _read_containers(pod_spec, cache)


def _read_containers(pod_spec: Mapping[str, Any], cache: dict[Any, Any] | None) -> Iterator[tuple[str, Mapping[str, Any]]]:
    found = []
    for group in ("initContainers", "containers", "ephemeralContainers"):
        for i, container in enumerate(items(dig(pod_spec, group))):
            if isinstance(container, Mapping):
                found.append((f"{group}[{i}]", container))
                yield found[-1]
    if cache is not None:  # read to the end without an unknown: the next caller need not read again
        cache["containers"] = found


# --- node selection ---------------------------------------------------------------------


def _read_expression(expr: Mapping[str, Any]) -> _Expr:
    key = text(dig(expr, "key"))
    operator = text(dig(expr, "operator"))
    values = tuple(_label_value(v) for v in items(dig(expr, "values")))  # immutable: judged once per expression
    return key, operator, values


@dataclass(frozen=True)
class NodeSelection:
    """A pod spec's ``nodeSelector`` and required node affinity, read once into plain values, so
    that it can be judged against many label sets without reading the resource again.

    Attributes:
        node_selector: ``(key, value as a label string or None)`` per ``nodeSelector`` entry.
        terms: per required ``nodeSelectorTerm``: its ``(key, operator, values)`` expressions and
            whether it has ``matchFields``.
        keys: every label key the selection looks at; :meth:`on` depends on nothing else.
        node_name: the pod spec's ``nodeName`` (None when unset): a DaemonSet's pods run only on the
            node of that name (:func:`gpu_node_pool.k8s.selection.fits_node_name`).
        refused: why the API server refuses the pod spec's placement fields (``nodeSelector``, required
            node affinity, ``nodeName``, a ``tolerations`` value that is no list), the field named relative
            to the pod spec (:mod:`gpu_node_pool.k8s.refusals`); empty when it accepts them. A refused
            selection is never judged: :meth:`on` is None, a placement ``notJudged``.
    """

    node_selector: tuple[tuple[Any, Any], ...]
    terms: tuple[tuple[list[_Expr], bool], ...]
    keys: tuple[Any, ...]
    node_name: str | None = None
    refused: str = ""

    @classmethod
    def of(cls, pod_spec: Mapping[str, Any]) -> NodeSelection:
        """Read ``pod_spec``'s node selection.

        Raises:
            UnknownValueError: a selector, affinity or ``nodeName`` value is unknown at preview (an unknown
                ``tolerations`` value is left to whoever reads the tolerations).
        """
        cache = derived(pod_spec)  # read once per evaluation when the runner offers a cache
        key = ("node_selection", _KUBE_VERSION.get())  # its refusals depend on the declared version
        if cache is not None and key in cache:
            return cache[key]
        refused = refusals_text(pod_spec_refusals(pod_spec))
        node_name = text(dig(pod_spec, "nodeName")) or None
        node_selector = tuple((key, _label_value(value)) for key, value in mapping(dig(pod_spec, "nodeSelector")).items())
        required = dig(pod_spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
        terms = []
        for term in list(items(dig(required, "nodeSelectorTerms"))):  # every term first, then each one's parts
            exprs = list(items(dig(term, "matchExpressions")))
            fields = list(items(dig(term, "matchFields")))
            terms.append(([_read_expression(mapping(e)) for e in exprs], bool(fields)))
        if required is not None and not terms:
            terms.append(([], False))  # required with no terms: matches no node (nodeaffinity.NodeSelector)
        keys = [key for key, _ in node_selector]
        keys += [e[0] for exprs, _ in terms for e in exprs if e[0] is not None]
        selection = cls(node_selector, tuple(terms), tuple(dict.fromkeys(keys)), node_name, refused or "")
        if cache is not None:
            cache[key] = selection  # frozen; its expression lists are only read
        return selection

    def on(self, labels: Mapping[str, str], *, complete: bool = False) -> bool | None:
        """:func:`selection` of the pod spec on a node carrying ``labels`` (``complete``: see
        :mod:`gpu_node_pool.k8s.selection`; True for a real Node's full label set)."""
        if self.refused:
            return None
        return selection_matches(self.node_selector, self.terms, labels, complete=complete)


#: The field :func:`pod_spec_refusals` names for a refusal inside the required node affinity.
_REQUIRED_AFFINITY = "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
#: Refused fields named after the first in :func:`refusals_text`; the rest are counted.
REFUSALS_NAMED = 5


def pod_spec_refusals(pod_spec: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every placement field of ``pod_spec`` the API server refuses (:mod:`gpu_node_pool.k8s.refusals`), as
    ``(field, why)`` relative to the pod spec, in one order: each ``nodeSelector`` entry (``nodeSelector['gpu']``;
    ``nodeSelector`` when it is no object), ``nodeName``, the required node affinity (one field, its first refusal:
    ``affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution``), then each toleration
    (``tolerations[1]``; ``tolerations`` when it is no list). ``[]`` when it refuses none.

    The first is :func:`~gpu_node_pool.k8s.refusals.placement_refusal`'s answer, else the first toleration's.

    Raises:
        UnknownValueError: as :func:`~gpu_node_pool.k8s.refusals.placement_refusal`, a selector, affinity or
            ``nodeName`` value is unknown at preview before any of them is refused; after one is, an unknown is
            passed over. An unknown toleration is passed over too (whoever reads the tolerations meets it).
    """
    found: list[tuple[str, str]] = []
    if isinstance(pod_spec, Mapping) and placement_refusal(pod_spec):  # one call when nothing is refused
        found = _placement_refusals(pod_spec)
    return found + _tolerations_refusals(pod_spec)


def refusals_text(refusals: list[tuple[str, str]]) -> str:
    """``refusals`` (:func:`pod_spec_refusals`) in one message: the first's ``why``, then, when there are more,
    ``; also refused, N more field(s) of this pod spec: <field>, ...`` naming up to :data:`REFUSALS_NAMED` of
    them and counting the rest. ``""`` for none."""
    if not refusals:
        return ""
    text = refusals[0][1]
    more = [field for field, _ in refusals[1:]]
    if more:
        named = ", ".join(more[:REFUSALS_NAMED])
        rest = f" and {len(more) - REFUSALS_NAMED} more" if len(more) > REFUSALS_NAMED else ""
        text += f"; also refused, {len(more)} more field(s) of this pod spec: {named}{rest}"
    return text


def tolerations_refused_text(pod_spec: Mapping[str, Any], problems: list[str]) -> str:
    """What a rule that reads only tolerations says of a pod spec whose tolerations it cannot read (``problems``
    of :func:`read_tolerations`, not empty): :func:`refusals_text` of every refused field, the text
    :attr:`NodeSelection.refused` holds, so every rule names the same fields; ``problems[0]`` when the API server
    refuses none of them (a toleration only this reader skips) or a placement value is unknown at preview."""
    try:
        return refusals_text(pod_spec_refusals(pod_spec)) or problems[0]
    except Exception as err:
        _unknown_only(err)
        return problems[0]


def _placement_refusals(pod_spec: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The refused fields among ``nodeSelector``, ``nodeName`` and the required node affinity, each read alone
    with :mod:`gpu_node_pool.k8s.refusals`; a value unknown at preview is passed over."""
    found: list[tuple[str, str]] = []

    def add(field: str, read: Any) -> None:
        try:
            why = read()
        except Exception as err:
            _unknown_only(err)
            return
        if why:
            found.append((field, why))

    try:
        selector = pod_spec.get("nodeSelector")
        entries = list(selector.items()) if isinstance(selector, Mapping) else None
    except Exception as err:
        _unknown_only(err)
        selector, entries = None, []
    if entries is None:
        add("nodeSelector", lambda: node_selector_refusal(selector))
    for key, value in entries or ():
        add(f"nodeSelector[{shown(key)}]", lambda key=key, value=value: node_selector_refusal({key: value}))
    add("nodeName", lambda: node_name_refusal(pod_spec.get("nodeName")))
    add(_REQUIRED_AFFINITY, lambda: placement_refusal({"affinity": pod_spec.get("affinity")}))
    return found


def _tolerations_refusals(pod_spec: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(field, why)`` of each refused toleration (:func:`~gpu_node_pool.k8s.refusals.toleration_refusal`), read item
    by item: an item unknown at preview is passed over (whoever reads the tolerations meets the unknown), and a later
    item the API server refuses is still named; ``("tolerations", why)`` when the value is no list. ``[]`` when the
    value itself is unknown (its shape is not known)."""
    version = _KUBE_VERSION.get()
    try:
        listed = dig(pod_spec, "tolerations")
        if sequence(listed) is not listed:  # absent, or no list: the refusal says which
            refusal = tolerations_refusal(listed, version)
            return [("tolerations", refusal)] if refusal else []
        count = len(listed)
    except Exception as err:
        _unknown_only(err)
        return []
    found = []
    for i in range(count):
        try:
            refusal = toleration_refusal(plain(listed[i]), f"tolerations[{i}]", version)
        except Exception as err:
            _unknown_only(err)
            continue
        if refusal:
            found.append((f"tolerations[{i}]", refusal))
    return found


def _unknown_only(err: Exception) -> None:
    """Raise ``err`` again unless it is the SDK's ``UnknownValueError`` (its class read only when something raised:
    the SDK is imported lazily)."""
    if not isinstance(err, _props.UnknownValueError):
        raise err


def selection(pod_spec: Mapping[str, Any], labels: Mapping[str, str]) -> bool | None:
    """Can a pod with this spec be placed on a node carrying ``labels``?

    Returns True (``nodeSelector`` and required node affinity are satisfied by ``labels``
    alone), False (they can never be satisfied there), or None (it depends on labels the
    pool does not declare). Preferred affinity, pod (anti-)affinity and an empty
    ``affinity: {}`` do not restrict nodes. To judge one pod spec against many label sets,
    read it once with :meth:`NodeSelection.of`.

    Raises:
        UnknownValueError: a selector or affinity value is unknown at preview.
    """
    return NodeSelection.of(pod_spec).on(labels)


def keeps_off(pod_spec: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """True when the pod can never land on a node carrying ``labels`` (see :func:`selection`)."""
    return selection(pod_spec, labels) is False


def selects_any_of(pod_spec: Mapping[str, Any], pairs: Iterable[tuple[str, str]]) -> bool:
    """True when node selection is pinned to label pairs in ``pairs`` (e.g. GPU pool labels).

    Either ``nodeSelector`` holds one of the pairs, or every required ``nodeSelectorTerm``
    has an ``In`` expression whose every value forms one of the pairs.
    """
    pairs = set(pairs)
    for key, value in mapping(dig(pod_spec, "nodeSelector")).items():
        if (key, _label_value(value)) in pairs:
            return True
    required = dig(pod_spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    terms = list(items(dig(required, "nodeSelectorTerms")))
    if not terms:
        return False
    for term in terms:
        pinned = False
        for expr in items(dig(term, "matchExpressions")):
            key = text(dig(expr, "key"))
            values = [_label_value(v) for v in items(dig(expr, "values"))]
            if dig(expr, "operator") == "In" and values and all((key, v) in pairs for v in values):
                pinned = True
        if not pinned:
            return False
    return True


# --- staying on a tainted node ----------------------------------------------------------


@dataclass(frozen=True)
class Stay:
    """How a pod fares against one taint (:func:`stay_on`).

    Attributes:
        taint: the taint.
        tolerated: some toleration tolerates it (``tolerates``).
        evicted_after: for an evicting taint whose first matching toleration has ``tolerationSeconds``, those
            seconds, 0 for zero or less (the pod runs that long, then is evicted); else None.
        toleration: the toleration that matches first, the one Kubernetes applies; None when none matches.
    """

    taint: Taint
    tolerated: bool
    evicted_after: int | None = None
    toleration: Toleration | None = None

    @property
    def ok(self) -> bool:
        """Tolerated for good."""
        return self.tolerated and self.evicted_after is None

    def describe(self) -> str:
        if self.ok:
            return f"{self.taint} tolerated"
        if self.tolerated:
            return f"{self.taint} tolerated for {self.evicted_after} s, then evicted"
        return f"{self.taint} not tolerated"


def stay_on(tolerations: Iterable[Toleration], taint: Taint) -> Stay:
    """Whether ``tolerations`` (in the pod spec's order) keep a pod on a node with ``taint`` for good.

    Kubernetes applies, per taint, the FIRST toleration that matches it, and only that one: the taint-eviction
    controller asks ``GetMatchingTolerations`` (kubernetes ``pkg/apis/core/v1/helper/helpers.go``, read at commit
    ``02abf3411556e13f91cbb0831842017e789da3a7``), which keeps the first match per taint and breaks, and evicts after
    the least ``tolerationSeconds`` of those (``getMinTolerationTime``, zero or less meaning at once, in
    ``pkg/controller/tainteviction/taint_eviction.go``, read at commit ``003e86297d18a8538c9da3619871393f9703bf70``;
    https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/#taint-based-evictions). So
    ``[{key: k, effect: NoExecute, tolerationSeconds: 60}, {operator: Exists}]`` is evicted from ``k:NoExecute`` after
    60 s, and the same two the other way round stay for good.

    Returns:
        a :class:`Stay`: not tolerated when no toleration matches; tolerated for good when the taint does not evict
        (``NoSchedule``, ``PreferNoSchedule``: seconds apply only to ``NoExecute``) or its first matching toleration
        has no ``tolerationSeconds``; else tolerated with ``evicted_after`` that toleration's seconds (0 for zero or
        less).
    """
    first = next((t for t in tolerations if tolerates(t, taint)), None)
    if first is None:
        return Stay(taint, False)
    if not taint.effect.evicts or first.toleration_seconds is None:
        return Stay(taint, True, toleration=first)
    return Stay(taint, True, max(first.toleration_seconds, 0), first)


def gpu_resources_requested(pod_spec: Mapping[str, Any]) -> list[str]:
    """The GPU extended resources (:func:`gpu_node_pool.k8s.wellknown.is_gpu_resource`) any container
    or init container of ``pod_spec`` requests or limits above zero, sorted."""
    from ..k8s.quantity import parse_quantity
    from ..k8s.wellknown import is_gpu_resource

    found: set[str] = set()
    for _, container in containers(pod_spec):
        for field_name in ("limits", "requests"):
            for name, value in mapping(dig(container, "resources", field_name)).items():
                if is_gpu_resource(name):
                    qty = parse_quantity(value)
                    if qty is not None and qty > 0:
                        found.add(name)
    return sorted(found)
