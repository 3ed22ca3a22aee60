"""What the API server refuses in a pod spec's placement fields: ``tolerations``, ``nodeSelector``, the
required node affinity and ``nodeName``. A pod spec refused there never reaches a node, so no placement
verdict (runs, does not run, kept off) is true of it: callers report it as not judged, with the reason.

Two kinds of refusal, both before any object is stored:

1. **Decoding**: the JSON must fit the Go types of ``k8s.io/api`` ``core/v1`` ``PodSpec``:
   ``tolerations`` a list of objects, ``nodeSelector`` a ``map[string]string``, a
   ``NodeSelectorRequirement``'s ``key``/``operator`` strings and ``values`` a list of strings,
   ``nodeName`` a string. A ``true``, ``1``, list or object where a string belongs is refused
   ("cannot unmarshal bool into Go struct field ... of type string"). A ``null`` value in
   ``nodeSelector`` is read as ``""`` by the decoder on create but as "remove this key" by a merge
   patch (RFC 7386, strategic merge patch), so what the cluster keeps is not known: not judged either.
2. **Validation** (kubernetes ``pkg/apis/core/validation/validation.go``, read at commit
   ``000f26050b9be6fb3d79fae95e06b47fc96128cd``): ``ValidatePodSpec`` checks ``nodeSelector`` with
   ``ValidateLabels`` (qualified-name keys, label values) and ``nodeName`` with ``ValidateNodeName``
   (a DNS subdomain); ``ValidateNodeSelector`` wants at least one ``nodeSelectorTerm``;
   ``ValidateNodeSelectorRequirement`` wants values for ``In``/``NotIn``, none for ``Exists``/
   ``DoesNotExist``, exactly one for ``Gt``/``Lt``, one of those six operators, and a qualified-name
   key; ``ValidateNodeFieldSelectorRequirement`` wants ``matchFields`` on ``metadata.name`` with
   ``In``/``NotIn`` and exactly one node name. ``ValidateTolerations`` (same file and commit) refuses a
   toleration by the rules of :mod:`gpu_node_pool.k8s.toleration_rules`, their one definition, which
   :class:`~gpu_node_pool.k8s.taints.Toleration` builds with too (``Gt``/``Lt`` accepted with a decimal integer
   value, as on Kubernetes 1.35+ with the alpha gate ``TaintTolerationComparisonOperators`` on; given the
   cluster's declared version, :func:`toleration_refusal` refuses them below 1.35:
   :func:`~gpu_node_pool.k8s.toleration_rules.numeric_operator_refusal`). :func:`toleration_refusal` names the rule
   and the fix.

Not refusals, and so judged as the matcher reads them (:mod:`gpu_node_pool.k8s.selection`): an empty
``nodeSelectorTerm`` (valid; it matches no node), a ``Gt``/``Lt`` value that is no integer (valid;
the term matches no node), and an ``In``/``NotIn`` value that is no label value: the API server refuses
it on create only since Kubernetes 1.33 (kubernetes/kubernetes#128212) and keeps an older object's, whose
term then matches no node; either way the pod lands on no node through that term.

An object's own ``metadata.name`` and ``metadata.namespace`` are refused alike (``ValidateObjectMeta``; the name a
DNS-1123 subdomain, the namespace a DNS-1123 label): :func:`metadata_refusal`, so an object the API server never
stores is not judged either.

Pure, over plain mappings and lists or any ``collections.abc`` ``Mapping``/``Sequence`` (a value that
raises when read raises here too). Each answer names the field relative to the pod spec
(``nodeSelector['nvidia.com/gpu.present']``); callers put the pod spec's own path before it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..text.terminal import shown
from .go_numbers import yaml_exponent_float
from .labels import label_syntax
from .names import (
    DNS1123_LABEL_MAX,
    DNS1123_LABEL_RE,
    DNS1123_LABEL_RULE,
    DNS1123_SUBDOMAIN_MAX,
    DNS1123_SUBDOMAIN_RE,
    qualified_name_problem,
)
from .patterns import full_match
from .selection import NODE_SELECTOR_OPERATORS, values_count_problem
from .toleration_rules import (
    TOLERATIONS_SOURCE,
    broken_toleration_rule,
    numeric_operator_refusal,
    seconds_range_refusal,
    whole_seconds,
)

__all__ = ["REFUSED", "TOLERATIONS_SOURCE", "placement_refusal", "tolerations_refusal", "toleration_refusal",
           "node_selector_refusal", "required_affinity_refusal", "node_name_refusal", "requirement_refusal",
           "APPS_VALIDATION", "APPS_VALIDATION_COMMIT", "CORE_VALIDATION", "CORE_VALIDATION_COMMIT", "RequiredField",
           "REQUIRED_FIELDS", "OBJECT_REFUSED", "OBJECT_NAME_SOURCES", "OBJECT_NAME_SOURCE",
           "NAMESPACE_SOURCE", "metadata_refusal", "json_kind"]

#: How every refusal ends: who refuses, and so why nothing is judged.
REFUSED = "the API server refuses this pod spec"

_REQUIRED = "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))


def json_kind(value: Any) -> str:
    """What a JSON (or YAML) value is, in a message: ``true (a boolean)``, ``1 (a number)``, ``'x' (a string)``,
    ``null``, ``an object``, ``a list``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{'true' if value else 'false'} (a boolean)"
    if isinstance(value, (int, float)):
        return f"{shown(value)} (a number)"
    if isinstance(value, str):
        return f"{shown(value)} (a string)"
    if isinstance(value, Mapping):
        return "an object"
    if _is_list(value):
        return "a list"
    return f"a {type(value).__name__}"


