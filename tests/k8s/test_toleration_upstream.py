"""Toleration matching against the cases of Kubernetes' own tests, transcribed as data.

Sources (kubernetes/kubernetes):

* ``staging/src/k8s.io/api/core/v1/toleration_test.go``@19c6083b5c8b ``TestTolerationToleratesTaint``
  (:data:`TOLERATES_TAINT`): ``(*Toleration).ToleratesTaint``;
* the same file in the v1.35 series (with the ``TaintTolerationComparisonOperators`` gate argument)
  ``TestCompareNumericValues`` (:data:`COMPARE_NUMERIC`): ``compareNumericValues``.

Cases of the numeric operators ``Gt``/``Lt`` are a Kubernetes 1.35 feature (alpha, gate
``TaintTolerationComparisonOperators``): marked ``since="1.35"``; upstream runs them with the gate
on, as :func:`gpu_node_pool.k8s.taints.tolerates` answers.

Upstream's matcher takes any strings; a real Node refuses a taint value that is not a label value
(``-200``, `` 200 ``), and the API server a Gt/Lt toleration whose value is not a decimal
integer. Cases built from such values run against the value-level function
(:func:`~gpu_node_pool.k8s.taints.compare_numeric`) and, for the objects, the test asserts that
our constructors refuse them, as the API server does.
"""

from __future__ import annotations

import pytest

from gpu_node_pool.k8s.taints import Taint, TaintError, Toleration, compare_numeric, label_value_problem, tolerates

NS, NE = "NoSchedule", "NoExecute"

#: (description, toleration (key, operator, value, effect), taint (key, value, effect), tolerated, since)
TOLERATES_TAINT = [
    ("same key and effect, Exists, taint has no value", ("foo", "Exists", "", NS), ("foo", "", NS), True, None),
    ("same key and effect, Exists, taint has some value", ("foo", "Exists", "", NS), ("foo", "bar", NS), True, None),
    ("same effect, empty key and Exists match all taints", ("", "Exists", "", NS), ("foo", "bar", NS), True, None),
    ("same key, effect and value, Equal", ("foo", "Equal", "bar", NS), ("foo", "bar", NS), True, None),
    ("same key and effect, different values, Equal", ("foo", "Equal", "value1", NS), ("foo", "value2", NS), False, None),
    ("same key and value, different effects, Equal", ("foo", "Equal", "bar", NS), ("foo", "bar", NE), False, None),
    ("Gt: taint value less than toleration value", ("node.kubernetes.io/sla", "Gt", "950", NS),
     ("node.kubernetes.io/sla", "800", NS), False, "1.35"),
    ("Gt: taint value greater than toleration value", ("node.kubernetes.io/sla", "Gt", "750", NS),
     ("node.kubernetes.io/sla", "950", NS), True, "1.35"),
    ("Lt: taint value greater than toleration value", ("node.kubernetes.io/sla", "Lt", "800", NS),
     ("node.kubernetes.io/sla", "950", NS), False, "1.35"),
    ("Lt: taint value less than toleration value", ("node.kubernetes.io/sla", "Lt", "950", NS),
     ("node.kubernetes.io/sla", "800", NS), True, "1.35"),
    ("Gt: equal numeric values", ("node.kubernetes.io/sla", "Gt", "950", NS), ("node.kubernetes.io/sla", "950", NS), False, "1.35"),
    ("Gt: non-numeric taint value", ("node.kubernetes.io/sla", "Gt", "950", NS), ("node.kubernetes.io/sla", "high", NS), False, "1.35"),
    ("Gt: negative values, taint value less than threshold", ("test-key", "Gt", "-100", NS), ("test-key", "-200", NS), False, "1.35"),
    ("Gt: large int64 threshold, taint value less", ("test-key", "Gt", "9223372036854775806", NS), ("test-key", "100", NS), False, "1.35"),
]

