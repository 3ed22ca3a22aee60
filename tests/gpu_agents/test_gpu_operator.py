"""The GpuOperator component's chart values, asserted against `helm template` of the real
gpu-operator chart (../shared/charts/gpu-operator): the rendered ClusterPolicy's spec.daemonsets.tolerations
(which the operator copies to every operand DaemonSet) and the NFD worker DaemonSet tolerate every pool taint,
and the per-backend operand enables land in the ClusterPolicy. Skipped with the reason without helm/charts."""

from __future__ import annotations

import os
import subprocess

import pytest
import yaml
from conftest import ROOT

from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.gpu_agents.gpu_operator.values import (
    GKE_INSTALL_DIR,
    PLUGIN_CONFIG_NAME,
    gke_resource_quota,
    operator_values,
)
from gpu_node_pool.gpu_agents.pools import agent_pool
from gpu_node_pool.k8s.taints import Toleration, tolerations_tolerate_taint
from gpu_node_pool.plan.expand import locate_helm

SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()), ROOT.parent / "shared")
CHART = SHARED / "charts" / "gpu-operator"
HELM = locate_helm()
EKS = {"name": "ml", "nodeRoleArn": "arn:aws:iam::123456789012:role/n", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}


def stack(pools, cluster=EKS, agents=None):
    raw = {"cluster": cluster, "devicePlugin": {"provider": "gpu-operator"}, "pools": pools}
    if agents:
        raw["gpuAgents"] = agents
    return validate_stack_config(raw)


def values_of(s):
    return operator_values([agent_pool(p) for p in s.pools], dcgm_exporter=s.gpu_agents.dcgm_exporter.enabled,
                           feature_discovery=s.gpu_agents.feature_discovery.enabled)


def render(values, tmp_path):
    if HELM is None or not CHART.is_dir():
        pytest.skip(f"needs helm (tools/install_helm.py) and {CHART}")
    f = tmp_path / "values.yaml"
    f.write_text(yaml.safe_dump(values))
    out = subprocess.run([HELM, "template", "gpu-operator", str(CHART), "-n", "gpu-operator", "-f", str(f)],
                         check=True, capture_output=True, text=True, env={**os.environ, "HELM_CACHE_HOME": str(tmp_path)}).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def cluster_policy(docs):
    (cp,) = [d for d in docs if d["kind"] == "ClusterPolicy"]
    return cp["spec"]


def nfd_worker(docs):
    (ds,) = [d for d in docs if d["kind"] == "DaemonSet" and d["metadata"]["name"].endswith("node-feature-discovery-worker")]
    return ds["spec"]["template"]["spec"]


def tolerates_all(tolerations, pools):
    parsed = [Toleration.from_k8s(t) for t in tolerations]
    return {(p.name, str(t)): tolerations_tolerate_taint(parsed, t) for p in pools for t in p.taint_list}


AL2023 = [
    {"name": "ts", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 2},
     "taints": ["nvidia.com/gpu=true:NoSchedule", "example.com/team=ml:NoExecute"],
     "gpuSharing": {"strategy": "timeSlicing", "replicas": 4}},
    {"name": "whole", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 2}},
]


def test_al2023_operator_renders_a_cluster_policy_tolerating_every_pool_taint(tmp_path):
    s = stack(AL2023, agents={"dcgmExporter": {"enabled": True}})
    docs = render(values_of(s), tmp_path)
    spec = cluster_policy(docs)
    assert all(tolerates_all(spec["daemonsets"]["tolerations"], s.pools).values()), spec["daemonsets"]["tolerations"]
    assert all(tolerates_all(nfd_worker(docs).get("tolerations") or [], s.pools).values())
    # the EKS AL2023 NVIDIA AMI ships the driver and the toolkit; the operator runs the plugin
    assert spec["driver"]["enabled"] is False and spec["toolkit"]["enabled"] is False
    assert spec["devicePlugin"]["enabled"] is True
    # gpuAgents -> operand enables
    assert spec["dcgmExporter"]["enabled"] is True and spec["gfd"]["enabled"] is False
    # time-slicing: the named config the pool's label selects, in the ConfigMap the ClusterPolicy names
    assert spec["devicePlugin"]["config"] == {"name": PLUGIN_CONFIG_NAME, "default": "default"}
    (cm,) = [d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == PLUGIN_CONFIG_NAME]
    assert yaml.safe_load(cm["data"]["timeslicing-4"])["sharing"]["timeSlicing"]["resources"] == [
        {"name": "nvidia.com/gpu", "replicas": 4}]
    assert s.pools[0].node_labels["nvidia.com/device-plugin.config"] == "timeslicing-4"


