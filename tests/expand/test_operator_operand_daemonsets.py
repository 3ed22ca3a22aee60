"""The GPU Operator's operand DaemonSets as the one builder makes them, against what NVIDIA/gpu-operator@v26.7.0
``assets/state-device-plugin/0500_daemonset.yaml`` writes (label ``app`` on the DaemonSet, its selector and its pod
template; ``nodeSelector`` ``nvidia.com/gpu.deploy.device-plugin: "true"``; ``priorityClassName: system-node-critical``;
tolerations ``nvidia.com/gpu`` ``Exists`` ``NoSchedule``; main container ``nvidia-device-plugin``), and what
``controllers/object_controls.go`` ``applyCommonDaemonsetConfig`` replaces from the ClusterPolicy's spec."""

from __future__ import annotations

from gpu_node_pool.expand.operator_resources import cluster_policy_daemonsets, expand_custom_resource

APP = {"app": "nvidia-device-plugin-daemonset"}
GPU = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def plugin(spec):
    (ds,) = [d for d in cluster_policy_daemonsets(spec, "gpu-operator", "ClusterPolicy cp")
             if d["metadata"]["name"] == "nvidia-device-plugin-daemonset"]
    return ds


def test_the_device_plugin_daemonset_is_the_assets():
    ds = plugin({})
    assert ds["metadata"]["labels"] == APP
    assert ds["metadata"]["namespace"] == "gpu-operator"
    assert ds["spec"]["selector"] == {"matchLabels": APP}
    assert ds["spec"]["template"]["metadata"]["labels"] == APP
    pod = ds["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"nvidia.com/gpu.deploy.device-plugin": "true"}
    assert pod["priorityClassName"] == "system-node-critical"
    assert pod["tolerations"] == GPU
    assert [(c["name"], c["image"]) for c in pod["containers"]] == [("nvidia-device-plugin", "nvcr.io/nvidia/k8s-device-plugin")]


def test_the_cluster_policys_daemonsets_settings_replace_the_assets():
    mine = [{"key": "gpu", "operator": "Exists"}]
    spec = {"daemonsets": {"tolerations": mine, "priorityClassName": "gpu-critical"},
            "devicePlugin": {"repository": "registry.example.com/nvidia", "image": "k8s-device-plugin", "version": "v0.20.0"}}
    pod = plugin(spec)["spec"]["template"]["spec"]
    assert pod["tolerations"] == mine
    assert pod["priorityClassName"] == "gpu-critical"
    assert pod["containers"][0]["image"] == "registry.example.com/nvidia/k8s-device-plugin:v0.20.0"
    empty = plugin({"daemonsets": {"tolerations": [], "priorityClassName": ""}})["spec"]["template"]["spec"]
    assert (empty["tolerations"], empty["priorityClassName"]) == (GPU, "system-node-critical")


def test_every_operand_selects_its_own_template_labels():
    for ds in cluster_policy_daemonsets({"nodeStatusExporter": {"enabled": True}}):
        labels = ds["spec"]["selector"]["matchLabels"]
        assert labels["app"] == ds["metadata"]["name"]
        assert ds["spec"]["template"]["metadata"]["labels"] == labels == ds["metadata"]["labels"]
        assert ds["spec"]["template"]["spec"]["priorityClassName"] == "system-node-critical"


def test_the_plans_expander_of_a_cluster_policy_builds_the_same_daemonset():
    cp = {"kind": "ClusterPolicy", "metadata": {"name": "cp"}, "spec": {"daemonsets": {"tolerations": GPU}}}
    outcome = expand_custom_resource("kubernetes:nvidia.com/v1:ClusterPolicy", cp, namespace="gpu-operator")
    assert [d for d in outcome.objects if d["metadata"]["name"] == "nvidia-device-plugin-daemonset"] == [plugin(cp["spec"])]