#: (description, toleration value, taint value, operator, result) from TestCompareNumericValues (all since 1.35)
COMPARE_NUMERIC = [
    ("Gt: taint greater", "100", "200", "Gt", True),
    ("Gt: taint less", "200", "100", "Gt", False),
    ("Gt: equal", "100", "100", "Gt", False),
    ("Gt: negative numbers, taint greater", "-100", "-50", "Gt", True),
    ("Gt: negative numbers, taint less", "-50", "-100", "Gt", False),
    ("Gt: zero and positive", "0", "1", "Gt", True),
    ("Gt: large int64 values, taint greater", "9223372036854775806", "9223372036854775807", "Gt", True),
    ("Lt: taint less", "200", "100", "Lt", True),
    ("Lt: taint greater", "100", "200", "Lt", False),
    ("Lt: equal", "100", "100", "Lt", False),
    ("Lt: negative numbers, taint less", "-50", "-100", "Lt", True),
    ("Lt: negative numbers, taint greater", "-100", "-50", "Lt", False),
    ("Lt: zero and negative", "0", "-1", "Lt", True),
    ("Gt: non-numeric toleration value", "abc", "100", "Gt", False),
    ("Gt: empty toleration value", "", "100", "Gt", False),
    ("Gt: leading zero in toleration value", "0100", "200", "Gt", False),
    ("Gt: plus sign in toleration value", "+100", "200", "Gt", False),
    ("Gt: floating point toleration value", "100.5", "200", "Gt", False),
    ("Gt: toleration value just a minus sign", "-", "100", "Gt", False),
    ("Gt: non-numeric taint value", "100", "xyz", "Gt", False),
    ("Gt: empty taint value", "100", "", "Gt", False),
    ("Gt: leading zero in taint value", "100", "0200", "Gt", False),
    ("Lt: plus sign in taint value", "100", "+200", "Lt", False),
    ("Lt: spaces in taint value", "100", " 200 ", "Lt", False),
    ("Equal is no numeric operator", "100", "100", "Equal", False),
    ("Exists is no numeric operator", "100", "100", "Exists", False),
    ("Gt: both zero", "0", "0", "Gt", False),
    ("Lt: both zero", "0", "0", "Lt", False),
    ("Gt: max int64 as taint", "0", "9223372036854775807", "Gt", True),
    ("Lt: min int64 as taint", "0", "-9223372036854775808", "Lt", True),
]


def _ids(table):
    return [row[0] for row in table]


@pytest.mark.parametrize(("description", "tol", "taint", "tolerated", "since"), TOLERATES_TAINT, ids=_ids(TOLERATES_TAINT))
def test_tolerates_taint_as_upstream(description, tol, taint, tolerated, since):
    key, operator, value, effect = tol
    toleration = Toleration(key or None, operator, value or None, effect)
    if label_value_problem(taint[1]):
        # A Node refuses this taint value (IsValidLabelValue); upstream's matcher is fed it directly.
        with pytest.raises(TaintError):
            Taint(*taint)
        assert compare_numeric(value, taint[1], operator) is tolerated
        return
    assert tolerates(toleration, Taint(*taint)) is tolerated


@pytest.mark.parametrize(("description", "tol_value", "taint_value", "operator", "result"), COMPARE_NUMERIC,
                         ids=_ids(COMPARE_NUMERIC))
def test_compare_numeric_values_as_upstream(description, tol_value, taint_value, operator, result):
    assert compare_numeric(tol_value, taint_value, operator) is result


#: TestCompareNumericValues' "Invalid toleration values" section: the API server refuses these for Gt/Lt.
INVALID_TOLERATION_VALUES = ["abc", "", "0100", "+100", "100.5", "-"]


@pytest.mark.parametrize("value", INVALID_TOLERATION_VALUES)
def test_a_toleration_value_upstream_cannot_compare_is_refused_at_construction(value):
    with pytest.raises(TaintError, match="decimal integer"):
        Toleration("k", "Gt", value)


@pytest.mark.parametrize("value", sorted({r[1] for r in COMPARE_NUMERIC} - set(INVALID_TOLERATION_VALUES)))
def test_every_other_toleration_value_of_the_table_is_accepted(value):
    assert Toleration("k", "Lt", value).value == value


def test_the_tables_are_complete():
    assert len(TOLERATES_TAINT) == 14 and len(COMPARE_NUMERIC) == 30
