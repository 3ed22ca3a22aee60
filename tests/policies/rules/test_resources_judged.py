"""Policy resources-judged as the pack runs it in a real preview: a component is not judged only when it has no child."""

from __future__ import annotations

from gpu_node_pool.policies import evaluate
from gpu_node_pool.policies.rules.resources_judged import POLICY as resources_judged
from gpu_node_pool.sdk.record import Resource

STACK = "urn:pulumi:dev::p::pulumi:pulumi:Stack"


def urn(type_: str, name: str) -> str:
    return f"urn:pulumi:dev::p::{type_}::{name}"


def chart(type_: str = "kubernetes:helm.sh/v4:Chart", name: str = "logs") -> Resource:
    return Resource(type_, name, {"chart": "aws-for-fluent-bit"}, False, urn(type_, name))


def child_of(parent: Resource) -> Resource:
    return Resource("kubernetes:apps/v1:DaemonSet", f"{parent.name}:logging/agent",
                    {"metadata": {"name": "agent", "namespace": "logging"}}, True,
                    urn(f"{parent.type}$kubernetes:apps/v1:DaemonSet", "x"), parent.urn)


def test_a_chart_with_children_is_judged_and_one_without_is_not():
    judged, missing = chart(name="a"), chart(name="b")
    found = evaluate([judged, child_of(judged), missing], policies=[resources_judged])
    assert [(f["resource"], f["enforcement"]) for f in found] == [("kubernetes:helm.sh/v4:Chart b", "advisory")]
    assert "pulumi-policy#298" in found[0]["message"]


def test_a_release_is_never_seen_inside_by_a_preview():
    [found] = evaluate([chart("kubernetes:helm.sh/v3:Release")], policies=[resources_judged])
    assert "never sees its objects" in found["message"] and "helm.v4.Chart" in found["message"]


def test_an_addon_without_daemonsets_is_judged_and_one_with_daemonsets_is_not():
    coredns = Resource("aws:eks/addon:Addon", "coredns", {"addonName": "coredns"}, True, urn("aws:eks/addon:Addon", "c"))
    agent = Resource("aws:eks/addon:Addon", "mon", {"addonName": "eks-node-monitoring-agent"}, True,
                     urn("aws:eks/addon:Addon", "m"))
    found = evaluate([coredns, agent], policies=[resources_judged])
    assert [f["resource"] for f in found] == ["aws:eks/addon:Addon mon"]


def test_strict_is_a_config_property_and_the_level_comes_from_the_config():
    found = evaluate([chart()], {"resources-judged": {"enforcementLevel": "mandatory", "strict": True}},
                     policies=[resources_judged])
    assert [f["enforcement"] for f in found] == ["mandatory"]
