"""The agents the product installs pass its own rules with default settings, and EFA pools get the EFA device plugin.

Planned offline from the shipped stacks plus one `gpuAgents` key; the DCGM exporter's values are rendered with the
real chart (`helm template`, ../shared/charts; skipped with the reason without helm or the chart)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
import yaml
from conftest import ROOT

from gpu_node_pool.k8s.taints import Taint, Toleration, tolerations_tolerate_taint
from gpu_node_pool.k8s.wellknown import HELM_CHART_V4
from gpu_node_pool.plan import plan_stack
from gpu_node_pool.plan.expand import locate_helm
from gpu_node_pool.plan.report import render_text

SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()), ROOT.parent / "shared")
HELM = locate_helm()
DCGM_CHART = SHARED / "charts" / "dcgm-exporter"
SG = "sg-0a1b2c3d4e5f60718"


def plan_with(tmp_path, shipped: str, extra: dict | None = None, replace_pools: list | None = None):
    """Plan ``stacks/Pulumi.<shipped>.yaml`` with ``extra`` config keys (``gpu-node-pools:`` prefixed) merged in."""
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", tmp_path / "__main__.py")
    (tmp_path / "stacks").mkdir()
    doc = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{shipped}.yaml").read_text())
    doc["config"].update({f"gpu-node-pools:{k}": v for k, v in (extra or {}).items()})
    if replace_pools is not None:
        doc["config"]["gpu-node-pools:pools"] = replace_pools
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(yaml.safe_dump(doc))
    result = plan_stack("t", tmp_path)
    assert not result.config_issues, result.config_issues
    return result


def chart(result, name):
    found = [r for r in result.resources if r.type == HELM_CHART_V4 and r.inputs.get("chart") == name]
    assert len(found) <= 1
    return found[0] if found else None


def helm_template(values: dict, tmp_path) -> list[dict]:
    if HELM is None or not DCGM_CHART.is_dir():
        pytest.skip(f"needs helm (tools/install_helm.py) and {DCGM_CHART}")
    tmp_path.mkdir(parents=True, exist_ok=True)
    f = tmp_path / "values.yaml"
    f.write_text(yaml.safe_dump(values))
    out = subprocess.run([HELM, "template", "rel", str(DCGM_CHART), "-n", "gpu-monitoring", "-f", str(f)], check=True,
                         capture_output=True, text=True, env={**os.environ, "HELM_CACHE_HOME": str(tmp_path)}).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def test_dev_with_the_dcgm_exporter_plans_clean_and_renders_no_service_monitor(tmp_path):
    result = plan_with(tmp_path, "dev", {"gpuAgents": {"dcgmExporter": {"enabled": True}}})
    assert result.exit_code == 0, result.violations
    # offline the remote chart is not expanded: only the advisory that says so (the DaemonSet is judged below)
    assert {v["policy"] for v in result.violations} <= {"resources-judged"}, result.violations
    dcgm = chart(result, "dcgm-exporter")
    assert dcgm.inputs["namespace"] == "gpu-monitoring"
    assert dcgm.inputs["values"]["serviceMonitor"] == {"enabled": False}
    text = render_text(result)
    assert "agent namespaces allowed by gpu-toleration-allowlist" in text
    assert "gpu-monitoring (DCGM exporter)" in text and "nvidia-device-plugin (NVIDIA device plugin)" in text
    kinds = {d["kind"] for d in helm_template(dcgm.inputs["values"], tmp_path / "h")}
    assert "DaemonSet" in kinds and "ServiceMonitor" not in kinds


def test_the_exporter_daemonset_in_gpu_monitoring_passes_the_allow_list(tmp_path):
    """What a real preview judges: the chart's DaemonSet itself, in the agent namespace (not allow-listed by default)."""
    if HELM is None or not DCGM_CHART.is_dir():
        pytest.skip(f"needs helm (tools/install_helm.py) and {DCGM_CHART}")
    from gpu_node_pool.policies import evaluate
    from gpu_node_pool.sdk.record import Resource

    result = plan_with(tmp_path, "dev", {"gpuAgents": {"dcgmExporter": {"enabled": True}}})
    (ds,) = [d for d in helm_template(chart(result, "dcgm-exporter").inputs["values"], tmp_path / "h") if d["kind"] == "DaemonSet"]
    ds["metadata"]["namespace"] = "gpu-monitoring"
    extra = Resource(type="kubernetes:apps/v1:DaemonSet", name="dcgm-exporter-ds", inputs=ds)
    violations = evaluate([*result.resources, extra], None, stack="t", project="gpu-node-pools")
    assert not [v for v in violations if v["policy"] in ("gpu-toleration-allowlist", "daemonsets-tolerate-exactly")], violations