def tolerations_refusal(value: Any, kube_version: tuple[str, str] | None = None) -> str | None:
    """Why the API server refuses ``tolerations`` (the pod spec's value, None when absent), or None.

    It must be a list (``PodSpec.tolerations`` is ``[]Toleration``) whose every item
    :func:`toleration_refusal` accepts (``kube_version`` as there); the first refusal is named
    (``tolerations[1].operator 'exists' ...``).
    """
    if value is None:
        return None
    if not _is_list(value):
        return f"tolerations is {json_kind(value)}, not a list: {REFUSED} (PodSpec.tolerations is a list of Toleration)"
    for i, item in enumerate(value):
        refusal = toleration_refusal(item, f"tolerations[{i}]", kube_version)
        if refusal:
            return refusal
    return None


def toleration_refusal(toleration: Any, where: str = "toleration",
                       kube_version: tuple[str, str] | None = None) -> str | None:
    """Why the API server refuses one item of ``tolerations``, or None. ``where`` names it in the message.

    ``kube_version``: ``(version, who declares it)`` of the cluster (``("1.33", "GpuNodePool 'gpu'")``), None when
    none is declared; below 1.35 an operator ``Gt``/``Lt`` is refused
    (:func:`~gpu_node_pool.k8s.toleration_rules.numeric_operator_refusal`, once the toleration decodes and its
    ``tolerationSeconds`` fits), else it is judged as on a cluster with the gate on.

    Decoding (``core/v1`` ``Toleration``): an object whose ``key``, ``operator``, ``value`` and ``effect`` are
    strings (null reads as empty) and ``tolerationSeconds`` an integer
    (:func:`~gpu_node_pool.k8s.toleration_rules.whole_seconds`). Then the first ``ValidateTolerations`` rule broken
    (:data:`TOLERATIONS_SOURCE`), as :func:`~gpu_node_pool.k8s.toleration_rules.broken_toleration_rule` names it:
    the one definition :class:`~gpu_node_pool.k8s.taints.Toleration` builds with too, so what this accepts is
    what a ``Toleration`` is built of, and is matched as Kubernetes matches it.

    The answer reads ``<where>.<field> <value>: <rule>: <who refuses> (<source>); fix: <what to write>``, e.g.
    ``tolerations[0].operator 'exists': must be Equal or Exists ...; fix: write Exists``.
    """
    if not isinstance(toleration, Mapping):
        return (f"{where} is {json_kind(toleration)}, not an object: {REFUSED} (a Toleration is an object of key, "
                "operator, value, effect)")
    read: dict[str, str] = {}
    for name in ("key", "operator", "value", "effect"):
        value = toleration.get(name)
        if value is not None and not isinstance(value, str):
            return f"{where}.{name} is {json_kind(value)}, not a string: {REFUSED} (Toleration.{name} is a string; quote it)"
        read[name] = value or ""
    seconds = toleration.get("tolerationSeconds")
    whole = None if seconds is None else whole_seconds(seconds)
    number = yaml_exponent_float(seconds)
    past = None if number is None else seconds_range_refusal(whole_seconds(number))
    if past is not None:  # refused quoted (a string) and unquoted (past int64) alike
        return (f"{where}.tolerationSeconds {shown(seconds)} is read here as a string, but written unquoted (as "
                f"Helm's toYaml writes a big number) it is the number {number:g} to Kubernetes' YAML readers (YAML "
                f"1.2, https://yaml.org/spec/1.2.2/#10214-floating-point), and either way refused: "
                f"{past.rule}: {REFUSED} ({past.source}); fix: {past.fix}")
    if seconds is not None and whole is None:
        return f"{where}.tolerationSeconds is {json_kind(seconds)}; it must be an integer (whole seconds): {REFUSED}"
    broken = seconds_range_refusal(whole)
    if broken is None and kube_version is not None:
        broken = numeric_operator_refusal(read["operator"], *kube_version)
    if broken is None:
        broken = broken_toleration_rule(read["key"], read["operator"], read["value"], read["effect"], whole)
    if broken is None:
        return None
    return (f"{where}.{broken.field} {shown(broken.value)}: {broken.rule}: {REFUSED} ({broken.source}); "
            f"fix: {broken.fix}")


