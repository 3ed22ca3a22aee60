"""Node selection matching: does a ``nodeSelector`` / required node affinity accept a label set?

Pure functions over values already read (no resource proxies, no Pulumi): the policies read a
pod spec with :class:`gpu_node_pool.policies.workloads.NodeSelection` and judge it here; the
audit judges the same reading against the labels of real nodes.

Semantics (Kubernetes ``NodeSelector``, ``k8s.io/component-helpers/scheduling/corev1/nodeaffinity``;
https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#node-affinity):

1. ``nodeSelector`` entries are ANDed: the node's label must equal the value.
2. Required ``nodeSelectorTerms`` are ORed; the expressions of one term are ANDed; a term with
   no expressions (and no fields) matches no node.
3. Operators: ``In``, ``NotIn``, ``Exists``, ``DoesNotExist``, ``Gt``, ``Lt`` (integers). ``NotIn``
   and ``DoesNotExist`` match a node without the label (``labels.Requirement.Matches``); an
   expression upstream cannot parse (:func:`expression_problem`: an invalid key or value, a wrong
   number of values, an unknown operator) makes its term match no node.
4. Both (1) and (2) must hold.

Two ways to read a label set:

* ``complete=False`` (a pool's *declared* labels): nodes may carry labels the pool does not
  declare (kubelet, cloud, NFD labels), so an expression on a missing key is *undecided*
  (None), never a match or a mismatch.
* ``complete=True`` (a real Node's labels): a missing key is missing. ``In``/``Exists``/``Gt``/
  ``Lt`` fail, ``NotIn``/``DoesNotExist`` pass, a ``nodeSelector`` entry fails.

``matchFields`` select a node by its name: the only field Kubernetes takes there is ``metadata.name``, with ``In`` or
``NotIn`` and exactly one value (``ValidateNodeFieldSelectorRequirement``, kubernetes pkg/apis/core/validation/
validation.go; https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#built-in-node-labels). A term
whose ``matchFields`` were read (:func:`with_match_fields`) is judged against :attr:`NodeLabels.node_name` when the
node's name is known (a live node), as ``nodeaffinity`` matches ``metadata.name`` (its requirements ANDed with the
term's expressions); with the name not known (a node not launched yet), or with only the fact that the term has
``matchFields``, the term is undecided. A DaemonSet template's ``spec.nodeName`` is judged by :func:`fits_node_name`
against :attr:`NodeLabels.node_name`. A selection the
API server refuses (a value of the wrong type, ``In`` without values, no term) is never matched here:
:mod:`gpu_node_pool.k8s.refusals` says why, and callers report it as not judged.

A third reading, :class:`NodeLabels`, is what plan time knows of a pool's *future* nodes: the
labels whose value is known, the keys the node will carry with a value not known yet (the zone
of a multi-zone pool), and the keys (or key prefixes ending in ``/``) whose presence the platform
decides, so that such a key the node does not get is known missing. Every other key stays
undecided, as for ``complete=False``. :func:`node_matches` judges a selection on it and
:func:`excluding_keys` says which keys a refusal comes from.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..text.terminal import shown
from .integers import in_int64
from .patterns import full_match

__all__ = [
    "NODE_SELECTOR_OPERATORS",
    "Expression", "Term", "NodeLabels", "label_value", "expression_matches", "term_matches", "selection_matches",
    "node_matches", "excluding_keys", "undecided_keys", "go_parse_int", "expression_problem", "values_count_problem",
    "fits_node_name", "expression_text", "FieldRequirement", "with_match_fields", "NODE_NAME_FIELD",
]

#: A required node selector expression, read: (key, operator, values as label strings).
Expression = tuple[Any, Any, Sequence[Any]]
#: A ``matchFields`` requirement, read: (field key, operator, values).
FieldRequirement = tuple[Any, Any, Sequence[Any]]
#: A required node selector term, read: (its expressions, its ``matchFields``): whether it has any (a bool), or the
#: requirements themselves (:func:`with_match_fields`), which a node of known name decides.
Term = tuple[list[Expression], "bool | tuple[FieldRequirement, ...]"]
#: The one field a node selector's ``matchFields`` may name (module docstring).
NODE_NAME_FIELD = "metadata.name"


def expression_text(key: Any, operator: Any, values: Any = None) -> str:
    """A node selector requirement as a message writes it, never a Python list:
    ``expression_text("nvidia.com/gpu.present", "In", ["true"]) == "nvidia.com/gpu.present In [true]"``;
    ``Exists``/``DoesNotExist`` (no values) give ``key Exists``. Values the user wrote are shown unquoted as
    :func:`~gpu_node_pool.text.terminal.shown` shows them (long values cut, their length said); a
    ``values`` that is not a list is shown as it is."""
    head = f"{shown(key, quote=False)} {shown(operator, quote=False)}"
    if values is None or (isinstance(values, (list, tuple)) and not values):
        return head
    if not isinstance(values, (list, tuple)):
        return f"{head} {shown(values)}"
    return f"{head} [{', '.join(shown(v, quote=False) for v in values)}]"


_GO_INT = re.compile(r"^[+-]?[0-9]+$")


def go_parse_int(text: Any) -> int | None:
    """``text`` read as Go's ``strconv.ParseInt(text, 10, 64)`` reads it (what ``Gt``/``Lt`` of a node
    selector apply to the label value and the bound): an optional sign and ASCII digits, leading
    zeros allowed, within the signed 64-bit range; None otherwise (no spaces, ``_`` or non-ASCII
    digits, which Python's ``int`` would accept)."""
    if not isinstance(text, str) or len(text) > 4000 or not full_match(_GO_INT, text):
        return None
    number = int(text)
    return number if in_int64(number) else None


def label_value(value: Any) -> str | None:
    """A label value as read: the string, else None. Labels, ``nodeSelector`` and a requirement's ``values``
    are strings in the API (``map[string]string``, ``[]string``): the API server refuses a ``true`` or ``1``
    there rather than store it as text (:mod:`gpu_node_pool.k8s.refusals`)."""
    return value if isinstance(value, str) else None


#: What a lookup says of a key: a value, or one of these two markers.
_MISSING = object()  # the node does not carry the key
_UNDECIDED = object()  # the node may or may not carry it
_HIDDEN = object()  # the node carries it, with a value not known at plan time


@dataclass(frozen=True)
class NodeLabels:
    """A future node's labels as far as plan time knows them.

    Attributes:
        labels: key -> value the node will carry.
        unknown: keys the node will carry whose value is not known at plan time.
        decided: keys, or prefixes ending in ``/`` or ``-``, whose presence the platform decides:
            such a key in neither ``labels`` nor ``unknown`` is known missing. Any other key is
            undecided (labels added later by NFD, GFD or an operator).
        name: how messages name this kind of node (``instance type g5.xlarge in us-east-1a``).
        complete: every key outside ``labels`` and ``unknown`` is missing (a node known in full).
        node_name: the Node object's name when known (a live node); None for a node not launched yet,
            whose name its platform gives at launch (:func:`fits_node_name`).
    """

    labels: Mapping[str, str]
    unknown: frozenset[str] = frozenset()
    decided: frozenset[str] = frozenset()
    name: str = ""
    notes: tuple[str, ...] = field(default=())
    complete: bool = False
    node_name: str | None = None

    def lookup(self, key: Any) -> Any:
        """The value of ``key`` on the node, or a marker: missing, undecided, carried but unknown."""
        if key in self.labels:
            return self.labels[key]
        if key in self.unknown:
            return _HIDDEN
        if self.complete:
            return _MISSING
        if isinstance(key, str) and _decided(key, self.decided):
            return _MISSING
        return _UNDECIDED

    def adding(self, labels: Mapping[str, str], unknown: frozenset[str] | set[str] = frozenset()) -> NodeLabels:
        """This node with ``labels`` (and ``unknown`` keys) added where it has no value: what it carries
        once an agent has labelled it (:mod:`gpu_node_pool.k8s.discovery`)."""
        merged = {**{k: v for k, v in labels.items() if k not in self.unknown}, **self.labels}
        return NodeLabels(merged, self.unknown | (frozenset(unknown) - set(merged)), self.decided, self.name, self.notes,
                          self.complete, self.node_name)


def fits_node_name(node_name: str | None, node: NodeLabels) -> bool | None:
    """Whether a daemon pod whose template sets ``spec.nodeName`` to ``node_name`` (None or ``""``: unset) may run
    on ``node``: True when unset or equal to the node's name, False when the node's name is known and differs,
    None when the node's name is not known (a node not launched yet).

    The DaemonSet controller runs a daemon pod on a node only when the template's ``nodeName`` is empty or
    that node's name (``NodeShouldRunDaemonPod`` in kubernetes ``pkg/controller/daemon/daemon_controller.go``,
    read at commit ``0033f658085be27cff4044840443955a1fc5e01e``: ``ds.Spec.Template.Spec.NodeName == "" ||
    ds.Spec.Template.Spec.NodeName == node.Name``), before node affinity and taints are looked at.
    """
    if not node_name:
        return True
    if node.node_name is None:
        return None
    return node.node_name == node_name


def _decided(key: str, decided: frozenset[str]) -> bool:
    """``key`` is one of ``decided`` or starts with one of its prefixes (ending in ``/`` or ``-``);
    kept per (key, set): nodes of one stack share a few such sets and are asked the same keys."""
    memo = (key, decided)
    try:
        found = _DECIDED.get(memo)
    except TypeError:  # a set that is not frozen: not kept
        return any(key == d or (d[-1:] in "/-" and key.startswith(d)) for d in decided)
    if found is None:
        if len(_DECIDED) >= _PROBLEMS_KEPT:
            _DECIDED.clear()
        found = _DECIDED[memo] = any(key == d or (d[-1:] in "/-" and key.startswith(d)) for d in decided)
    return found


#: :func:`_decided`'s answers.
_DECIDED: dict[tuple[str, frozenset[str]], bool] = {}


def _lookup_of(labels: Mapping[str, str], complete: bool) -> Callable[[Any], Any]:
    missing = _MISSING if complete else _UNDECIDED
    return lambda key: labels[key] if key in labels else missing


#: The operators of a node selector requirement (k8s.io/api core/v1 ``NodeSelectorOperator``).
NODE_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_OPERATORS = NODE_SELECTOR_OPERATORS


def values_count_problem(operator: Any, count: int) -> str | None:
    """Why ``count`` values do not fit ``operator`` (the clause after the operator), or None: ``In``/``NotIn``
    need at least one value, ``Exists``/``DoesNotExist`` take none, ``Gt``/``Lt`` exactly one. Both readers of
    a requirement hold these rules alike: the API server's ``ValidateNodeSelectorRequirement`` (kubernetes
    ``pkg/apis/core/validation/validation.go``), which refuses the pod spec (:mod:`gpu_node_pool.k8s.refusals`),
    and ``labels.NewRequirement`` (k8s.io/apimachinery ``pkg/labels/selector.go``), which drops the term
    (:func:`expression_problem`). None for an operator outside :data:`NODE_SELECTOR_OPERATORS`."""
    if operator in ("In", "NotIn"):
        return "needs at least one value" if count == 0 else None
    if operator in ("Exists", "DoesNotExist"):
        return "takes no values" if count else None
    if operator in ("Gt", "Lt"):
        return "needs exactly one value" if count != 1 else None
    return None


def expression_problem(expr: Expression) -> str | None:
    """Why upstream cannot parse ``expr`` into a label requirement, or None.

    ``labels.NewRequirement`` (k8s.io/apimachinery ``pkg/labels/selector.go``) refuses an invalid
    key, ``In``/``NotIn`` without values or with a value that is not a label value, ``Exists``/
    ``DoesNotExist`` with values, and ``Gt``/``Lt`` without exactly one integer; the node affinity
    matcher then drops the whole term, which matches no node
    (k8s.io/component-helpers ``scheduling/corev1/nodeaffinity``, ``TestPodMatchesNodeSelectorAndAffinityTerms``
    "Pod with an invalid value in Affinity term won't be scheduled onto the node").
    """
    frozen = isinstance(expr, tuple) and len(expr) == 3 and isinstance(expr[2], tuple)
    if frozen:  # an immutable expression asked again: its answer by identity
        seen = _BY_OBJECT.get(id(expr))
        if seen is not None and seen[0] is expr:
            return seen[1]
    problem = _problem_by_value(expr)
    if frozen:
        if len(_BY_OBJECT) >= _PROBLEMS_KEPT:
            _BY_OBJECT.clear()
        _BY_OBJECT[id(expr)] = (expr, problem)
    return problem


#: An expression whose values are a tuple, asked again (a DaemonSet's selection placed on every kind of
#: node of every pool): id -> (the expression, kept alive so that its id is not reused; the answer).
#: Cheaper than building the value key of :data:`_PROBLEMS` for a list of many values.
_BY_OBJECT: dict[int, tuple[Any, str | None]] = {}


def _problem_by_value(expr: Expression) -> str | None:
    key, operator, values = expr
    # A pure answer, asked for every pod spec against every kind of node: kept per expression, its
    # values told apart by type too (``1`` and ``True`` are equal keys, different label values).
    try:
        memo = (type(key), key, type(operator), operator,
                tuple((type(v), v) for v in values) if isinstance(values, (list, tuple)) else (type(values), values))
        return _PROBLEMS[memo]
    except KeyError:
        if len(_PROBLEMS) >= _PROBLEMS_KEPT:
            _PROBLEMS.clear()
        problem = _PROBLEMS[memo] = _expression_problem(key, operator, values)
        return problem
    except TypeError:  # an unhashable key or value: not kept
        return _expression_problem(key, operator, values)


#: :func:`expression_problem`'s answers, by expression (at most ``_PROBLEMS_KEPT``, then started afresh).
_PROBLEMS: dict[tuple[Any, ...], str | None] = {}
_PROBLEMS_KEPT = 65536


def _expression_problem(key: Any, operator: Any, values: Any) -> str | None:
    from .taints import label_value_problem, qualified_name_problem

    if operator not in _OPERATORS:
        return f"operator {shown(operator)} is not one of {', '.join(_OPERATORS)}"
    if not isinstance(key, str) or qualified_name_problem(key):
        return f"key {shown(key)} is not a qualified name"
    count = values_count_problem(operator, len(values) if values else 0)
    if operator in ("Gt", "Lt"):
        if count or go_parse_int(values[0]) is None:
            return f"{operator} needs exactly one integer value"
    elif count:
        return f"{operator} {count}"
    elif operator in ("In", "NotIn"):
        bad = [v for v in values if label_value_problem(v)]
        if bad:
            return f"{operator} value {shown(bad[0])} is not a label value"
    return None


def _expression(expr: Expression, lookup: Callable[[Any], Any]) -> bool | None:
    key, operator, values = expr
    if key is None:
        return None
    if expression_problem(expr):
        return False  # upstream drops the term: it matches no node
    have = lookup(key)
    if have is _UNDECIDED:
        return None
    if have is _MISSING:
        if operator in ("NotIn", "DoesNotExist"):
            return True
        return False if operator in ("In", "Exists", "Gt", "Lt") else None
    if operator in ("Exists", "DoesNotExist"):
        return operator == "Exists"
    if have is _HIDDEN:
        return None
    if operator == "In":
        return have in values
    if operator == "NotIn":
        return have not in values
    if operator in ("Gt", "Lt"):
        mine, bound = go_parse_int(have), go_parse_int(values[0]) if len(values) == 1 else None
        if mine is None or bound is None:
            return False
        return mine > bound if operator == "Gt" else mine < bound
    return None


def expression_matches(expr: Expression, labels: Mapping[str, str], *, complete: bool = False) -> bool | None:
    """One ``matchExpressions`` item against ``labels``: True, False, or None (undecided).

    None also for an operator the API server would reject.
    """
    return _expression(expr, _lookup_of(labels, complete))


def _fields(fields: bool | tuple[FieldRequirement, ...], node_name: str | None) -> bool | None:
    """A term's ``matchFields`` on a node named ``node_name`` (None: not known): True when every requirement holds
    (none: True), False when one fails, None when the name or the requirements are not known, or a requirement is
    not ``metadata.name`` with ``In``/``NotIn`` (the API server refuses it: never judged here)."""
    if isinstance(fields, bool):
        return None if fields else True
    if node_name is None:
        return None if fields else True
    for key, operator, values in fields:
        if key != NODE_NAME_FIELD or operator not in ("In", "NotIn"):
            return None
        if (node_name in values) != (operator == "In"):
            return False
    return True


def with_match_fields(terms: Sequence[Term], required: Any) -> tuple[Term, ...]:
    """``terms`` (read from ``required``, a pod spec's ``requiredDuringSchedulingIgnoredDuringExecution``) with each
    term's ``matchFields`` read into :data:`FieldRequirement` tuples, so that a node of known name decides them
    (module docstring). ``terms`` unchanged when ``required`` does not hold them term for term."""
    raw = required.get("nodeSelectorTerms") if isinstance(required, Mapping) else None
    if not isinstance(raw, list) or len(raw) != len(terms):
        return tuple(terms)
    out: list[Term] = []
    for (exprs, _), term in zip(terms, raw, strict=True):
        fields = term.get("matchFields") if isinstance(term, Mapping) else None
        read = tuple((f.get("key"), f.get("operator"), tuple(f.get("values") or ()))
                     for f in fields or () if isinstance(f, Mapping)) if isinstance(fields, list) else ()
        out.append((exprs, read))
    return tuple(out)


def _term(term: Term, lookup: Callable[[Any], Any], node_name: str | None = None) -> bool | None:
    """False if an expression or a ``matchFields`` requirement fails, True if all hold, else None (each
    expression is pure: the first failure decides, as the upstream matcher stops there)."""
    exprs, fields = term
    if not exprs and not fields:
        return False  # "A null or empty node selector term matches no objects."
    named = _fields(fields, node_name)
    if named is False:
        return False
    undecided = named is None  # matchFields of a node whose name is not known
    for e in exprs:
        result = _expression(e, lookup)
        if result is False:
            return False
        if result is not True:
            undecided = True
    return None if undecided else True


def _selection(node_selector: Sequence[tuple[Any, Any]], terms: Sequence[Term], lookup: Callable[[Any], Any],
               node_name: str | None = None) -> bool | None:
    """``nodeSelector`` entries ANDed with the required terms (ORed): False, True, or None (undecided); ``node_name``
    the node's name when known, for ``matchFields``."""
    undecided = False
    for key, value in node_selector:
        have = lookup(key)
        if have is _UNDECIDED or have is _HIDDEN:
            undecided = True
        elif have != value:
            return False
    if terms:
        all_false = True
        for t in terms:
            result = _term(t, lookup, node_name)
            if result is True:
                break
            if result is not False:
                all_false = False
        else:  # no term holds
            if all_false:
                return False
            undecided = True
    return None if undecided else True


def node_matches(node_selector: Sequence[tuple[Any, Any]], terms: Sequence[Term], node: NodeLabels) -> bool | None:
    """:func:`selection_matches` on a future node read as :class:`NodeLabels`: True, False or None (undecided)."""
    return _selection(node_selector, terms, node.lookup, node.node_name)


def excluding_keys(node_selector: Sequence[tuple[Any, Any]], terms: Sequence[Term], node: NodeLabels) -> list[str]:
    """The label keys whose clauses refuse ``node``: each ``nodeSelector`` key that fails, and when
    every required term fails, the keys of each term's failing expressions; in selection order."""
    keys = [str(k) for k, v in node_selector if node.lookup(k) not in (_UNDECIDED, _HIDDEN) and node.lookup(k) != v]
    if terms and all(_term(t, node.lookup, node.node_name) is False for t in terms):
        for exprs, _ in terms:
            keys += [str(e[0]) for e in exprs if _expression(e, node.lookup) is False]
    return list(dict.fromkeys(keys))


def undecided_keys(node_selector: Sequence[tuple[Any, Any]], terms: Sequence[Term], node: NodeLabels) -> list[str]:
    """The label keys of the selection that ``node`` does not decide: undecided, or carried with a
    value not known at plan time; in selection order."""
    keys = [k for k, _ in node_selector] + [e[0] for exprs, _ in terms for e in exprs]
    return list(dict.fromkeys(str(k) for k in keys if k is not None and node.lookup(k) in (_UNDECIDED, _HIDDEN)))


def term_matches(term: Term, labels: Mapping[str, str], *, complete: bool = False) -> bool | None:
    """One ``nodeSelectorTerm`` (expressions ANDed) against ``labels``."""
    return _term(term, _lookup_of(labels, complete))


def selection_matches(
    node_selector: Sequence[tuple[Any, Any]],
    terms: Sequence[Term],
    labels: Mapping[str, str],
    *,
    complete: bool = False,
) -> bool | None:
    """``nodeSelector`` pairs AND the ORed required terms, against ``labels`` (rules 1-4 above).

    Returns True (satisfied by ``labels``), False (never satisfied there), None (undecided).
    An empty selection (no pairs, no terms) is True.
    """
    return _selection(node_selector, terms, _lookup_of(labels, complete))