def test_no_operand_placement_values():
    values = values_of(stack(AL2023))
    assert not {"affinity", "nodeSelector", "operator"} & set(values)
    for operand in ("driver", "toolkit", "devicePlugin", "dcgmExporter", "gfd", "migManager"):
        assert not {"affinity", "nodeSelector"} & set(values[operand])


def test_bottlerocket_turns_plugin_and_mig_manager_off(tmp_path):
    s = stack([{"name": "br", "backend": "eks-managed", "amiType": "BOTTLEROCKET_x86_64_NVIDIA",
                "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 2}}],
              agents={"featureDiscovery": {"enabled": True}})
    spec = cluster_policy(render(values_of(s), tmp_path))
    assert [spec[k]["enabled"] for k in ("driver", "toolkit", "devicePlugin", "migManager")] == [False] * 4
    assert spec["gfd"]["enabled"] is True and spec["dcgmExporter"]["enabled"] is False


def test_mps_turns_gfd_on_and_mixed_mig_is_the_pools_own_named_config():
    s = stack([{"name": "m", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 1},
                "gpuSharing": {"strategy": "mps", "replicas": 2}},
               {"name": "a", "backend": "eks-managed", "instanceTypes": ["p4de.24xlarge"], "scaling": {"minSize": 0, "maxSize": 1},
                "mig": {"strategy": "mixed", "profile": "1g.10gb"}}])
    values = values_of(s)
    assert values["gfd"]["enabled"] is True
    assert values["mig"] == {"strategy": ""}  # no cluster-wide strategy: each node's named config decides
    data = values["devicePlugin"]["config"]["data"]
    assert yaml.safe_load(data["mig-mixed"]) == {"version": "v1", "flags": {"migStrategy": "mixed"}}
    assert yaml.safe_load(data["mps-2"])["flags"] == {"migStrategy": "none"}
    assert s.pools[1].node_labels["nvidia.com/device-plugin.config"] == "mig-mixed"
    assert s.pools[0].node_labels["nvidia.com/device-plugin.config"] == "mps-2"


GKE = {"name": "ml", "project": "my-project-1", "location": "us-central1"}
GKE_POOL = {"name": "l4", "backend": "gke", "machineType": "g2-standard-8", "accelerator": {
    "type": "nvidia-l4", "count": 1, "gpuDriverVersion": "INSTALLATION_DISABLED"},
    "autoscaling": {"minSize": 0, "maxSize": 2}, "nvidiaDevicePlugin": True,
    "labels": {"gke-no-default-nvidia-gpu-device-plugin": "true"}}


def test_gke_uses_googles_driver_paths(tmp_path):
    s = stack([GKE_POOL], cluster=GKE)
    values = values_of(s)
    spec = cluster_policy(render(values, tmp_path))
    assert spec["driver"]["enabled"] is False
    assert spec["hostPaths"]["driverInstallDir"] == GKE_INSTALL_DIR
    assert spec["toolkit"]["installDir"] == GKE_INSTALL_DIR and spec["toolkit"]["enabled"] is True
    assert all(tolerates_all(spec["daemonsets"]["tolerations"], s.pools).values())
    quota = gke_resource_quota("gpu-operator")
    assert quota["metadata"]["name"] == "gpu-operator-quota"
    assert quota["spec"]["scopeSelector"]["matchExpressions"][0]["values"] == ["system-node-critical", "system-cluster-critical"]