def node_selector_refusal(value: Any) -> str | None:
    """Why the API server refuses ``nodeSelector`` (None when absent), or None: it must be an object of
    strings (``map[string]string``) whose keys are qualified names and values label values
    (``ValidatePodSpec``: ``ValidateLabels(spec.NodeSelector)``; the syntax of labels is
    :func:`gpu_node_pool.k8s.labels.label_syntax`)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        return f"nodeSelector is {json_kind(value)}, not an object: {REFUSED} (nodeSelector is map[string]string)"
    for key, item in value.items():
        where = f"nodeSelector[{shown(key)}]"
        if item is None:
            return (f"{where} is null, not a string: nodeSelector is map[string]string, and a null there is read as "
                    "an empty value on create but as a removal by a merge patch, so what the cluster keeps is not "
                    "known (quote the value)")
        if not isinstance(item, str):
            return f"{where} is {json_kind(item)}, not a string: {REFUSED} (nodeSelector is map[string]string; quote the value)"
        broken = label_syntax(key, item)
        if broken is None:
            continue
        part, problem = broken
        if part == "key":
            return f"nodeSelector key {shown(key)} {problem}: {REFUSED} (its keys must be label keys)"
        return f"{where} {shown(item)} {problem}: {REFUSED} (its values must be label values)"
    return None


def node_name_refusal(value: Any) -> str | None:
    """Why the API server refuses ``nodeName`` (None or ``""`` when unset), or None: a string that is a DNS
    subdomain (``ValidatePodSpec``: ``ValidateNodeName``)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        return f"nodeName is {json_kind(value)}, not a string: {REFUSED}"
    if len(value) > DNS1123_SUBDOMAIN_MAX or not full_match(DNS1123_SUBDOMAIN_RE, value):
        return f"nodeName {shown(value)} is not a node name (a DNS subdomain): {REFUSED}"
    return None


def _values_refusal(values: Any, where: str) -> tuple[list[Any], str | None]:
    """The requirement's values as a list, or why they are refused: absent or null is no values."""
    if values is None:
        return [], None
    if not _is_list(values):
        return [], f"{where}.values is {json_kind(values)}, not a list: {REFUSED}"
    found = list(values)
    for i, value in enumerate(found):
        if not isinstance(value, str):
            return found, f"{where}.values[{i}] is {json_kind(value)}, not a string: {REFUSED} (quote the value)"
    return found, None


