"""What the API server refuses in a pod spec's placement fields (:mod:`gpu_node_pool.k8s.refusals`), and the
DaemonSet controller's ``nodeName`` rule (:func:`gpu_node_pool.k8s.selection.fits_node_name`)."""

from __future__ import annotations

import pytest

from gpu_node_pool.k8s import refusals
from gpu_node_pool.k8s.refusals import placement_refusal, requirement_refusal, tolerations_refusal
from gpu_node_pool.k8s.selection import (
    NODE_SELECTOR_OPERATORS,
    NodeLabels,
    expression_problem,
    fits_node_name,
    values_count_problem,
)

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


def affinity(*terms):
    return {"affinity": {"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": list(terms)}}}}


@pytest.mark.parametrize("spec", [
    {},
    {"nodeSelector": {"nvidia.com/gpu.present": "true", "example.com/empty": ""}},
    {"nodeName": "ip-10-0-1-23.us-west-2.compute.internal"},
    {"nodeName": ""},
    affinity({"matchExpressions": [{"key": "a", "operator": "In", "values": ["x"]},
                                   {"key": "b", "operator": "DoesNotExist"},
                                   {"key": "c", "operator": "Gt", "values": ["abc"]}]}),  # valid; matches no node
    affinity({}),  # an empty term is valid (it matches no node)
    affinity({"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["node-1"]}]}),
    affinity({"matchExpressions": [{"key": "a", "operator": "In", "values": ["not a label value!"]}]}),
    {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": []}}},
])
def test_what_the_api_server_accepts_is_no_refusal(spec):
    assert placement_refusal(spec) is None


@pytest.mark.parametrize(("spec", "why"), [
    ({"nodeSelector": ["a"]}, "nodeSelector is a list, not an object"),
    ({"nodeSelector": {"a": 1.5}}, "nodeSelector['a'] is 1.5 (a number), not a string"),
    ({"nodeSelector": {"bad key!": "x"}}, "nodeSelector key 'bad key!'"),
    ({"nodeSelector": {"a": "not a label value!"}}, "nodeSelector['a'] 'not a label value!' must be empty or start"),
    ({"nodeName": 7}, "nodeName is 7 (a number), not a string"),
    ({"nodeName": "Node_1"}, "nodeName 'Node_1' is not a node name"),
    ({"affinity": "x"}, "affinity is 'x' (a string), not an object"),
    ({"affinity": {"nodeAffinity": {REQUIRED: {}}}}, "nodeSelectorTerms is empty"),
    (affinity("x"), "nodeSelectorTerms[0] is 'x' (a string), not an object"),
    (affinity({"matchExpressions": {"key": "a"}}), "nodeSelectorTerms[0].matchExpressions is an object, not a list"),
    (affinity({"matchExpressions": [{"key": "a", "operator": "In", "values": "x"}]}), ".values is 'x' (a string), not a list"),
    (affinity({"matchExpressions": [{"key": "a", "operator": "In", "values": [True]}]}),
     ".values[0] is true (a boolean), not a string"),
    (affinity({"matchExpressions": [{"key": "a", "operator": "Lt"}]}), "operator Lt needs exactly one value, got 0"),
    (affinity({"matchExpressions": [{"operator": "Exists"}]}), "key '' must not be empty"),
    (affinity({"matchFields": [{"key": "metadata.labels", "operator": "In", "values": ["n"]}]}), "is not metadata.name"),
    (affinity({"matchFields": [{"key": "metadata.name", "operator": "Exists"}]}), "operator 'Exists' is not In or NotIn"),
    (affinity({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]}), "exactly one node name"),
])
def test_what_the_api_server_refuses_is_named(spec, why):
    refusal = placement_refusal(spec)
    assert refusal is not None and why in refusal and "the API server refuses this pod spec" in refusal


def test_tolerations_must_be_a_list():
    assert tolerations_refusal(None) is None and tolerations_refusal([]) is None and tolerations_refusal(()) is None
    assert "tolerations is an object, not a list" in tolerations_refusal({"operator": "Exists"})
    assert "tolerations is 'Exists' (a string), not a list" in tolerations_refusal("Exists")


def test_node_name_fits_only_the_node_of_that_name_and_is_undecided_on_a_node_not_launched_yet():
    live = NodeLabels({}, name="gpu-1", complete=True, node_name="gpu-1")
    future = NodeLabels({}, name="instance type g6e.2xlarge in us-west-2a")
    assert fits_node_name(None, live) is True and fits_node_name("", future) is True
    assert fits_node_name("gpu-1", live) is True
    assert fits_node_name("gpu-2", live) is False
    assert fits_node_name("gpu-1", future) is None
    assert fits_node_name("gpu-1", future.adding({"a": "b"})) is None and live.adding({"a": "b"}).node_name == "gpu-1"


#: (operator, how many values) the API server accepts, as ``ValidateNodeSelectorRequirement`` has it.
ACCEPTED = {("In", 1), ("In", 2), ("NotIn", 1), ("NotIn", 2), ("Exists", 0), ("DoesNotExist", 0), ("Gt", 1), ("Lt", 1)}


@pytest.mark.parametrize("operator", NODE_SELECTOR_OPERATORS)
@pytest.mark.parametrize("count", [0, 1, 2])
def test_the_refusal_and_the_matcher_read_one_rule_of_operators_and_value_counts(operator, count):
    values = ["1"] * count
    refusal = requirement_refusal({"key": "a", "operator": operator, "values": values})
    assert (refusal is None) == ((operator, count) in ACCEPTED) == (values_count_problem(operator, count) is None)
    if refusal is not None:  # refused on create; an object stored anyway matches no node through that term
        assert values_count_problem(operator, count) in refusal and expression_problem(("a", operator, tuple(values)))
    assert refusals.NODE_SELECTOR_OPERATORS is NODE_SELECTOR_OPERATORS


def test_an_operator_outside_the_six_is_refused_by_name():
    refusal = requirement_refusal({"key": "a", "operator": "Sometimes", "values": ["x"]})
    assert refusal is not None and "operator 'Sometimes' is not one of In, NotIn, Exists, DoesNotExist, Gt, Lt" in refusal
    assert values_count_problem("Sometimes", 1) is None
