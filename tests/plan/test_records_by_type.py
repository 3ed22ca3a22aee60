"""The plan's records by type give a type's records under one parent as reading them all would: per type
and per parent, in recording order; a backend summary reads the same tags from it as from a plain mapping."""

from __future__ import annotations

from gpu_node_pool.plan.run import _by_type
from gpu_node_pool.sdk.record import Resource

TAG = "aws:autoscaling/tag:Tag"
OTHER = "aws:ec2/launchTemplate:LaunchTemplate"


def _records() -> list[Resource]:
    return [
        Resource(TAG, "a-ca-1", {"tag": {"key": "k1", "value": "a1"}}, parent="urn:a"),
        Resource(OTHER, "a-lt", {}, parent="urn:a"),
        Resource(TAG, "b-ca-1", {"tag": {"key": "k1", "value": "b1"}}, parent="urn:b"),
        Resource(TAG, "a-ca-2", {"tag": {"key": "k2", "value": "a2"}}, parent="urn:a"),
    ]


def test_children_are_the_records_of_that_type_under_that_parent_in_recording_order():
    records = _records()
    by_type = _by_type(records)
    assert list(by_type) == [TAG, OTHER] and by_type[TAG] == [records[0], records[2], records[3]]
    for _ in range(2):  # the grouping made on the first ask answers the next ones
        assert by_type.children(TAG, "urn:a") == [records[0], records[3]]
        assert by_type.children(TAG, "urn:b") == [records[2]]
        assert by_type.children(OTHER, "urn:a") == [records[1]]
        assert by_type.children(OTHER, "urn:b") == [] == by_type.children("x:y:Z", "urn:a")


def test_a_summary_reads_the_same_tags_from_the_grouping_as_from_a_plain_mapping():
    from gpu_node_pool.backends.eks_managed.summary import _children

    records = _records()
    grouped, plain = _by_type(records), {TAG: [records[0], records[2], records[3]]}
    for parent in ("urn:a", "urn:b", "urn:c"):
        assert _children(grouped, TAG, parent) == _children(plain, TAG, parent)
    assert [r.name for r in _children(grouped, TAG, "urn:a")] == ["a-ca-1", "a-ca-2"]
