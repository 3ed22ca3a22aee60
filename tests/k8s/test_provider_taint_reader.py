"""Taint.from_provider: an EKS/GKE taint item is read by the rules of a core/v1 Taint object: a value that is no
string is refused with its field and value, only an absent, null or empty value is the empty value, and a missing key
is said to be missing."""

from __future__ import annotations

import pytest

from gpu_node_pool.backends._shared.gpu_pool import read_taints
from gpu_node_pool.backends.eks_managed import read as eks_read
from gpu_node_pool.backends.gke import read as gke_read
from gpu_node_pool.k8s.taints import Taint, TaintEffect, TaintError

RULE = "(a core/v1 Taint's value is a string, k8s.io/api core/v1 types.go, and the API server refuses any other type)"


@pytest.mark.parametrize(("value", "fix"), [
    (0, 'quote it: value: "0"'),
    (False, 'quote it: value: "false"'),
    ([], "write the value as a string"),
    ({}, "write the value as a string"),
])
def test_a_falsy_value_that_is_no_string_is_refused_with_its_field_and_value(value, fix):
    with pytest.raises(TaintError) as caught:
        Taint.from_provider({"key": "nvidia.com/gpu", "value": value, "effect": "NO_SCHEDULE"})
    assert str(caught.value) == f"taint value {value!r} is not a string {RULE}: {fix}"


@pytest.mark.parametrize("item", [
    {"key": "nvidia.com/gpu", "effect": "NO_SCHEDULE"},
    {"key": "nvidia.com/gpu", "value": None, "effect": "NO_SCHEDULE"},
    {"key": "nvidia.com/gpu", "value": "", "effect": "NO_SCHEDULE"},
])
def test_only_an_absent_null_or_empty_value_is_the_empty_value(item):
    assert Taint.from_provider(item) == Taint("nvidia.com/gpu", "", TaintEffect.NO_SCHEDULE)


@pytest.mark.parametrize("item", [{"value": "present", "effect": "NO_SCHEDULE"},
                                  {"key": None, "value": "present", "effect": "NO_SCHEDULE"}])
def test_a_missing_key_is_said_to_be_missing_not_empty(item):
    with pytest.raises(TaintError) as caught:
        Taint.from_provider(item)
    assert str(caught.value) == "taint has no key, which is required: add the taint key, e.g. key: nvidia.com/gpu"


def test_a_key_that_is_no_string_is_named():
    with pytest.raises(TaintError, match=r"^taint key 5 is not a string \(a core/v1 Taint's key is a string"):
        Taint.from_provider({"key": 5, "value": "present", "effect": "NO_SCHEDULE"})


def test_the_effect_is_still_read_in_the_provider_spelling():
    with pytest.raises(TaintError, match="'NoSchedule' is not an EKS/GKE taint effect"):
        Taint.from_provider({"key": "k", "value": "v", "effect": "NoSchedule"})


@pytest.mark.parametrize(("reader", "props"), [
    (eks_read.read_node_group_taints, {"taints": [{"key": "nvidia.com/gpu", "value": 0, "effect": "NO_SCHEDULE"}]}),
    (gke_read.read_node_pool_taints,
     {"nodeConfig": {"taints": [{"key": "nvidia.com/gpu", "value": 0, "effect": "NO_SCHEDULE"}]}}),
])
def test_a_hand_written_node_group_with_a_number_value_is_a_problem_not_a_value_less_taint(reader, props):
    taints, problem = read_taints(reader, props)
    assert taints == [] and problem == f'taint value 0 is not a string {RULE}: quote it: value: "0"'
