"""Semantics as properties: tolerates() against an independent reading of the Kubernetes rules,
untolerated_taints() consistent with tolerates(), and renderers that read back what they write."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from strategies import label_values, labels_maps, taint_lists, taints, tolerations

from gpu_node_pool.backends._shared import cluster_autoscaler as ca
from gpu_node_pool.backends.eks_managed import read as eks_read
from gpu_node_pool.k8s.taints import Taint, TaintEffect, Toleration, tolerates, untolerated_taints

ALL_EFFECTS = frozenset(TaintEffect)


def reference_tolerates(tol: Toleration, taint: Taint) -> bool:
    """Set semantics, written independently of taints.tolerates():

    a toleration denotes the set keys x values x effects it matches (kubernetes.io docs,
    "Taints and Tolerations": an empty key with Exists matches all keys, values and effects;
    an empty effect matches all effects; Exists matches any value; Equal matches one value).
    """
    matched_keys = None if not tol.key else {tol.key}  # None = every key
    matched_effects = ALL_EFFECTS if tol.effect is None else {tol.effect}
    matched_values = None if tol.operator == "Exists" else {tol.value or ""}
    return (
        (matched_keys is None or taint.key in matched_keys)
        and taint.effect in matched_effects
        and (matched_values is None or taint.value in matched_values)
    )


@given(tolerations(), taints())
def test_tolerates_agrees_with_the_set_reading(tol, taint):
    assert tolerates(tol, taint) == reference_tolerates(tol, taint)


@given(taints())
def test_the_toleration_for_a_taint_tolerates_it(taint):
    assert tolerates(Toleration.for_taint(taint), taint)
    assert tolerates(Toleration.for_taint(taint, exists=True), taint)


@given(st.lists(tolerations(), max_size=4), taint_lists())
def test_untolerated_taints_are_exactly_those_no_toleration_tolerates(tols, ts):
    untolerated = untolerated_taints(tols, ts)
    assert untolerated == [t for t in ts if not any(tolerates(x, t) for x in tols)]
    assert all(any(tolerates(x, t) for x in tols) for t in ts if t not in untolerated)


@given(taints())
def test_kubelet_form_round_trips(taint):
    assert Taint.parse(str(taint)) == taint


@given(taints())
def test_provider_and_k8s_forms_round_trip(taint):
    assert Taint.from_provider(taint.to_provider()) == taint
    assert Taint.from_k8s(taint.to_k8s()) == taint


@given(tolerations())
def test_toleration_k8s_form_round_trips(tol):
    assert Toleration.from_k8s(tol.to_k8s()) == tol


@given(taint_lists())
def test_eks_node_group_taints_read_back(ts):
    props = {"taints": [t.to_provider() for t in ts]}
    assert eks_read.read_node_group_taints(props) == ts


@given(taint_lists(), labels_maps)
def test_ca_tags_read_back_when_each_key_has_one_effect(ts, labels):
    one_per_key = list({t.key: t for t in ts}.values())
    tags = ca.ca_node_template_tags(one_per_key, labels)
    read_taints, read_labels = ca.read_ca_node_template_tags(tags)
    assert sorted(read_taints) == sorted(one_per_key)
    assert read_labels == labels


@given(label_values)
def test_generated_label_values_are_valid(value):
    from gpu_node_pool.k8s.taints import label_value_problem

    assert label_value_problem(value) is None
