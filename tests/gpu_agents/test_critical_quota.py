"""On GKE, pods of system-node-critical / system-cluster-critical are admitted outside kube-system only in a namespace
holding a ResourceQuota scoped to those classes (kubernetes.io resource-quotas#limit-priority-class-consumption-by-default;
GKE's own is kube-system's gcp-critical-pods). Every agent the stack installs at such a class on a GKE cluster gets one
in its namespace, in the plan, the rendered files and the plan's text; EKS stacks get none."""

from __future__ import annotations

from dataclasses import replace

import pytest
import yaml
from conftest import shipped_project
from stack_texts import EKS_BIG, GKE_L4, GKE_TAINT_LINE

from gpu_node_pool.cli.commands import main
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.gpu_agents.critical_quota import (
    CRITICAL_PRIORITY_CLASSES,
    agent_quota,
    critical_pods_quota,
    needs_critical_pods_quota,
)
from gpu_node_pool.gpu_agents.gpu_operator.values import gke_resource_quota
from gpu_node_pool.gpu_agents.pools import agent_pool
from gpu_node_pool.k8s.wellknown import CHART_TYPES, SYSTEM_CLUSTER_CRITICAL, SYSTEM_NODE_CRITICAL
from gpu_node_pool.plan import plan_stack, render_text

QUOTA = "kubernetes:core/v1:ResourceQuota"

#: NVIDIA's device plugin on a GKE pool (GKE's plugin and driver install off) and the standalone DCGM exporter.
GKE_OURS = GKE_L4 + """  gpu-node-pools:gpuAgents:
    dcgmExporter: {enabled: true%s}
"""
GKE_OPERATOR = GKE_L4.replace(GKE_TAINT_LINE, "") + "  gpu-node-pools:devicePlugin: {provider: gpu-operator}\n"
EKS = EKS_BIG + """  gpu-node-pools:gpuAgents:
    dcgmExporter: {enabled: true}
"""


def project(tmp_path, stacks: dict[str, str]):
    return shipped_project(tmp_path, stacks)


def quotas(result) -> dict[str, dict]:
    """The recorded ResourceQuotas by namespace."""
    return {r.inputs["metadata"]["namespace"]: r.inputs for r in result.resources if r.type == QUOTA}


def admitted(quota_objects, namespace: str, priority_class: str) -> bool:
    """GKE's rule for a critical class: a quota in the pod's namespace whose PriorityClass scope lists the class."""
    return any(
        e["scopeName"] == "PriorityClass" and e["operator"] == "In" and priority_class in e["values"]
        for q in quota_objects if q["metadata"]["namespace"] == namespace
        for e in q["spec"]["scopeSelector"]["matchExpressions"]
    )


def agent_charts(result):
    """``(namespace, priorityClassName)`` of every agent chart the stack installs."""
    return [(r.inputs["namespace"], r.inputs["values"].get("priorityClassName"))
            for r in result.resources if r.type in CHART_TYPES]


@pytest.fixture(scope="module")
def gke(tmp_path_factory):
    return plan_stack("gk", project(tmp_path_factory.mktemp("gke"), {"gk": GKE_OURS % ""}))


def test_every_critical_agent_on_gke_gets_a_quota_in_its_namespace(gke):
    assert not gke.config_issues
    charts = agent_charts(gke)
    assert sorted(ns for ns, _ in charts) == ["gpu-monitoring", "nvidia-device-plugin"]
    found = quotas(gke)
    assert sorted(found) == ["gpu-monitoring", "nvidia-device-plugin"]
    for namespace, priority_class in charts:
        assert priority_class in CRITICAL_PRIORITY_CLASSES
        assert admitted(found.values(), namespace, priority_class), (namespace, found)
    assert found["gpu-monitoring"]["metadata"]["name"] == "dcgm-exporter-critical-pods"
    assert found["nvidia-device-plugin"]["metadata"]["name"] == "nvidia-device-plugin-critical-pods"
    # no cap of one pod per GPU node below GKE's own quota's (kube-system gcp-critical-pods: pods 1G)
    assert {q["spec"]["hard"]["pods"] for q in found.values()} == {"1G"}


def test_the_plan_text_names_each_quota(gke):
    text = render_text(gke)
    assert "gpu-monitoring/dcgm-exporter-critical-pods" in text
    assert "nvidia-device-plugin/nvidia-device-plugin-critical-pods" in text


def test_the_quota_is_created_before_the_chart(gke):
    by_name = {r.name: r for r in gke.resources}
    for agent in ("dcgm-exporter", "nvidia-device-plugin"):
        quota_urn = by_name[f"{agent}-quota"].urn
        assert quota_urn in by_name[f"{agent}-chart"].dependencies, agent


