"""GPU agents judged where their node selection lands them, on DaemonSets the real charts render
(../shared/charts, a real Helm; skipped with the reason when absent)."""

from __future__ import annotations

import json
import subprocess

import pytest
import yaml
from builders import EXISTS_GPU, node_group, run
from conftest import ROOT

from gpu_node_pool.plan.expand import locate_helm
from gpu_node_pool.policies import StackResource
from gpu_node_pool.policies import rules as d

CHARTS = ROOT.parent / "shared" / "charts"
HELM = locate_helm()
pytestmark = [
    pytest.mark.skipif(not CHARTS.is_dir(), reason=f"{CHARTS} is absent (shared test data)"),
    pytest.mark.skipif(HELM is None, reason="helm is not on PATH; see ../shared/charts/SOURCE.md for a Helm without internet"),
]
TYPE = "node.kubernetes.io/instance-type"


def chart_daemonset(chart: str, namespace: str, **values) -> StackResource:
    args = [HELM, "template", chart, str(CHARTS / chart), "--namespace", namespace]
    for key, value in values.items():
        args += ["--set-json", f"{key}={json.dumps(value)}"]
    out = subprocess.run(args, capture_output=True, text=True, timeout=120, check=True).stdout
    ds = next(o for o in yaml.safe_load_all(out) if isinstance(o, dict) and o.get("kind") == "DaemonSet")
    return StackResource("kubernetes:apps/v1:DaemonSet", ds["metadata"]["name"], ds)


def by_type_affinity(*types):
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": TYPE, "operator": "In", "values": list(types)}]}]}}}


@pytest.mark.parametrize("selection", [{"nodeSelector": {TYPE: "g5.xlarge"}}, {"affinity": by_type_affinity("g5.xlarge")}])
def test_dcgm_exporter_pinned_to_other_instance_types_misses_the_pool_type(selection):
    ds = chart_daemonset("dcgm-exporter", "gpu-monitoring", tolerations=[EXISTS_GPU], **selection)
    pool = node_group(types=("g5.xlarge", "g6.xlarge"))
    (found,) = run(d.gpu_agents_cover_gpu_pools.POLICY, [pool, ds])
    assert found["message"].startswith("The DCGM exporter does not cover GPU pool 'gpu'")
    assert "instance type g6.xlarge (by node.kubernetes.io/instance-type)" in found["message"]
    assert "g5.xlarge (by" not in found["message"] and "nodeSelector / affinity" in found["message"]
    assert run(d.gpu_agents_cover_gpu_pools.POLICY, [node_group(types=("g5.xlarge",)), ds]) == []


def test_dcgm_exporter_that_tolerates_and_selects_every_type_is_clean():
    ds = chart_daemonset("dcgm-exporter", "gpu-monitoring", tolerations=[EXISTS_GPU],
                         affinity=by_type_affinity("g5.xlarge", "g6.xlarge"))
    assert run(d.gpu_agents_cover_gpu_pools.POLICY, [node_group(types=("g5.xlarge", "g6.xlarge")), ds]) == []


def test_device_plugin_excluding_the_managed_node_group_label_is_a_finding():
    ds = chart_daemonset("nvidia-device-plugin", "nvidia-device-plugin", tolerations=[EXISTS_GPU],
                         nodeSelector={"eks.amazonaws.com/compute-type": "auto"})
    (found,) = run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(), ds])
    assert "does not cover GPU pool 'gpu'" in found["message"]
    assert "instance type g6.xlarge (by eks.amazonaws.com/compute-type)" in found["message"]


def test_device_plugin_without_gpu_selection_gets_the_advisory():
    plain = chart_daemonset("nvidia-device-plugin", "nvidia-device-plugin", tolerations=[EXISTS_GPU], affinity=None)  # null drops the chart default
    (found,) = run(d.gpu_workloads_select_gpu_nodes.POLICY, [node_group(), plain])
    assert found["enforcement"] == "advisory" and "selects no GPU nodes" in found["message"]
    default = chart_daemonset("nvidia-device-plugin", "nvidia-device-plugin", tolerations=[EXISTS_GPU])
    assert run(d.gpu_workloads_select_gpu_nodes.POLICY, [node_group(), default]) == []

