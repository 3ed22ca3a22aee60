"""What the API server refuses in a pod spec's placement fields (:mod:`gpu_node_pool.k8s.refusals`), and the
DaemonSet controller's ``nodeName`` rule (:func:`gpu_node_pool.k8s.selection.fits_node_name`)."""

from __future__ import annotations

import pytest

from gpu_node_pool.k8s.refusals import placement_refusal, tolerations_refusal
from gpu_node_pool.k8s.selection import NodeLabels, fits_node_name

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
    (affinity({"matchExpressions": [{"key": "a", "operator": "Lt"}]}), "operator Lt with 0 values"),
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