def test_an_agent_in_kube_system_uses_gkes_own_quota(tmp_path):
    result = plan_stack("gk", project(tmp_path, {"gk": GKE_OURS % ", namespace: kube-system"}))
    assert not result.config_issues
    assert sorted(quotas(result)) == ["nvidia-device-plugin"]


def test_eks_stacks_get_no_quota(tmp_path):
    result = plan_stack("ek", project(tmp_path, {"ek": EKS}))
    assert not result.config_issues
    assert sorted(ns for ns, _ in agent_charts(result)) == ["gpu-monitoring", "nvidia-device-plugin"]
    assert quotas(result) == {}


def test_the_operator_on_gke_keeps_nvidias_quota_name_without_capping_the_nodes(tmp_path):
    result = plan_stack("op", project(tmp_path, {"op": GKE_OPERATOR}))
    assert not result.config_issues, result.config_issues
    found = quotas(result)
    assert list(found) == ["gpu-operator"]
    expected = gke_resource_quota("gpu-operator")
    assert expected == critical_pods_quota("gpu-operator", "gpu-operator-quota")
    assert expected["spec"]["hard"]["pods"] == "1G"  # a pod per operand per GPU node: 100 stops at a dozen nodes
    assert found["gpu-operator"]["metadata"] == expected["metadata"]
    assert found["gpu-operator"]["spec"] == expected["spec"]


def test_render_writes_the_quota_of_each_agent_namespace(tmp_path, capsys):
    root = project(tmp_path / "p", {"gk": GKE_OURS % ""})
    out = tmp_path / "out"
    # the pool's disabled driver is a mandatory finding (no driver installer declared); the files are still wanted
    code = main(["render", "--stack", "gk", "--out", str(out), "--project-dir", str(root), "--fail-on", "none"])
    capsys.readouterr()
    assert code == 0
    written = {p.name: yaml.safe_load(p.read_text()) for p in out.glob("resourcequota-*.yaml")}
    assert sorted(written) == ["resourcequota-gpu-monitoring-dcgm-exporter-critical-pods.yaml",
                               "resourcequota-nvidia-device-plugin-nvidia-device-plugin-critical-pods.yaml"]
    for obj in written.values():
        assert obj["kind"] == "ResourceQuota" and obj["apiVersion"] == "v1"
        assert admitted([obj], obj["metadata"]["namespace"], "system-node-critical")


GKE_STACK = {
    "cluster": {"name": "ml-gke-dev", "project": "acme-ml-dev", "location": "us-central1"},
    "pools": [{"name": "l4", "backend": "gke", "machineType": "g2-standard-8",
               "accelerator": {"type": "nvidia-l4", "count": 1}, "autoscaling": {"minSize": 0, "maxSize": 4}}],
}
EKS_STACK = {
    "cluster": {"name": "ml", "nodeRoleArn": "arn:aws:iam::111122223333:role/n", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]},
    "pools": [{"name": "big", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"],
               "scaling": {"minSize": 0, "maxSize": 2}}],
}


@pytest.mark.parametrize(("raw", "needed"), [(GKE_STACK, True), (EKS_STACK, False)])
def test_the_agent_pool_carries_the_pool_models_need(raw, needed):
    pool = validate_stack_config(raw).pools[0]
    assert pool.critical_pods_need_quota is needed
    seen = agent_pool(pool)
    assert seen.critical_pods_need_quota is needed
    assert needs_critical_pods_quota([seen], SYSTEM_NODE_CRITICAL, "gpu-monitoring") is needed
    assert needs_critical_pods_quota([pool], SYSTEM_NODE_CRITICAL, "gpu-monitoring") is needed


def test_the_quota_follows_the_pools_fact_not_its_backends_name():
    gke = agent_pool(validate_stack_config(GKE_STACK).pools[0])
    eks = agent_pool(validate_stack_config(EKS_STACK).pools[0])
    # a platform that states the need gets the quota whatever it is called; one that does not, none
    assert agent_quota([replace(eks, critical_pods_need_quota=True)], "dcgm-exporter", SYSTEM_NODE_CRITICAL,
                       "gpu-monitoring") == critical_pods_quota("gpu-monitoring", "dcgm-exporter-critical-pods")
    assert agent_quota([replace(gke, critical_pods_need_quota=False)], "dcgm-exporter", SYSTEM_NODE_CRITICAL,
                       "gpu-monitoring") is None
    # one pool of the cluster that needs it is enough; kube-system has GKE's own quota; other classes need none
    assert needs_critical_pods_quota([eks, gke], SYSTEM_CLUSTER_CRITICAL, "gpu-operator")
    assert not needs_critical_pods_quota([gke], SYSTEM_NODE_CRITICAL, "kube-system")
    assert not needs_critical_pods_quota([gke], None, "gpu-monitoring")
