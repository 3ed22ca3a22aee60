"""GPU agents end to end: the program installs GpuOperator (provider gpu-operator), DcgmExporter
(gpuAgents.dcgmExporter with the standalone plugin) and GFD in the plugin chart (featureDiscovery / MPS), each with
tolerations derived from the pools; the DCGM exporter and the plugin's NFD worker are rendered with the real charts
(`helm template`, ../shared/charts) and tolerate every pool taint (fixing dcgm-exporter#731 and the NFD `Equal
present` trap, k8s-device-plugin#1934). Skipped with the reason without helm/charts."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
import yaml
from conftest import ROOT

from gpu_node_pool.k8s.taints import Toleration, tolerations_tolerate_taint
from gpu_node_pool.k8s.wellknown import HELM_CHART_V4
from gpu_node_pool.plan import plan_stack
from gpu_node_pool.plan.expand import locate_helm

SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()), ROOT.parent / "shared")
HELM = locate_helm()

STACK = """
config:
  aws:region: us-west-2
  gpu-node-pools:cluster:
    name: ml
    nodeRoleArn: arn:aws:iam::111122223333:role/n
    subnetIds: [subnet-0a1b2c3d4e5f60718]
  gpu-node-pools:pools:
    - name: big
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      scaling: {minSize: 0, maxSize: 2}
      taints: ["nvidia.com/gpu=true:NoSchedule", "example.com/dedicated=ml:NoExecute"]
  gpu-node-pools:gpuAgents:
    dcgmExporter: {enabled: true}
    featureDiscovery: {enabled: true}
"""
TAINTS = ["nvidia.com/gpu=true:NoSchedule", "example.com/dedicated=ml:NoExecute"]


@pytest.fixture(scope="module")
def planned(tmp_path_factory):
    project = tmp_path_factory.mktemp("agents")
    shutil.copy(ROOT / "Pulumi.yaml", project / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", project / "__main__.py")
    (project / "stacks").mkdir()
    (project / "stacks" / "Pulumi.ag.yaml").write_text(STACK)
    return plan_stack("ag", project)


def chart(planned, name):
    return next(r for r in planned.resources if r.type == HELM_CHART_V4 and r.inputs.get("chart") == name)


def tolerates(tolerations):
    from gpu_node_pool.k8s.taints import Taint

    parsed = [Toleration.from_k8s(t) for t in tolerations or []]
    return {t: tolerations_tolerate_taint(parsed, Taint.parse(t)) for t in TAINTS}


def render(chart_dir, values, tmp_path):
    if HELM is None or not chart_dir.is_dir():
        pytest.skip(f"needs helm (tools/install_helm.py) and {chart_dir}")
    f = tmp_path / "values.yaml"
    f.write_text(yaml.safe_dump(values))
    out = subprocess.run([HELM, "template", "rel", str(chart_dir), "-n", "agents", "-f", str(f)], check=True,
                         capture_output=True, text=True, env={**os.environ, "HELM_CACHE_HOME": str(tmp_path)}).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def test_plans_with_dcgm_exporter_and_feature_discovery(planned):
    assert not planned.config_issues
    assert not [v for v in planned.violations if v["enforcement"] == "mandatory"], planned.violations
    dcgm = chart(planned, "dcgm-exporter")
    assert dcgm.inputs["version"] == "4.8.2"
    assert dcgm.inputs["repositoryOpts"] == {"repo": "https://nvidia.github.io/dcgm-exporter/helm-charts"}
    assert all(tolerates(dcgm.inputs["values"]["tolerations"]).values())
    plugin = chart(planned, "nvidia-device-plugin").inputs["values"]
    assert plugin["gfd"] == {"enabled": True}
    assert all(tolerates(plugin["nfd"]["worker"]["tolerations"]).values())


def test_real_dcgm_chart_tolerates_and_selects_the_pool(planned, tmp_path):
    docs = render(SHARED / "charts" / "dcgm-exporter", chart(planned, "dcgm-exporter").inputs["values"], tmp_path)
    (ds,) = [d for d in docs if d["kind"] == "DaemonSet"]
    pod = ds["spec"]["template"]["spec"]
    assert all(tolerates(pod["tolerations"]).values()), pod["tolerations"]
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert {"key": "gpu-node-pools/pool", "operator": "In", "values": ["big"]} in terms[0]["matchExpressions"]
    # the chart's own default tolerates only the control plane: the trap this fixes
    default = render(SHARED / "charts" / "dcgm-exporter", {}, tmp_path)
    (ds0,) = [d for d in default if d["kind"] == "DaemonSet"]
    assert not all(tolerates(ds0["spec"]["template"]["spec"].get("tolerations")).values())


def test_real_plugin_chart_runs_gfd_and_an_nfd_worker_tolerating_every_taint(planned, tmp_path):
    docs = render(SHARED / "charts" / "nvidia-device-plugin", chart(planned, "nvidia-device-plugin").inputs["values"], tmp_path)
    daemonsets = {d["metadata"]["name"]: d["spec"]["template"]["spec"] for d in docs if d["kind"] == "DaemonSet"}
    gfd = next(v for k, v in daemonsets.items() if "gpu-feature-discovery" in k)
    worker = next(v for k, v in daemonsets.items() if k.endswith("node-feature-discovery-worker"))
    assert all(tolerates(gfd["tolerations"]).values())
    assert all(tolerates(worker["tolerations"]).values()), worker["tolerations"]
