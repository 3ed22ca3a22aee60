"""Node selection matching: does a ``nodeSelector`` / required node affinity accept a label set?

Pure functions over values already read (no resource proxies, no Pulumi): the policies read a
pod spec with :class:`gpu_node_pool.policies.workloads.NodeSelection` and judge it here; the
audit judges the same reading against the labels of real nodes.

Semantics (Kubernetes ``NodeSelector``, ``k8s.io/component-helpers/scheduling/corev1/nodeaffinity``;
https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#node-affinity):

1. ``nodeSelector`` entries are ANDed: the node's label must equal the value.
2. Required ``nodeSelectorTerms`` are ORed; the expressions of one term are ANDed; a term with
   no expressions (and no fields) matches no node.
3. Operators: ``In``, ``NotIn``, ``Exists``, ``DoesNotExist``, ``Gt``, ``Lt`` (integers).
4. Both (1) and (2) must hold.

Two ways to read a label set:

* ``complete=False`` (a pool's *declared* labels): nodes may carry labels the pool does not
  declare (kubelet, cloud, NFD labels), so an expression on a missing key is *undecided*
  (None), never a match or a mismatch.
* ``complete=True`` (a real Node's labels): a missing key is missing. ``In``/``Exists``/``Gt``/
  ``Lt`` fail, ``NotIn``/``DoesNotExist`` pass, a ``nodeSelector`` entry fails.

``matchFields`` (node names) are never judged here: a term with them is undecided.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["Expression", "Term", "label_value", "expression_matches", "term_matches", "selection_matches"]

#: A required node selector expression, read: (key, operator, values as label strings).
Expression = tuple[Any, Any, list[Any]]
#: A required node selector term, read: (its expressions, whether it has ``matchFields``).
Term = tuple[list[Expression], bool]


def label_value(value: Any) -> str | None:
    """A label value as the API server would store it from YAML: bools and integral numbers as text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(int(value)) if float(value).is_integer() else str(value)
    return value if isinstance(value, str) else None


def expression_matches(expr: Expression, labels: Mapping[str, str], *, complete: bool = False) -> bool | None:
    """One ``matchExpressions`` item against ``labels``: True, False, or None (undecided).

    None also for an operator the API server would reject.
    """
    key, operator, values = expr
    if key is None:
        return None
    if key not in labels:
        if not complete:
            return None
        if operator in ("NotIn", "DoesNotExist"):
            return True
        return False if operator in ("In", "Exists", "Gt", "Lt") else None
    have = labels[key]
    if operator == "In":
        return have in values
    if operator == "NotIn":
        return have not in values
    if operator == "Exists":
        return True
    if operator == "DoesNotExist":
        return False
    if operator in ("Gt", "Lt"):
        try:
            mine, bound = int(have), int(values[0]) if len(values) == 1 else None
        except (TypeError, ValueError):
            return False
        if bound is None:
            return False
        return mine > bound if operator == "Gt" else mine < bound
    return None  # an operator the API server would reject


def term_matches(term: Term, labels: Mapping[str, str], *, complete: bool = False) -> bool | None:
    """One ``nodeSelectorTerm`` (expressions ANDed) against ``labels``."""
    exprs, has_fields = term
    if not exprs and not has_fields:
        return False  # "A null or empty node selector term matches no objects."
    results = [expression_matches(e, labels, complete=complete) for e in exprs]
    if has_fields:
        results.append(None)  # matchFields select node names: unknown ahead of time
    if any(r is False for r in results):
        return False
    if all(r is True for r in results):
        return True
    return None


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
    results: list[bool | None] = []
    for key, value in node_selector:
        if key in labels:
            results.append(labels[key] == value)
        else:
            results.append(False if complete else None)
    if terms:
        term_results = [term_matches(t, labels, complete=complete) for t in terms]
        if any(r is True for r in term_results):
            results.append(True)
        elif all(r is False for r in term_results):
            results.append(False)
        else:
            results.append(None)
    if any(r is False for r in results):
        return False
    if all(r is True for r in results):
        return True
    return None
