"""A Kubernetes-syntax message repeats what was written, cut: a 5 MB key or value is refused with its
length, not echoed whole (labels, taints, tolerations, effects, node selection, quantities)."""

from __future__ import annotations

import pytest

from gpu_node_pool.k8s.labels import label_syntax_problem
from gpu_node_pool.k8s.names import LABEL_VALUE_SOURCE, QUALIFIED_NAME_SOURCE
from gpu_node_pool.k8s.quantity import QuantityError, quantity
from gpu_node_pool.k8s.taints import Taint, TaintEffect, TaintError, Toleration

HUGE = "a" * 5_000_000


def _without_sources(message: str) -> str:
    """``message`` less the name rules' source citations, which every such message carries whole."""
    return message.replace(LABEL_VALUE_SOURCE, "").replace(QUALIFIED_NAME_SOURCE, "")


def test_a_huge_label_value_is_refused_with_its_length_and_shown_cut():
    message = label_syntax_problem("example.com/team", HUGE)
    assert message is not None and "5000000 characters" in message and len(_without_sources(message)) < 300


def test_a_short_bad_value_is_shown_whole():
    message = label_syntax_problem("example.com/team", "-bad-")
    assert message is not None and "'-bad-'" in message


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: Taint("nvidia.com/gpu", "-" + HUGE, TaintEffect.NO_SCHEDULE), id="taint value"),
        pytest.param(lambda: Taint("example.com/" + "-" + HUGE[:40] + "-", "x"), id="taint key name part"),
        pytest.param(lambda: TaintEffect.parse("No" + HUGE), id="effect"),
        pytest.param(lambda: Toleration.from_k8s({"key": "nvidia.com/gpu", "operator": "Equal", "value": "-" + HUGE,
                                                  "effect": "NoSchedule"}), id="toleration value"),
        pytest.param(lambda: Toleration.from_k8s({"key": "nvidia.com/gpu", "operator": "Op" + HUGE}),
                     id="toleration operator"),
    ],
)
def test_a_taint_or_toleration_message_cuts_what_it_repeats(make):
    with pytest.raises(TaintError) as err:
        make()
    assert len(_without_sources(str(err.value))) < 400, str(err.value)[:400]


def test_a_quantity_message_cuts_the_text():
    with pytest.raises(QuantityError) as err:
        quantity("1" + "x" * 100_000)
    assert "100001 characters" in str(err.value) and len(str(err.value)) < 400
