"""matchFields on metadata.name: decided by a node of known name, undecided at plan time (no name yet)."""

from __future__ import annotations

import pytest

from gpu_node_pool.k8s.selection import NodeLabels, node_matches, with_match_fields


def _terms(*terms):
    required = {"nodeSelectorTerms": list(terms)}
    read = [([(e["key"], e["operator"], tuple(e.get("values", ()))) for e in t.get("matchExpressions", [])],
             bool(t.get("matchFields"))) for t in terms]
    return read, with_match_fields(read, required)


def _name(op, *values):
    return {"key": "metadata.name", "operator": op, "values": list(values)}


LIVE = NodeLabels({"zone": "a"}, complete=True, node_name="k-1", name="k-1")


@pytest.mark.parametrize(("field", "want"), [
    (_name("In", "k-1"), True), (_name("In", "k-2"), False), (_name("NotIn", "k-1"), False), (_name("NotIn", "k-2"), True),
])
def test_a_live_node_decides_match_fields_by_its_name(field, want):
    bare, terms = _terms({"matchFields": [field]})
    assert node_matches((), terms, LIVE) is want
    assert node_matches((), bare, LIVE) is None  # only whether the term has matchFields: undecided, as before


def test_fields_and_expressions_of_one_term_are_anded_and_terms_ored():
    _, terms = _terms({"matchFields": [_name("In", "k-1")],
                       "matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]},
                      {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["c"]}]})
    assert node_matches((), terms, LIVE) is False
    _, terms = _terms({"matchFields": [_name("In", "k-2")]}, {"matchExpressions": [{"key": "zone", "operator": "In",
                                                                                     "values": ["a"]}]})
    assert node_matches((), terms, LIVE) is True


def test_a_node_not_launched_yet_leaves_match_fields_undecided():
    _, terms = _terms({"matchFields": [_name("In", "k-1")]})
    assert node_matches((), terms, NodeLabels({"zone": "a"}, name="g6.xlarge")) is None