def requirement_refusal(requirement: Any, where: str = "requirement", *, field: bool = False) -> str | None:
    """Why the API server refuses one ``matchExpressions`` item (``field``: one ``matchFields`` item), or None.

    ``ValidateNodeSelectorRequirement``: one of :data:`~gpu_node_pool.k8s.selection.NODE_SELECTOR_OPERATORS`, as
    many values as :func:`~gpu_node_pool.k8s.selection.values_count_problem` says (``In``/``NotIn`` at least one,
    ``Exists``/``DoesNotExist`` none, ``Gt``/``Lt`` exactly one), and a qualified-name key.
    ``ValidateNodeFieldSelectorRequirement``: the key must be ``metadata.name``, the operator ``In``/``NotIn``
    with exactly one value, a node name. ``where`` names the item in the message.
    """
    if not isinstance(requirement, Mapping):
        return f"{where} is {json_kind(requirement)}, not an object: {REFUSED}"
    key, operator = requirement.get("key"), requirement.get("operator")
    for name, value in (("key", key), ("operator", operator)):
        if value is not None and not isinstance(value, str):
            return f"{where}.{name} is {json_kind(value)}, not a string: {REFUSED}"
    values, refusal = _values_refusal(requirement.get("values"), where)
    if refusal:
        return refusal
    if field:
        if key != "metadata.name":
            return f"{where}: matchFields key {shown(key or '')} is not metadata.name: {REFUSED}"
        if operator not in ("In", "NotIn"):
            return f"{where}: matchFields operator {shown(operator or '')} is not In or NotIn: {REFUSED}"
        if len(values) != 1:
            return f"{where}: matchFields {operator} needs exactly one node name, got {len(values)}: {REFUSED}"
        if not values[0] or node_name_refusal(values[0]):
            return f"{where}: matchFields value {shown(values[0])} is not a node name: {REFUSED}"
        return None
    if operator not in NODE_SELECTOR_OPERATORS:
        return f"{where}: operator {shown(operator or '')} is not one of {', '.join(NODE_SELECTOR_OPERATORS)}: {REFUSED}"
    count = values_count_problem(operator, len(values))
    if count:
        return f"{where}: operator {operator} {count}, got {len(values)}: {REFUSED}"
    problem = qualified_name_problem(key or "")
    if problem:
        return f"{where}: key {shown(key or '')} {problem}: {REFUSED}"
    return None


def required_affinity_refusal(required: Any) -> str | None:
    """Why the API server refuses the required node affinity (``requiredDuringSchedulingIgnoredDuringExecution``,
    None when absent), or None: an object with at least one term (``ValidateNodeSelector``), each term an
    object whose ``matchExpressions`` and ``matchFields`` are lists of valid requirements."""
    if required is None:
        return None
    if not isinstance(required, Mapping):
        return f"{_REQUIRED} is {json_kind(required)}, not an object: {REFUSED}"
    terms = required.get("nodeSelectorTerms")
    where = f"{_REQUIRED}.nodeSelectorTerms"
    if terms is not None and not _is_list(terms):
        return f"{where} is {json_kind(terms)}, not a list: {REFUSED}"
    if not terms:
        return f"{where} is empty: {REFUSED} (a required node selector needs at least one term)"
    for i, term in enumerate(terms):
        if not isinstance(term, Mapping):
            return f"{where}[{i}] is {json_kind(term)}, not an object: {REFUSED}"
        for part, field in (("matchExpressions", False), ("matchFields", True)):
            items = term.get(part)
            if items is not None and not _is_list(items):
                return f"{where}[{i}].{part} is {json_kind(items)}, not a list: {REFUSED}"
            for j, item in enumerate(items or ()):
                refusal = requirement_refusal(item, f"{where}[{i}].{part}[{j}]", field=field)
                if refusal:
                    return refusal
    return None