def test_service_monitor_only_when_asked(tmp_path):
    result = plan_with(tmp_path, "dev", {"gpuAgents": {"dcgmExporter": {"enabled": True, "serviceMonitor": True}}})
    assert chart(result, "dcgm-exporter").inputs["values"]["serviceMonitor"] == {"enabled": True}


def test_gke_exporter_gets_the_driver_directory_mounted(tmp_path):
    result = plan_with(tmp_path, "gke-dev", {"gpuAgents": {"dcgmExporter": {"enabled": True}}})
    assert result.exit_code == 0, result.violations
    values = chart(result, "dcgm-exporter").inputs["values"]
    (ds,) = [d for d in helm_template(values, tmp_path / "h") if d["kind"] == "DaemonSet"]
    pod = ds["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["mountPath"]: m["name"] for m in pod["containers"][0]["volumeMounts"]}
    assert volumes[mounts["/usr/local/nvidia"]]["hostPath"]["path"] == "/home/kubernetes/bin/nvidia"
    assert "/etc/dcgm-exporter/default-counters.csv" in mounts  # the chart's default mount is kept
    assert {"name": "LD_LIBRARY_PATH", "value": "/usr/local/nvidia/lib64"} in pod["containers"][0]["env"]


def test_non_gke_exporter_gets_no_host_driver_mount(tmp_path):
    values = chart(plan_with(tmp_path, "dev", {"gpuAgents": {"dcgmExporter": {"enabled": True}}}), "dcgm-exporter").inputs["values"]
    assert "extraHostVolumes" not in values


EFA_POOLS = [
    {"name": "train", "backend": "eks-managed", "instanceTypes": ["p5.48xlarge"], "scaling": {"minSize": 0, "maxSize": 2},
     "taints": ["nvidia.com/gpu=present:NoSchedule"], "efa": {"enabled": True, "securityGroupIds": [SG]}, "subnetIds": ["subnet-0a1b2c3d4e5f60718"]},
    {"name": "train-b", "backend": "eks-managed", "instanceTypes": ["p4d.24xlarge"], "scaling": {"minSize": 0, "maxSize": 2},
     "taints": ["nvidia.com/gpu=present:NoSchedule", "example.com/dedicated=training:NoExecute"],
     "efa": {"enabled": True, "securityGroupIds": [SG]}, "subnetIds": ["subnet-0a1b2c3d4e5f60718"]},
    {"name": "inference", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 2},
     "taints": ["example.com/inference=true:NoSchedule"]},
]


def test_efa_stack_installs_the_efa_plugin_tolerating_every_efa_pool(tmp_path):
    result = plan_with(tmp_path, "dev", replace_pools=EFA_POOLS)
    assert result.exit_code == 0, result.violations
    efa = chart(result, "aws-efa-k8s-device-plugin")
    assert efa is not None
    assert efa.inputs["version"] == "0.5.30" and efa.inputs["repositoryOpts"] == {"repo": "https://aws.github.io/eks-charts"}
    assert efa.inputs["namespace"] == "kube-system"
    tolerations = [Toleration.from_k8s(t) for t in efa.inputs["values"]["tolerations"]]
    for pool in EFA_POOLS[:2]:
        for taint in pool["taints"]:
            assert tolerations_tolerate_taint(tolerations, Taint.parse(taint)), (pool["name"], taint)
    # the non-EFA pool's taint is not tolerated: the plugin serves EFA pools only
    assert not tolerations_tolerate_taint(tolerations, Taint.parse("example.com/inference=true:NoSchedule"))
    assert "kube-system (EFA device plugin)" in render_text(result)


def test_efa_pools_without_the_plugin_fail_the_coverage_rule(tmp_path):
    result = plan_with(tmp_path, "dev", {"gpuAgents": {"efaDevicePlugin": {"enabled": False}}}, replace_pools=EFA_POOLS)
    assert chart(result, "aws-efa-k8s-device-plugin") is None
    found = [v for v in result.violations if v["policy"] == "gpu-agents-cover-gpu-pools"]
    assert len(found) == 2 and all("No EFA device plugin covers" in v["message"] for v in found), result.violations
    assert result.exit_code == 1


def test_no_efa_pool_no_efa_plugin(tmp_path):
    assert chart(plan_with(tmp_path, "dev"), "aws-efa-k8s-device-plugin") is None
