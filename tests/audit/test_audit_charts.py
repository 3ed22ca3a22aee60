"""DaemonSets rendered from the real charts in ../shared/charts with a real Helm, judged by the audit.

Skipped with the reason when ../shared/charts or ``helm`` is absent.
"""

from __future__ import annotations

import subprocess

import pytest
import yaml
from audit_cluster import acceptance_objects
from conftest import ROOT

from gpu_node_pool.audit.cluster import read_node
from gpu_node_pool.plan.expand import locate_helm
from gpu_node_pool.policies.daemonset_nodes import judge, read_daemonset

CHARTS = ROOT.parent / "shared" / "charts"
HELM = locate_helm()
pytestmark = [
    pytest.mark.skipif(not CHARTS.is_dir(), reason=f"{CHARTS} is absent (shared test data)"),
    pytest.mark.skipif(HELM is None, reason="helm is not on PATH; see ../shared/charts/SOURCE.md for a Helm without internet"),
]


def rendered_daemonsets(chart: str, namespace: str) -> list[dict]:
    out = subprocess.run([HELM, "template", chart, str(CHARTS / chart), "--namespace", namespace],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    return [d for d in yaml.safe_load_all(out) if isinstance(d, dict) and d.get("kind") == "DaemonSet"]


@pytest.mark.parametrize(
    ("chart", "namespace", "on_healthy_gpu_node"),
    [("dcgm-exporter", "gpu-monitoring", "doesNotRun"), ("nvidia-device-plugin", "nvidia-device-plugin", "runs")],
)
def test_chart_daemonsets_on_the_acceptance_gpu_node(chart, namespace, on_healthy_gpu_node):
    node = read_node(next(o for o in acceptance_objects() if o["kind"] == "Node"))  # gpu-inf-1
    daemonsets = [read_daemonset(d, "eks") for d in rendered_daemonsets(chart, namespace)]
    assert daemonsets
    main = daemonsets[0]
    assert judge(main, node.name, node.labels, node.taints).status == on_healthy_gpu_node
