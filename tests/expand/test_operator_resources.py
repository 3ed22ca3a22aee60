"""Operators' custom resources: every kind of the one table yields DaemonSets or a not-judged entry, a group the
table does not know yields nothing; the GPU Operator's ClusterPolicy is expanded from `helm template` of the real
chart (../shared/charts/gpu-operator, skipped with the reason without helm or the chart)."""

from __future__ import annotations

import subprocess

import pytest
import yaml
from builders import run
from conftest import ROOT

from gpu_node_pool.expand.operator_resources import OPERATOR_KINDS, expand_custom_resource
from gpu_node_pool.expand.result import Expanded, NotJudged
from gpu_node_pool.plan.expand import locate_helm
from gpu_node_pool.policies import StackResource
from gpu_node_pool.policies import rules as d

SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()), ROOT.parent / "shared")
CHART = SHARED / "charts" / "gpu-operator"
HELM = locate_helm()


def token(group, kind, version="v1"):
    return f"kubernetes:{group}/{version}:{kind}"


@pytest.mark.parametrize("row", OPERATOR_KINDS, ids=lambda r: f"{r.group}/{r.kind}")
def test_a_known_kind_always_yields_something(row):
    outcome = expand_custom_resource(token(row.group, row.kind), {"metadata": {"name": "x"}, "spec": {}})
    assert isinstance(outcome, (Expanded, NotJudged))
    if isinstance(outcome, NotJudged):
        assert row.source in outcome.reason and outcome.fix


@pytest.mark.parametrize("resource_type", ["kubernetes:example.com/v1:Widget", "kubernetes:apps/v1:DaemonSet",
                                           "kubernetes:nvidia.com/v1:SomethingElse"])
def test_a_group_or_kind_the_table_does_not_know_yields_nothing(resource_type):
    assert expand_custom_resource(resource_type, {"spec": {"daemonSet": {}}}) is None
    assert run(d.resources_judged.POLICY, [StackResource(resource_type, "w", {"spec": {}})]) == []


def test_the_real_charts_cluster_policy_yields_the_operand_daemonsets():
    if HELM is None or not CHART.is_dir():
        pytest.skip(f"needs helm on PATH and {CHART} (shared test data)")
    out = subprocess.run([HELM, "template", "gpu-operator", str(CHART), "-n", "gpu-operator"], check=True,
                         capture_output=True, text=True, timeout=120).stdout
    (cp,) = [o for o in yaml.safe_load_all(out) if isinstance(o, dict) and o.get("kind") == "ClusterPolicy"]
    outcome = expand_custom_resource(token("nvidia.com", "ClusterPolicy"), cp)
    assert isinstance(outcome, Expanded)
    by_name = {o["metadata"]["name"]: o["spec"]["template"]["spec"] for o in outcome.objects}
    plugin = by_name["nvidia-device-plugin-daemonset"]
    assert plugin["nodeSelector"] == {"nvidia.com/gpu.deploy.device-plugin": "true"}
    assert plugin["tolerations"] == cp["spec"]["daemonsets"]["tolerations"]
    assert {"nvidia-driver-daemonset", "nvidia-container-toolkit-daemonset", "nvidia-dcgm-exporter",
            "gpu-feature-discovery", "nvidia-operator-validator"} <= set(by_name)
    assert "nvidia-node-status-exporter" not in by_name  # off unless enabled


def test_elastic_agent_daemonset_is_expanded_from_its_pod_template_and_a_deployment_gives_none():
    tol = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    agent = {"kind": "Agent", "metadata": {"name": "fleet", "namespace": "elastic"},
             "spec": {"daemonSet": {"podTemplate": {"spec": {"tolerations": tol}}}}}
    (ds,) = expand_custom_resource(token("agent.k8s.elastic.co", "Agent", "v1alpha1"), agent).objects
    assert ds["metadata"] == {"name": "fleet-agent", "namespace": "elastic", "annotations": {
        "gpu-node-pools/synthesized-from": "Agent fleet"}}
    assert ds["spec"]["template"]["spec"]["tolerations"] == tol
    deployment = {"kind": "Agent", "metadata": {"name": "fleet"}, "spec": {"deployment": {}}}
    assert expand_custom_resource(token("agent.k8s.elastic.co", "Agent", "v1alpha1"), deployment).objects == []


def test_prometheus_agent_only_in_daemonset_mode():
    t = token("monitoring.coreos.com", "PrometheusAgent", "v1alpha1")
    assert expand_custom_resource(t, {"metadata": {"name": "a"}, "spec": {}}).objects == []
    (ds,) = expand_custom_resource(t, {"metadata": {"name": "a"}, "spec": {"mode": "DaemonSet", "nodeSelector": {"x": "y"}}}).objects
    assert ds["spec"]["template"]["spec"] == {"nodeSelector": {"x": "y"}}


def test_the_pack_reports_known_kinds_as_not_judged_and_never_the_ones_it_reads():
    nic = StackResource(token("mellanox.com", "NicClusterPolicy", "v1alpha1"), "nic", {"spec": {"ofedDriver": {}}})
    (found,) = run(d.resources_judged.POLICY, [nic])
    assert found["message"].startswith("not judged: kubernetes:mellanox.com/v1alpha1:NicClusterPolicy nic: NVIDIA Network Operator")
    assert "Mellanox/network-operator" in found["message"]
    agent = StackResource(token("agent.k8s.elastic.co", "Agent", "v1alpha1"), "fleet",
                          {"metadata": {"name": "fleet"}, "spec": {"daemonSet": {"podTemplate": {"spec": {}}}}})
    (found,) = run(d.resources_judged.POLICY, [agent])
    assert "a preview never sees" in found["message"] and "gpupool check" in found["message"]
    cp = StackResource(token("nvidia.com", "ClusterPolicy"), "cp", {"spec": {}})
    assert run(d.resources_judged.POLICY, [cp]) == []  # judged by the coverage rules from the resource itself
