"""A mixed Bottlerocket + AL2023 stack with the GPU Operator: the operator's device plugin, as the real chart's
ClusterPolicy makes the operator create it, does not select the Bottlerocket pool's nodes (they run their own)
and does select the AL2023 pool's. `helm template` of ../shared/charts/gpu-operator; skipped with the reason
without helm or the chart."""

from __future__ import annotations

from test_gpu_operator import cluster_policy, render, stack, values_of

from gpu_node_pool.expand.operator_resources import cluster_policy_daemonsets
from gpu_node_pool.k8s.discovery import GPU_OPERATOR, NFD
from gpu_node_pool.k8s.selection import NodeLabels
from gpu_node_pool.k8s.taints import Toleration
from gpu_node_pool.policies.placement import place_on
from gpu_node_pool.policies.workloads import NodeSelection

POOLS = [
    {"name": "al", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 2}},
    {"name": "br", "backend": "eks-managed", "amiType": "BOTTLEROCKET_x86_64_NVIDIA", "instanceTypes": ["g6.xlarge"],
     "scaling": {"minSize": 0, "maxSize": 2}},
]


def operand(spec, name):
    (ds,) = [d for d in cluster_policy_daemonsets(spec) if d["metadata"]["name"] == name]
    return ds["spec"]["template"]["spec"]


def verdict(pod_spec, pool):
    tolerations = [Toleration.from_k8s(t) for t in pod_spec["tolerations"]]
    node = NodeLabels(pool.node_labels, name=pool.name)
    return place_on(tolerations, NodeSelection.of(pod_spec), pool.taint_list, [node], discovered=(GPU_OPERATOR, NFD))


def test_the_operators_plugin_stays_off_bottlerocket_and_serves_al2023(tmp_path):
    s = stack(POOLS)
    spec = cluster_policy(render(values_of(s), tmp_path))
    assert spec["devicePlugin"]["enabled"] is True  # one AL2023 pool needs it, so the operator runs it
    al, br = s.pools
    assert br.node_labels["nvidia.com/gpu.deploy.device-plugin"] == "false"
    assert "nvidia.com/gpu.deploy.device-plugin" not in al.node_labels
    plugin = operand(spec, "nvidia-device-plugin-daemonset")
    kept = verdict(plugin, br)
    assert kept.status == "keptOff" and kept.excluded == (("br", ("nvidia.com/gpu.deploy.device-plugin",)),)
    runs = verdict(plugin, al)
    assert runs.status == "runs" and runs.after == (GPU_OPERATOR,)
    # the operands Bottlerocket ships stay off it too; the validator still runs there
    for name in ("nvidia-mig-manager",):
        assert verdict(operand(spec, name), br).status == "keptOff"
    assert verdict(operand(spec, "nvidia-operator-validator"), br).status == "runs"


def test_without_the_operator_installed_its_labels_are_not_assumed(tmp_path):
    s = stack(POOLS)
    plugin = operand(cluster_policy(render(values_of(s), tmp_path)), "nvidia-device-plugin-daemonset")
    al = s.pools[0]
    tolerations = [Toleration.from_k8s(t) for t in plugin["tolerations"]]
    placed = place_on(tolerations, NodeSelection.of(plugin), al.taint_list, [NodeLabels(al.node_labels, name="al")])
    assert placed.status == "notJudged"
    assert "nvidia.com/gpu.deploy.device-plugin, a label that appears only once the NVIDIA GPU Operator runs" in placed.describe()



def test_the_pack_finds_no_conflict_on_a_labelled_bottlerocket_pool_next_to_the_operator():
    from builders import node_group, run

    from gpu_node_pool.policies import StackResource
    from gpu_node_pool.policies import rules as d

    operator = StackResource("kubernetes:helm.sh/v4:Chart", "gpu-operator", {"chart": "gpu-operator", "namespace": "gpu-operator",
                             "values": {"driver": {"enabled": False}}})
    bottlerocket = node_group(ami="BOTTLEROCKET_x86_64_NVIDIA", labels={
        "nvidia.com/gpu.present": "true", "nvidia.com/gpu.deploy.device-plugin": "false"})
    assert run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(), operator]) == []
    assert run(d.device_plugin_covers_gpu_pools.POLICY, [bottlerocket, operator]) == []
