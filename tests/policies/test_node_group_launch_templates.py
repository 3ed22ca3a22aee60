"""A node group's launch templates found through the stack's launch template index are the ones the scan of
every launch template finds: linked by dependency or property dependency, or by name, in stack order; and a
name unknown at preview raises as the scan would."""

from __future__ import annotations

import pytest

from gpu_node_pool.k8s.wellknown import UNKNOWN
from gpu_node_pool.policies.pools import LaunchTemplateIndex, node_group_launch_templates
from gpu_node_pool.policies.runner import StackResource, policy_resources
from gpu_node_pool.sdk.props import UnknownValueError

LT, NG = "aws:ec2/launchTemplate:LaunchTemplate", "aws:eks/nodeGroup:NodeGroup"


def _stack(unknown_name: bool = False) -> list:
    return policy_resources([
        StackResource(LT, "a", {"name": "shared"}, urn="urn:a"),
        StackResource(LT, "b", {"name": UNKNOWN if unknown_name else "b"}, urn="urn:b"),
        StackResource(LT, "c", {"name": "shared"}, urn="urn:c"),
        StackResource(LT, "d", {"name": "d"}, urn="urn:d"),
        StackResource(NG, "by-dep", {"launchTemplate": {"id": "x"}}, urn="urn:1", dependencies=["urn:d", "urn:b"]),
        StackResource(NG, "by-name", {"launchTemplate": {"name": "shared"}}, urn="urn:2"),
        StackResource(NG, "by-prop", {"launchTemplate": {"name": "d"}}, urn="urn:3", property_dependencies={"launchTemplate": ["urn:b"]}),
        StackResource(NG, "none", {"launchTemplate": {"name": "nothing"}}, urn="urn:4"),
        StackResource(NG, "no-template", {}, urn="urn:5"),
    ])


def _found(ng, templates, index):
    try:
        return [lt.name for lt in node_group_launch_templates(ng, templates, index)]
    except UnknownValueError:
        return "unknown"


@pytest.mark.parametrize("unknown_name", [False, True])
def test_the_index_finds_what_the_scan_finds(unknown_name):
    resources = _stack(unknown_name)
    templates = [r for r in resources if r.resource_type == LT]
    index = LaunchTemplateIndex(templates)
    for ng in (r for r in resources if r.resource_type == NG):
        assert _found(ng, templates, index) == _found(ng, templates, None), ng.name
    by_name = {r.name: r for r in resources}
    assert _found(by_name["by-dep"], templates, index) == ["b", "d"]
    assert _found(by_name["no-template"], templates, index) == []
    if unknown_name:
        assert _found(by_name["by-name"], templates, index) == "unknown"  # b's name might be "shared"
        assert _found(by_name["by-prop"], templates, index) == ["b", "d"]  # b is linked: its name is not read
    else:
        assert _found(by_name["by-name"], templates, index) == ["a", "c"]
        assert _found(by_name["none"], templates, index) == []
