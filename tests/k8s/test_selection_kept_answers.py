"""Node selection keeps some answers per key (an expression's validity, whether the platform decides a
key); they are the answers worked out afresh, however the keys and values are spelled."""

from __future__ import annotations

from gpu_node_pool.k8s.selection import NodeLabels, expression_problem, node_matches


def test_values_equal_in_python_but_not_as_label_values_keep_their_own_answers():
    # 1 == True and hash(1) == hash(True), but only the string is a label value.
    for _ in range(2):
        assert expression_problem(("gpu", "In", [1])) == "In value 1 is not a label value"
        assert expression_problem(("gpu", "In", [True])) == "In value True is not a label value"
        assert expression_problem(("gpu", "In", ["1"])) is None
        assert expression_problem(("gpu", "In", [{"x": 1}])) == "In value {'x': 1} is not a label value"  # unhashable
        assert expression_problem(("gpu", "Gt", ["1"])) is None
        assert expression_problem(("gpu", "Gt", [1])) == "Gt needs exactly one integer value"


def test_a_key_the_platform_decides_is_missing_on_each_node_that_decides_it():
    decides = NodeLabels({"a": "1"}, decided=frozenset({"karpenter.k8s.aws/instance-"}))
    leaves = NodeLabels({"a": "1"}, decided=frozenset({"eks.amazonaws.com/"}))
    selector = [("karpenter.k8s.aws/instance-family", "g6")]
    for _ in range(2):
        assert node_matches(selector, [], decides) is False  # Karpenter sets it: not g6, so not this node
        assert node_matches(selector, [], leaves) is None  # nobody decides it: undecided


def test_an_expression_asked_again_keeps_its_answer_and_a_list_of_values_is_judged_as_it_is_now():
    frozen = ("gpu", "In", ("a", "b!"))
    for _ in range(2):
        assert expression_problem(frozen) == "In value 'b!' is not a label value"
    values = ["a", "b"]
    changing = ("gpu", "In", values)
    assert expression_problem(changing) is None
    values[1] = "b!"  # a list can change in place: never answered from what it held before
    assert expression_problem(changing) == "In value 'b!' is not a label value"
