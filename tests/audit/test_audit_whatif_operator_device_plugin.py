"""``gpupool audit --stack`` of a stack whose agents are the NVIDIA GPU Operator: the device plugin DaemonSet the operator
would create (``nvidia-device-plugin-daemonset``, NVIDIA/gpu-operator@v26.7.0 ``assets/state-device-plugin``; the chart's
``devicePlugin.enabled`` defaults true) is a row "as the stack would deploy it", judged on the nodes each declared pool
would get with the labels the operator would set there (``nvidia.com/gpu.deploy.device-plugin=true`` on each NVIDIA GPU
node without a value for it). Beside the cluster's own device plugin it is the mandatory ``whatif-two-device-plugins``;
a pool labelled ``nvidia.com/gpu.deploy.device-plugin: 'false'`` keeps it off. What cannot be modelled is not judged."""

from __future__ import annotations

from typing import Any

from audit_cluster import audit_stack, eks_node
from stack_texts import EKS_DEV

from gpu_node_pool.audit.declared import Declared, DeclaredPool
from gpu_node_pool.audit.report import run_audit
from gpu_node_pool.audit.snapshot import Snapshot
from gpu_node_pool.k8s.taints import Taint

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
PLUGIN_IMAGE = "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"
OPERATOR_PLUGIN = "gpu-operator/nvidia-device-plugin-daemonset"


def stack_yaml(inference_labels: str = "{example.com/team: ml-platform}") -> str:
    return EKS_DEV + f"""\
    - name: inference
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      amiType: AL2023_x86_64_NVIDIA
      scaling: {{minSize: 0, maxSize: 4}}
      taints: ["nvidia.com/gpu=present:NoSchedule"]
      labels: {inference_labels}
    - name: batch
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      amiType: AL2023_x86_64_NVIDIA
      scaling: {{minSize: 0, maxSize: 4}}
      taints: ["nvidia.com/gpu=present:NoSchedule"]
  gpu-node-pools:devicePlugin:
    provider: gpu-operator
"""


