"""Policy gpu-agents-cover-gpu-pools judges the DCGM exporter wherever one is installed (the standalone
chart, whose default tolerates only the control plane - dcgm-exporter#731; a DaemonSet by image; the GPU
Operator's dcgmExporter operand), naming the agent, the pool and the untolerated taint."""

from __future__ import annotations

from builders import EXISTS_GPU, daemonset, node_group, run

from gpu_node_pool.policies import StackResource
from gpu_node_pool.policies import rules as d

DEDICATED = "dedicated=gpu:NoSchedule"


def dcgm_chart(**values):
    return StackResource("kubernetes:helm.sh/v4:Chart", "dcgm", {
        "chart": "dcgm-exporter", "namespace": "gpu-monitoring", "values": values})


def test_dcgm_chart_with_its_default_tolerations_misses_the_gpu_taint():
    (found,) = run(d.gpu_agents_cover_gpu_pools.POLICY, [node_group(), dcgm_chart()])
    assert found["enforcement"] == "mandatory"
    assert found["message"].startswith("The DCGM exporter does not cover GPU pool 'gpu'")
    assert "DCGM exporter chart dcgm-exporter 'dcgm'" in found["message"] and "nvidia.com/gpu" in found["message"]


def test_dcgm_chart_with_derived_tolerations_covers_the_pool():
    assert run(d.gpu_agents_cover_gpu_pools.POLICY, [node_group(), dcgm_chart(tolerations=[EXISTS_GPU])]) == []


def test_dcgm_daemonset_by_image_and_operator_operand():
    ds = daemonset("dcgm-exporter", "monitoring", image="nvcr.io/nvidia/k8s/dcgm-exporter:4.4.1", tolerations=[EXISTS_GPU])
    assert run(d.gpu_agents_cover_gpu_pools.POLICY, [node_group(), ds]) == []
    (found,) = run(d.gpu_agents_cover_gpu_pools.POLICY, [node_group(taints=(DEDICATED,)), ds])
    assert "DCGM exporter DaemonSet monitoring/dcgm-exporter" in found["message"] and DEDICATED in found["message"]
    op = StackResource("kubernetes:helm.sh/v3:Release", "gpu-operator", {"chart": "gpu-operator", "values": {
        "daemonsets": {"tolerations": [EXISTS_GPU]}}})
    (found,) = [f for f in run(d.gpu_agents_cover_gpu_pools.POLICY, [node_group(taints=(DEDICATED,)), op]) if "DCGM" in f["message"]]
    assert "the DCGM exporter of the GPU Operator chart gpu-operator" in found["message"]
    off = StackResource("kubernetes:helm.sh/v3:Release", "gpu-operator", {"chart": "gpu-operator", "values": {
        "daemonsets": {"tolerations": [EXISTS_GPU]}, "dcgmExporter": {"enabled": False}}})
    assert not [f for f in run(d.gpu_agents_cover_gpu_pools.POLICY, [node_group(taints=(DEDICATED,)), off]) if "DCGM" in f["message"]]
