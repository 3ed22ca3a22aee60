"""Requirements on one key reduced to one as Karpenter's ``Requirements.Add`` does (kubernetes-sigs/karpenter
``pkg/scheduling/requirement.go`` ``Intersection``): contradictions become ``DoesNotExist``, not an error."""

from __future__ import annotations

import pytest

from gpu_node_pool.catalog.requirements import reduce_by_key


def req(key: str, op: str, *values: str) -> dict:
    return {"key": key, "operator": op, **({"values": list(values)} if values else {})}


X = "example.com/x"


@pytest.mark.parametrize("requirements", [
    [req(X, "In", "a"), req(X, "NotIn", "a")],
    [req(X, "Exists"), req(X, "DoesNotExist")],
    [req(X, "Gt", "5"), req(X, "Lt", "3")],
    [req(X, "Gte", "5"), req(X, "Lte", "4")],
    [req(X, "In", "a"), req(X, "In", "b")],
    [req(X, "In", "2", "4"), req(X, "Gt", "5")],
])
def test_combinations_karpenter_reduces_to_does_not_exist(requirements):
    (found,) = reduce_by_key(requirements).values()
    assert found.operator == "DoesNotExist" and found.reduced_to_does_not_exist and found.single_value is None
    assert found.indices == (0, 1)


def test_combinations_that_leave_a_value_or_a_range():
    assert reduce_by_key([req(X, "In", "a", "b"), req(X, "NotIn", "b")])[X].single_value == "a"
    assert reduce_by_key([req(X, "In", "4", "9"), req(X, "Gt", "5")])[X].single_value == "9"
    ranged = reduce_by_key([req(X, "Gt", "5"), req(X, "Lt", "7")])[X]
    assert (ranged.operator, ranged.gte, ranged.lte, ranged.reduced_to_does_not_exist) == ("Exists", 6, 6, False)
    assert reduce_by_key([req(X, "Exists"), req(X, "NotIn", "a")])[X].operator == "NotIn"
    assert reduce_by_key([req(X, "In", "a", "b")])[X].single_value is None


def test_a_does_not_exist_as_written_is_not_a_reduction_and_deprecated_keys_join_their_stable_key():
    alone = reduce_by_key([req(X, "DoesNotExist")])[X]
    assert alone.operator == "DoesNotExist" and not alone.reduced_to_does_not_exist
    zone = reduce_by_key([req("failure-domain.beta.kubernetes.io/zone", "In", "us-east-1a"),
                          req("topology.kubernetes.io/zone", "NotIn", "us-east-1a")])
    assert list(zone) == ["topology.kubernetes.io/zone"] and zone["topology.kubernetes.io/zone"].reduced_to_does_not_exist


def test_a_malformed_requirement_leaves_its_key_unsaid():
    found = reduce_by_key([req(X, "In", "a"), req(X, "Gt", "many"), "junk", {"operator": "In"}])
    assert found == {X: None}
