"""Two NVIDIA device plugins whose pods run on one live GPU node are a mandatory ``two-device-plugins`` finding without
``--stack``, decided by the detector the what-if's ``whatif-two-device-plugins`` uses
(``audit/device_plugins.py``: each registers nvidia.com/gpu with the node's kubelet, which keeps the last registration
per resource name, kubernetes/kubernetes pkg/kubelet/cm/devicemanager/manager.go, so allocations flap). Where one
plugin runs and whether another does is not judged, the report says so instead of passing in silence."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from audit_cluster import audit_dump, ds_pod, eks_node
from conftest import ROOT

SCHEMA = json.loads((ROOT / "components/gpu_node_pool/audit/report.schema.json").read_text())
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
TOLERATES_GPU = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def plugin(name: str, namespace: str, **extra: Any) -> dict[str, Any]:
    spec = {"containers": [{"name": "ndp", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}],
            "tolerations": TOLERATES_GPU, **extra}
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": namespace},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}


CHART = plugin("nvidia-device-plugin", "nvidia-device-plugin")
STATIC = plugin("nvidia-device-plugin-daemonset", "kube-system")


def audit(tmp_path, *daemonsets: dict[str, Any]) -> tuple[int, dict[str, Any], str]:
    node = eks_node("gpu-1", pool="inference", nodegroup="inference", instance="g6.xlarge", gpus=1, taints=[GPU_TAINT])
    pods = [ds_pod(ds, "gpu-1") for ds in daemonsets]
    return audit_dump(tmp_path, [node, *daemonsets, *pods])


def found(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["code"] == "two-device-plugins"]


def test_two_plugins_on_a_live_gpu_node_are_a_mandatory_finding_naming_both_and_the_fix(tmp_path):
    code, report, text = audit(tmp_path, CHART, STATIC)
    jsonschema.validate(report, SCHEMA)
    [f] = found(report)
    assert f["level"] == "mandatory" and f["pool"] == "GpuNodePool inference"
    assert f["subject"] == "DaemonSets nvidia-device-plugin/nvidia-device-plugin and kube-system/nvidia-device-plugin-daemonset"
    assert f["message"].startswith("2 NVIDIA device plugins run on gpu-1 of GpuNodePool inference")
    assert ("each registers nvidia.com/gpu with the node's kubelet, which keeps one registration per resource name"
            in f["message"])
    assert f["fix"].startswith(
        "keep one device plugin per node: remove nvidia-device-plugin/nvidia-device-plugin (kubectl -n "
        "nvidia-device-plugin delete daemonset nvidia-device-plugin), or remove kube-system/nvidia-device-plugin-daemonset "
        "(kubectl -n kube-system delete daemonset nvidia-device-plugin-daemonset)")
    assert code == 1 and report["exitCode"] == 1
    assert f"[mandatory] {f['subject']}: {f['message']} -> {f['fix']}" in " ".join(text.split())


def test_one_plugin_is_what_a_gpu_node_needs(tmp_path):
    code, report, _ = audit(tmp_path, STATIC)
    assert found(report) == [] and code == 0


def test_a_second_plugin_kept_off_the_node_by_its_selection_is_no_conflict(tmp_path):
    elsewhere = plugin("nvidia-device-plugin", "nvidia-device-plugin", nodeSelector={"example.com/accelerator": "other"})
    code, report, _ = audit(tmp_path, elsewhere, STATIC)
    assert found(report) == [] and code == 0


def _by_name(name: str) -> dict[str, Any]:
    return plugin("nvidia-device-plugin", "nvidia-device-plugin", affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [name]}]}]}}})


def test_a_second_plugin_placed_by_the_node_name_is_judged_by_it(tmp_path):
    _, report, _ = audit(tmp_path, _by_name("gpu-1"), STATIC)
    [f] = found(report)
    assert f["message"].startswith("2 NVIDIA device plugins run on gpu-1 of GpuNodePool inference")
    assert not [n for n in report["notJudged"] if n["subject"].startswith("two device plugins")]
    code, report, _ = audit(tmp_path, _by_name("gpu-2"), STATIC)
    assert found(report) == [] and code == 0
