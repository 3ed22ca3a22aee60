"""``gpupool audit --stack``: two NVIDIA device plugins that would run on one node of a declared pool (the cluster's and
the stack's, or two of the cluster's), or one where the node image runs its own, is a mandatory what-if finding, as
the pack's ``device-plugin-covers-gpu-pools`` says of two plugins on one pool: the kubelet keeps one registration per
resource name (kubernetes/kubernetes pkg/kubelet/cm/devicemanager/manager.go), so allocations flap between them. The
finding names each plugin and the fix: remove the cluster's, or turn the stack's off."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from audit_cluster import audit_stack, eks_node
from conftest import ROOT

from gpu_node_pool.audit.declared import Declared, DeclaredPool
from gpu_node_pool.audit.report import run_audit
from gpu_node_pool.audit.snapshot import Snapshot
from gpu_node_pool.k8s.taints import Taint

SCHEMA = json.loads((ROOT / "components/gpu_node_pool/audit/report.schema.json").read_text())
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
PLUGIN_IMAGE = "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"
TOLERATES_GPU = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def plugin(name: str = "nvidia-device-plugin-daemonset", namespace: str = "kube-system",
           selector: dict[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "ndp", "image": PLUGIN_IMAGE}], "tolerations": TOLERATES_GPU}
    if selector is not None:
        spec["nodeSelector"] = selector
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": namespace},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}


def inference_node() -> dict[str, Any]:
    """A node of the repository's ``dev`` stack's pool ``inference`` (g6.xlarge, nvidia.com/gpu=present:NoSchedule)."""
    return eks_node("gpu-1", pool="inference", nodegroup="inference", instance="g6.xlarge", gpus=1, taints=[GPU_TAINT])


def audit_dev(tmp_path, objects: list[dict[str, Any]]) -> tuple[int, dict[str, Any], str]:
    """``gpupool audit --stack dev`` (the repository's stack, whose devicePlugin installs NVIDIA's chart in namespace
    nvidia-device-plugin) of a dump of ``objects``: exit code, ``--json`` report, text."""
    return audit_stack(tmp_path, objects, "dev")


def two_plugins(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["code"] == "whatif-two-device-plugins"]


def test_the_clusters_device_plugin_and_the_stacks_on_one_pool_is_a_mandatory_finding_naming_both_and_the_fix(tmp_path):
    code, report, text = audit_dev(tmp_path, [inference_node(), plugin()])
    jsonschema.validate(report, SCHEMA)
    [found] = two_plugins(report)
    assert found["level"] == "mandatory" and found["pool"] == "inference"
    assert found["subject"] == ("DaemonSets kube-system/nvidia-device-plugin-daemonset and "
                                "nvidia-device-plugin/nvidia-device-plugin-chart (stack)")
    assert found["message"].startswith(
        "2 NVIDIA device plugins would run on gpu-1 with the taints and labels the stack declares for pool inference: "
        "kube-system/nvidia-device-plugin-daemonset (the cluster's), nvidia-device-plugin/nvidia-device-plugin-chart "
        "(the stack's); each registers nvidia.com/gpu with the node's kubelet, which keeps one registration per resource name")
    assert found["fix"] == (
        "keep one device plugin per node: remove the cluster's kube-system/nvidia-device-plugin-daemonset "
        "(kubectl -n kube-system delete daemonset nvidia-device-plugin-daemonset), or turn the stack's "
        "nvidia-device-plugin/nvidia-device-plugin-chart off (gpu-node-pools:devicePlugin: {enabled: false} in stack dev)")
    assert code == 1 and report["exitCode"] == 1
    assert f"[mandatory] {found['subject']}: {found['message']} -> {found['fix']}" in text


def test_a_clusters_plugin_kept_off_the_pool_gives_no_such_finding(tmp_path):
    elsewhere = plugin(selector={"example.com/accelerator": "other"})  # its selection keeps it off pool inference
    _, report, _ = audit_dev(tmp_path, [inference_node(), elsewhere])
    assert two_plugins(report) == []


def _new_pool(daemonsets: list[dict[str, Any]], **pool: Any) -> Any:
    """The audit of a cluster with one GPU node of pool ``old`` and ``daemonsets``, against a stack declaring pool
    ``new`` (no node yet) and deploying no DaemonSet."""
    snapshot = Snapshot("dump")
    snapshot.add("Node", eks_node("gpu-old-1", pool="old", nodegroup="old", instance="g6.xlarge", gpus=1, taints=[GPU_TAINT]))
    for ds in daemonsets:
        snapshot.add("DaemonSet", ds)
    declared = DeclaredPool(0, "new", "eks-managed", [Taint.parse("nvidia.com/gpu=present:NoSchedule")],
                            {"gpu-node-pools/pool": "new"}, **pool)
    return run_audit(snapshot, declared=Declared("s", [declared], []))


def test_two_plugins_of_the_cluster_on_a_new_pools_nodes_are_named_with_a_fix_for_each():
    report = _new_pool([plugin(), plugin("nvidia-device-plugin-2", "gpu-system")])
    [found] = [f for f in report.findings if f.code == "whatif-two-device-plugins"]
    assert found.message.startswith("2 NVIDIA device plugins would run on pool new's new nodes: "
                                    "kube-system/nvidia-device-plugin-daemonset (the cluster's), "
                                    "gpu-system/nvidia-device-plugin-2 (the cluster's)")
    assert "kubectl -n kube-system delete daemonset nvidia-device-plugin-daemonset" in found.fix
    assert "kubectl -n gpu-system delete daemonset nvidia-device-plugin-2" in found.fix
    assert report.exit_code == 1


def test_a_plugin_where_the_node_image_runs_its_own_is_the_same_conflict():
    report = _new_pool([plugin()], device_plugin_source="image")  # Bottlerocket NVIDIA, EKS Auto Mode
    [found] = [f for f in report.findings if f.code == "whatif-two-device-plugins"]
    assert found.level == "mandatory" and found.subject == "DaemonSet kube-system/nvidia-device-plugin-daemonset"
    assert "whose node image already runs NVIDIA's device plugin" in found.message
    assert found.fix.startswith("keep kube-system/nvidia-device-plugin-daemonset off pool new's nodes")
    # one plugin on nodes that need one is what they should have
    assert not [f for f in _new_pool([plugin()]).findings if f.code == "whatif-two-device-plugins"]
