"""A label message repeats what was written, cut: a 5 MB value is refused with its length, not echoed whole."""

from __future__ import annotations

from gpu_node_pool.k8s.labels import label_syntax_problem


def test_a_huge_label_value_is_refused_with_its_length_and_shown_cut():
    message = label_syntax_problem("example.com/team", "a" * 5_000_000)
    assert message is not None and "5000000 characters" in message and len(message) < 200


def test_a_short_bad_value_is_shown_whole():
    message = label_syntax_problem("example.com/team", "-bad-")
    assert message is not None and "'-bad-'" in message
