"""CEL building blocks of the ValidatingAdmissionPolicies (pure text; no Pulumi, no I/O).

Every expression stays within the Kubernetes CEL environment of 1.30, the first version that serves
``admissionregistration.k8s.io/v1`` ValidatingAdmissionPolicy: the standard macros (``has``,
``exists``, ``all``, ``filter``, ``size``), ``in`` over lists and maps, ``startsWith`` and ``matches`` on
strings, ``string()``; no extension library (https://kubernetes.io/docs/reference/using-api/cel/).
Both CEL runtimes of the tests (cel-python and Google's cel-expr-python, a binding of cel-cpp)
accept these forms; map literals are written with string keys only.

Cost. The API server stops an expression at ``PerCallLimit`` = 1,000,000 cost units, one binding's
evaluation at ``RuntimeCELCostBudget`` = 10,000,000 and the match conditions at
``RuntimeCELCostBudgetMatchConditions`` = 2,500,000 (``k8s.io/apiserver/pkg/apis/cel`` constants,
https://pkg.go.dev/k8s.io/apiserver/pkg/apis/cel). The rendered CEL keeps within them by design:
taints, pools and label maps are known when rendering, so they are written out as literals, and a
comprehension only ever runs over a list of the admitted object (tolerations, containers, the
``nodeSelector`` map, required node selector terms and their expressions: at most two levels, terms
then expressions). The one product of two lists is the Node rule's check that a newly set taint was not
on the old Node (new taints x old taints, both one Node's taints: a handful in practice, each comparison
constant cost).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from ..k8s.taints import Taint, decimal_integer
from ..k8s.wellknown import NVIDIA_GPU_RESOURCE, NVIDIA_MIG_RESOURCE_PREFIX, NVIDIA_SHARED_GPU_RESOURCE

__all__ = [
    "lit", "list_lit", "map_lit", "opt", "tolerates", "stays_for", "requests_gpu", "requests_resource",
    "selection_false", "selection_true", "POD_SPEC_VARIABLES", "NOT_ABOVE_ZERO",
]

#: A zero (or negative) quantity in Kubernetes' quantity syntax: it requests nothing.
NOT_ABOVE_ZERO = r"^(-.*|[+]?(0+[.]?0*|[.]0+)([eE][+-]?[0-9]+|[numkMGTPE]|[KMGTPE]i)?)$"


def lit(value: str) -> str:
    """A CEL string literal (JSON's escapes are CEL's for these characters)."""
    return json.dumps(value)


def list_lit(values: Iterable[str]) -> str:
    """A CEL list of string literals."""
    return "[" + ", ".join(lit(v) for v in values) + "]"


def map_lit(values: Mapping[str, str]) -> str:
    """A CEL map literal with string keys and values, keys sorted."""
    return "{" + ", ".join(f"{lit(k)}: {lit(v)}" for k, v in sorted(values.items())) + "}"


def opt(var: str, field: str) -> str:
    """``var.field``, or ``''`` when unset."""
    return f"(has({var}.{field}) ? {var}.{field} : '')"


#: A canonical decimal integer of at most 19 digits (k8s.io/apimachinery ``content.IsDecimalInteger``).
DECIMAL_INTEGER = "^(0|-?[1-9][0-9]{0,18})$"


def tolerates(var: str, taint: Taint) -> str:
    """CEL: toleration ``var`` tolerates ``taint`` (Kubernetes ``ToleratesTaint``, as
    :func:`gpu_node_pool.k8s.taints.tolerates` words it): empty effect or the taint's, empty key or the
    taint's, and ``Exists``, an equal value (``Equal`` or no operator), or ``Gt``/``Lt`` against a taint whose
    value is a 64-bit decimal integer, compared as integers (the API server has checked a Gt/Lt toleration's
    value before validating admission runs; the ``matches`` guard keeps ``int()`` from failing on anything else)."""
    operator, value = opt(var, "operator"), opt(var, "value")
    by_value = f"(({operator} == '' || {operator} == 'Equal') && {value} == {lit(taint.value or '')})"
    number = decimal_integer(taint.value)
    numeric = ""
    if number is not None:
        guard = f"{value}.matches({lit(DECIMAL_INTEGER)})"
        numeric = (f" || ({operator} == 'Gt' && {guard} && int({value}) < {number})"
                   f" || ({operator} == 'Lt' && {guard} && int({value}) > {number})")
    return (
        f"({opt(var, 'effect')} == '' || {var}.effect == {lit(taint.effect.value)}) && "
        f"({opt(var, 'key')} == '' || {var}.key == {lit(taint.key)}) && "
        f"({operator} == 'Exists' || {by_value}{numeric})"
    )


def stays_for(tolerations: str, taint: Taint) -> str:
    """CEL: the list ``tolerations`` keeps a pod on a node with ``taint`` for good (a ``NoExecute`` taint needs its
    FIRST matching toleration to have no ``tolerationSeconds``: Kubernetes applies only that one,
    :func:`gpu_node_pool.policies.workloads.stay_on`; ``filter`` is a standard macro)."""
    match = tolerates("t", taint)
    if not taint.effect.evicts:
        return f"{tolerations}.exists(t, {match})"
    return f"({tolerations}.exists(t, {match}) && !has({tolerations}.filter(t, {match})[0].tolerationSeconds))"


def _gpu_resource(var: str) -> str:
    return (f"({var} == {lit(NVIDIA_GPU_RESOURCE)} || {var} == {lit(NVIDIA_SHARED_GPU_RESOURCE)} || "
            f"{var}.startsWith({lit(NVIDIA_MIG_RESOURCE_PREFIX)}))")


def requests_gpu(containers: str = "variables.containers") -> str:
    """CEL: a container of the list ``containers`` requests or limits a GPU resource above zero
    (:func:`gpu_node_pool.k8s.wellknown.is_gpu_resource`)."""
    def field(name: str) -> str:
        m = f"c.resources.{name}"
        return (f"(has({m}) && {m}.exists(r, {_gpu_resource('r')} && "
                f"!string({m}[r]).matches({lit(NOT_ABOVE_ZERO)})))")

    return f"{containers}.exists(c, has(c.resources) && ({field('limits')} || {field('requests')}))"


def requests_resource(resource: str, containers: str = "variables.containers") -> str:
    """CEL: a container names ``resource`` in its requests or limits (what ExtendedResourceToleration
    reads: ``plugin/pkg/admission/extendedresourcetoleration``)."""
    return (f"{containers}.exists(c, has(c.resources) && ((has(c.resources.requests) && {lit(resource)} in "
            f"c.resources.requests) || (has(c.resources.limits) && {lit(resource)} in c.resources.limits)))")


#: ``variables`` every pod-template rule declares: the pod spec of a Pod or of a workload's template,
#: its containers (init, regular, ephemeral), tolerations, ``nodeSelector`` and required node selector terms.
POD_SPEC_VARIABLES: list[dict[str, str]] = [
    {"name": "podSpec", "expression": "object.kind == 'Pod' ? object.spec : object.kind == 'CronJob' ? "
                                      "object.spec.jobTemplate.spec.template.spec : object.spec.template.spec"},
    {"name": "containers", "expression": " + ".join(
        f"(has(variables.podSpec.{g}) ? variables.podSpec.{g} : [])" for g in ("initContainers", "containers", "ephemeralContainers"))},
    {"name": "tolerations", "expression": "has(variables.podSpec.tolerations) ? variables.podSpec.tolerations : []"},
    {"name": "nodeSelector", "expression": "has(variables.podSpec.nodeSelector) ? variables.podSpec.nodeSelector : {}"},
    {"name": "terms", "expression": "has(variables.podSpec.affinity) && has(variables.podSpec.affinity.nodeAffinity) && "
                                    "has(variables.podSpec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution) && "
                                    "has(variables.podSpec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms) ? "
                                    "variables.podSpec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms : []"},
    {"name": "workload", "expression": "object.kind + ' ' + request.namespace + '/' + "
                                       "(has(object.metadata.name) ? object.metadata.name : "
                                       "(has(object.metadata.generateName) ? object.metadata.generateName : ''))"},
]

_VALUES = "(has(e.values) ? e.values : [])"


def _expression_false(labels: str) -> str:
    """An expression ``e`` on a key the pool labels is false on the pool's nodes (``In``, ``NotIn``,
    ``DoesNotExist``; ``Gt``/``Lt`` are left undecided here)."""
    have = f"{labels}[e.key]"
    return (f"e.key in {labels} && ((e.operator == 'In' && !({have} in {_VALUES})) || "
            f"(e.operator == 'NotIn' && {have} in {_VALUES}) || e.operator == 'DoesNotExist')")


def _expression_true(labels: str) -> str:
    have = f"{labels}[e.key]"
    return (f"e.key in {labels} && ((e.operator == 'In' && {have} in {_VALUES}) || "
            f"(e.operator == 'NotIn' && !({have} in {_VALUES})) || e.operator == 'Exists')")


def selection_false(labels: Mapping[str, str]) -> str:
    """CEL: the pod spec's ``nodeSelector`` and required node affinity (``variables.nodeSelector``,
    ``variables.terms``) never match a node with the pool's declared ``labels`` (the pool's nodes may carry
    more labels: a key the pool does not label decides nothing, as
    :func:`gpu_node_pool.k8s.selection.selection_matches` with ``complete=False``)."""
    m = map_lit(labels)
    term_false = (f"((!has(t.matchExpressions) || size(t.matchExpressions) == 0) && !has(t.matchFields)) || "
                  f"(has(t.matchExpressions) && t.matchExpressions.exists(e, {_expression_false(m)}))")
    return (f"(variables.nodeSelector.exists(k, k in {m} && variables.nodeSelector[k] != {m}[k]) || "
            f"(size(variables.terms) > 0 && variables.terms.all(t, {term_false})))")


def selection_true(labels: Mapping[str, str]) -> str:
    """CEL: the selection surely matches a node with ``labels`` (every ``nodeSelector`` entry and every
    expression of one term on a key the pool labels, and no ``matchFields``)."""
    m = map_lit(labels)
    term_true = (f"!has(t.matchFields) && has(t.matchExpressions) && size(t.matchExpressions) > 0 && "
                 f"t.matchExpressions.all(e, {_expression_true(m)})")
    return (f"(variables.nodeSelector.all(k, k in {m} && variables.nodeSelector[k] == {m}[k]) && "
            f"(size(variables.terms) == 0 || variables.terms.exists(t, {term_true})))")