def cluster_plugin() -> dict[str, Any]:
    """The cluster's own NVIDIA device plugin (its static manifest, in kube-system)."""
    name = "nvidia-device-plugin-daemonset"
    spec = {"containers": [{"name": "ndp", "image": PLUGIN_IMAGE}],
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": "kube-system"},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}


def audit(tmp_path, stack: str) -> tuple[int, dict[str, Any], str]:
    """``gpupool audit --stack op`` of a cluster with one node of pool inference (none of pool batch) and the cluster's
    device plugin: exit code, ``--json`` report, text."""
    node = eks_node("gpu-1", pool="inference", nodegroup="inference", instance="g6.xlarge", gpus=1, taints=[GPU_TAINT])
    return audit_stack(tmp_path, [node, cluster_plugin()], "op", stack)


def two_plugins(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["pool"]: f for f in report["findings"] if f["code"] == "whatif-two-device-plugins"}


def test_the_operators_device_plugin_is_a_row_and_meets_the_clusters_plugin_on_live_and_new_nodes(tmp_path):
    code, report, text = audit(tmp_path, stack_yaml())
    assert f"  {OPERATOR_PLUGIN} (as the stack would deploy it)\n" in text
    assert "what-if pool inference as declared: runs on all 1 node(s)" in text
    found = two_plugins(report)
    assert set(found) == {"inference", "batch"}
    live, new = found["inference"], found["batch"]
    assert live["level"] == "mandatory"
    assert live["subject"] == f"DaemonSets kube-system/nvidia-device-plugin-daemonset and {OPERATOR_PLUGIN} (stack)"
    assert live["message"].startswith(
        "2 NVIDIA device plugins would run on gpu-1 with the taints and labels the stack declares for pool inference: "
        f"kube-system/nvidia-device-plugin-daemonset (the cluster's), {OPERATOR_PLUGIN} (the stack's)")
    assert live["fix"].startswith(
        "keep one device plugin per node: remove the cluster's kube-system/nvidia-device-plugin-daemonset "
        "(kubectl -n kube-system delete daemonset nvidia-device-plugin-daemonset), or keep the stack's GPU Operator's "
        f"{OPERATOR_PLUGIN} off pool inference's nodes (nvidia.com/gpu.deploy.device-plugin: 'false' in "
        "pools[0] 'inference'.labels of stack op")
    assert new["message"].startswith("2 NVIDIA device plugins would run on pool batch's new nodes")
    assert code == 1
    assert f"[mandatory] {live['subject']}: {live['message']} -> {live['fix']}" in text


def test_a_pool_labelled_to_keep_the_operators_plugin_off_gets_no_such_finding(tmp_path):
    labels = "{example.com/team: ml-platform, nvidia.com/gpu.deploy.device-plugin: 'false'}"
    _, report, text = audit(tmp_path, stack_yaml(labels))
    assert "inference" not in two_plugins(report)
    assert "what-if pool inference as declared: kept off" in text.split(f"  {OPERATOR_PLUGIN} (as the stack would deploy it)")[1]


def test_an_agent_the_audit_cannot_model_is_listed_as_not_judged():
    snapshot = Snapshot("dump")
    snapshot.add("Node", eks_node("gpu-1", pool="p", nodegroup="p", instance="g6.xlarge", gpus=1, taints=[GPU_TAINT]))
    pool = DeclaredPool(0, "p", "eks-managed", [Taint.parse("nvidia.com/gpu=present:NoSchedule")], {"gpu-node-pools/pool": "p"})
    why = "its values are not known offline (values.daemonsets.tolerations is unknown)"
    report = run_audit(snapshot, declared=Declared("s", [pool], [], unmodelled=[("GPU agent gpu-operator-chart", why)]))
    assert [(n.subject, n.reason) for n in report.not_judged if n.subject == "GPU agent gpu-operator-chart"] == [
        ("GPU agent gpu-operator-chart", why)]


def _chart(values: Any) -> Any:
    from gpu_node_pool.sdk.record import Resource

    return Resource("kubernetes:helm.sh/v4:Chart", "gpu-operator-chart",
                    {"chart": "gpu-operator", "namespace": "gpu-operator", "values": values})


def test_a_gpu_operator_chart_with_values_unknown_offline_is_unmodelled_not_skipped():
    from gpu_node_pool.audit.declared import _stack_agents
    from gpu_node_pool.k8s.wellknown import UNKNOWN
    from gpu_node_pool.policies.runner import policy_resources

    discovery, daemonsets, unmodelled = _stack_agents(policy_resources([_chart(UNKNOWN)]), "gpu-operator")
    assert daemonsets == []
    [(subject, why)] = unmodelled
    assert subject == "GPU agent kubernetes:helm.sh/v4:Chart gpu-operator-chart"
    assert why.startswith("its values are not known offline (")
    assert "a GPU Operator's device plugin among them" in why


def test_the_operators_plugin_tolerates_what_the_chart_values_say_and_selects_its_deploy_label():
    from gpu_node_pool.audit.declared import _stack_agents
    from gpu_node_pool.policies.runner import policy_resources

    tolerations = [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}]
    discovery, [ds], unmodelled = _stack_agents(
        policy_resources([_chart({"daemonsets": {"tolerations": tolerations}})]), "ops")
    assert unmodelled == [] and "the NVIDIA GPU Operator" in discovery
    assert (ds["metadata"]["namespace"], ds["metadata"]["name"]) == ("ops", "nvidia-device-plugin-daemonset")
    spec = ds["spec"]["template"]["spec"]
    assert spec["nodeSelector"] == {"nvidia.com/gpu.deploy.device-plugin": "true"}
    assert spec["tolerations"] == tolerations
    # devicePlugin.enabled: false (every pool's image runs its own plugin): the operator creates none
    assert _stack_agents(policy_resources([_chart({"devicePlugin": {"enabled": False}})]), "ops")[1] == []
