"""One decoder of a pod spec's tolerations (``toleration_from_k8s``) and one rule of label syntax
(``label_syntax``): what effective_tolerations reads is what the API server reads, and the nodeSelector refusal
says what the label rule says."""

from __future__ import annotations

from collections import UserList

import pytest

from gpu_node_pool.k8s.labels import label_syntax, label_syntax_problem
from gpu_node_pool.k8s.refusals import node_selector_refusal, tolerations_refusal
from gpu_node_pool.k8s.taints import Taint, Toleration, effective_tolerations, toleration_from_k8s

GPU = Taint.parse("nvidia.com/gpu=present:NoSchedule")
TOLERATE_GPU = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


@pytest.mark.parametrize("listed", [[TOLERATE_GPU], (TOLERATE_GPU,), UserList([TOLERATE_GPU])],
                         ids=["list", "tuple", "other-sequence"])
def test_every_list_the_refusal_accepts_is_read(listed):
    # any sequence the refusal accepts (not only a list or tuple) is read as those tolerations, never as none
    assert tolerations_refusal(listed) is None
    own = effective_tolerations({"tolerations": listed}, "self-managed", "Deployment")
    assert own == [Toleration("nvidia.com/gpu", "Exists", effect=GPU.effect)]
    assert own[0].tolerates(GPU)


def test_a_field_the_api_does_not_define_is_not_read():
    # core/v1 Toleration has tolerationSeconds; a snake_case key is no field of it (the decoder drops it)
    item = {**TOLERATE_GPU, "toleration_seconds": 5}
    assert tolerations_refusal([item]) is None
    assert toleration_from_k8s(item).toleration_seconds is None
    # a spec the refusal accepts is read, never refused by the reader: the unknown key is not tolerationSeconds
    (own,) = effective_tolerations({"tolerations": [item]}, "self-managed", "Deployment")
    assert own.toleration_seconds is None and own == Toleration.from_k8s(TOLERATE_GPU)


def test_the_class_reader_and_the_decoder_are_one():
    item = {"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute", "tolerationSeconds": 30}
    assert Toleration.from_k8s(item) == toleration_from_k8s(item) == Toleration("k", "Equal", "v", "NoExecute", 30)


@pytest.mark.parametrize(("key", "value"), [
    ("nvidia.com/gpu.present", "true"), ("bad key!", "x"), ("a", "not a label value!"), ("a" * 64, "x"),
    ("example.com/" + "b" * 63, ""), ("-a", "x"), ("a", "-x"), ("a/b/c", "x"), ("", "x"),
])
def test_the_node_selector_refusal_applies_the_label_rule(key, value):
    refusal = node_selector_refusal({key: value})
    problem = label_syntax_problem(key, value)
    assert (refusal is None) is (problem is None)
    if problem is not None:
        part, why = label_syntax(key, value)
        assert problem.startswith(f"label {part} ") and problem.endswith(why)
        shown_as = f"nodeSelector key '{key}' " if part == "key" else f"nodeSelector['{key}'] '{value}' "
        assert refusal.startswith(shown_as + why) and "the API server refuses this pod spec" in refusal