def placement_refusal(pod_spec: Mapping[str, Any]) -> str | None:
    """The first refusal among the pod spec's ``nodeSelector``, required node affinity and ``nodeName``
    (the module docstring), or None. ``tolerations`` are read apart (:func:`tolerations_refusal`): their
    list is read with the tolerations."""
    refusal = node_selector_refusal(pod_spec.get("nodeSelector")) or node_name_refusal(pod_spec.get("nodeName"))
    if refusal:
        return refusal
    affinity = pod_spec.get("affinity")
    if affinity is None:
        return None
    if not isinstance(affinity, Mapping):
        return f"affinity is {json_kind(affinity)}, not an object: {REFUSED}"
    node_affinity = affinity.get("nodeAffinity")
    if node_affinity is None:
        return None
    if not isinstance(node_affinity, Mapping):
        return f"affinity.nodeAffinity is {json_kind(node_affinity)}, not an object: {REFUSED}"
    return required_affinity_refusal(node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution"))


# --- Fields the API server requires: an object without one is refused -------------------------------------------

#: The files of the rules of :data:`REQUIRED_FIELDS`; read at commit :data:`APPS_VALIDATION_COMMIT` and
#: :data:`CORE_VALIDATION_COMMIT` of kubernetes/kubernetes.
APPS_VALIDATION = "kubernetes/kubernetes pkg/apis/apps/validation/validation.go"
APPS_VALIDATION_COMMIT = "2dd1588c490775be7cd90d0afc59c6dcef07032a"
CORE_VALIDATION = "kubernetes/kubernetes pkg/apis/core/validation/validation.go"
CORE_VALIDATION_COMMIT = "000f26050b9be6fb3d79fae95e06b47fc96128cd"


@dataclass(frozen=True)
class RequiredField:
    """A field the API server refuses an object without (absent, ``null`` or, for an array, empty).

    Attributes:
        path: dotted field names from the object's root (``spec.template.spec.containers``).
        what: what must be there, in words (``a label selector``).
        api: the API's field and type (``DaemonSetSpec.selector, *LabelSelector``).
        rule: the validation that refuses the object, in words, naming its function.
        source: the file of that function (:data:`APPS_VALIDATION`, :data:`CORE_VALIDATION`).
    """

    path: str
    what: str
    api: str
    rule: str
    source: str

    @property
    def requires(self) -> str:
        """What the API server requires there, its rule and source, for a message: ``a label selector
        (DaemonSetSpec.selector, *LabelSelector; <rule>: <source>)``."""
        return f"{self.what} ({self.api}; {self.rule}: {self.source})"


_CONTAINERS_RULE = "ValidatePodSpec refuses a pod spec without one, in validateContainers"

#: kind -> the fields the API server refuses an object of that kind without. A DaemonSet: apps/v1 gives it no
#: default selector, and ``ValidateDaemonSetSpec`` refuses one whose selector does not match its template's labels
#: ("`selector` does not match template `labels`"), which a missing selector never does (it selects nothing); its
#: template is validated as a pod spec (``ValidatePodTemplateSpec``). A pod spec: ``validateContainers`` requires at
#: least one container. Sources: :data:`APPS_VALIDATION` at :data:`APPS_VALIDATION_COMMIT`, :data:`CORE_VALIDATION`
#: at :data:`CORE_VALIDATION_COMMIT`.
REQUIRED_FIELDS: dict[str, tuple[RequiredField, ...]] = {
    "DaemonSet": (
        RequiredField("spec.selector", "a label selector", "DaemonSetSpec.selector, *LabelSelector",
                      "apps/v1 sets no default, and ValidateDaemonSetSpec refuses a DaemonSet whose selector does not "
                      "match its template's labels, as a missing one never does", APPS_VALIDATION),
        RequiredField("spec.template.spec.containers", "a pod template with at least one container",
                      "PodSpec.containers, []Container", _CONTAINERS_RULE, CORE_VALIDATION),
    ),
    "Pod": (
        RequiredField("spec.containers", "at least one container", "PodSpec.containers, []Container", _CONTAINERS_RULE,
                      CORE_VALIDATION),
    ),
}


# --- metadata.name and metadata.namespace: ValidateObjectMeta ----------------------------------------------------

#: How a refusal of an object's metadata ends: who refuses, and so why nothing of it is judged.
OBJECT_REFUSED = "the API server refuses this object"
_GENERIC = "k8s.io/apimachinery pkg/api/validation/generic.go"
#: The name function ``ValidateObjectMeta`` (k8s.io/apimachinery ``pkg/api/validation/objectmeta.go``) applies to a
#: kind's ``metadata.name``, where it is ``NameIsDNSSubdomain`` (``pkg/api/validation/generic.go``). Every other
#: workload kind's function is that or stricter, so a name that is no DNS-1123 subdomain is refused whatever the kind.
OBJECT_NAME_SOURCES: dict[str, str] = {
    "DaemonSet": f"ValidateDaemonSetName = NameIsDNSSubdomain in {APPS_VALIDATION}",
    "Deployment": f"ValidateDeploymentName = NameIsDNSSubdomain in {APPS_VALIDATION}",
}
#: The source told for a kind not in :data:`OBJECT_NAME_SOURCES`.
OBJECT_NAME_SOURCE = f"ValidateObjectMeta with the kind's name function, NameIsDNSSubdomain or stricter ({_GENERIC})"
#: The rule of ``metadata.namespace``: ``ValidateObjectMetaAccessor`` checks it with ``ValidateNamespaceName``,
#: which is ``NameIsDNSLabel``.
NAMESPACE_SOURCE = ("ValidateNamespaceName = NameIsDNSLabel, which ValidateObjectMetaAccessor applies "
                    "(k8s.io/apimachinery pkg/api/validation/objectmeta.go)")
_NAME_CHARS = "lower-case letters, digits and '-'"


def _dns_example(value: str, dots: bool) -> str:
    """A valid name made from ``value`` (lower-cased, each run of other characters turned to ``-``, empty parts
    dropped), else ``my-name``."""
    parts = value.lower().split(".") if dots else [value.lower()]
    made = ".".join(p for p in (re.sub(r"[^a-z0-9]+", "-", part).strip("-") for part in parts) if p)
    made = made[:DNS1123_SUBDOMAIN_MAX if dots else DNS1123_LABEL_MAX].rstrip("-.")
    return made if made and full_match(DNS1123_SUBDOMAIN_RE if dots else DNS1123_LABEL_RE, made) else "my-name"


def metadata_refusal(kind: str, name: Any, namespace: Any) -> tuple[str, str] | None:
    """``(field, why)`` of the first of an object's ``metadata.name`` and ``metadata.namespace`` the API server
    refuses, or None. ``kind``: the object's kind (``DaemonSet``), for the message; ``name`` and ``namespace``: the
    values as written, None when absent (an absent name is the caller's: generated or Pulumi's auto-name; an absent
    namespace is the client's default), so only a value written is judged.

    Rules: a name must be a DNS-1123 subdomain (``[a-z0-9]([-a-z0-9]*[a-z0-9])?`` parts joined by ``.``, at most
    253 characters; :data:`OBJECT_NAME_SOURCE`); a namespace a DNS-1123 label (one such part, at most 63;
    :data:`NAMESPACE_SOURCE`); either must be a string (the JSON decoder refuses any other value into
    ``ObjectMeta``'s string fields). ``why`` names the field, the value (:func:`~gpu_node_pool.text.terminal.shown`:
    control and bidirectional characters escaped), the rule, its source, a valid value to write, and ends with
    :data:`OBJECT_REFUSED`."""
    for field, value, dots in (("metadata.name", name, True), ("metadata.namespace", namespace, False)):
        if value is None:
            continue
        source = OBJECT_NAME_SOURCES.get(kind, OBJECT_NAME_SOURCE) if dots else NAMESPACE_SOURCE
        if not isinstance(value, str):
            return field, (f"{field} of {kind} is {json_kind(value)}, not a string ({source}): write a name such as "
                           f"'my-name'; {OBJECT_REFUSED}")
        limit = DNS1123_SUBDOMAIN_MAX if dots else DNS1123_LABEL_MAX
        pattern = DNS1123_SUBDOMAIN_RE if dots else DNS1123_LABEL_RE
        if len(value) <= limit and full_match(pattern, value):
            continue
        rule = (f"a DNS-1123 subdomain ({_NAME_CHARS} and '.', a letter or digit at each end of each part; at most "
                f"{limit} characters)" if dots else
                DNS1123_LABEL_RULE)
        return field, (f"{field} {shown(value)} of {kind} is not {rule} ({source}): write "
                       f"{_dns_example(value, dots)!r}; {OBJECT_REFUSED}")
    return None
