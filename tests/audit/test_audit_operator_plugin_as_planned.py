"""The device plugin DaemonSet ``gpupool audit --stack`` judges for the stack's GPU Operator is the one the plan's
expander builds from the same ClusterPolicy (NVIDIA/gpu-operator@v26.7.0 ``assets/state-device-plugin/0500_daemonset.yaml``):
same selector, labels, node selection, tolerations, priority class and image; from the ``gpu-operator`` chart's values
(which the chart copies into the ClusterPolicy's spec) too."""

from __future__ import annotations

from gpu_node_pool.audit.declared import operator_plugin_daemonset
from gpu_node_pool.expand.operator_resources import expand_custom_resource
from gpu_node_pool.policies import StackResource
from gpu_node_pool.policies.runner import policy_resources

CP_TYPE = "kubernetes:nvidia.com/v1:ClusterPolicy"
SPEC = {"daemonsets": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
                       "priorityClassName": "gpu-critical"},
        "devicePlugin": {"enabled": True, "repository": "nvcr.io/nvidia", "image": "k8s-device-plugin", "version": "v0.20.0"}}


def planned(spec):
    cp = {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": {"name": "cluster-policy"}, "spec": spec}
    outcome = expand_custom_resource(CP_TYPE, cp, namespace="gpu-operator")
    (ds,) = [d for d in outcome.objects if d["metadata"]["name"] == "nvidia-device-plugin-daemonset"]
    return ds


def audited(*records):
    return operator_plugin_daemonset(policy_resources(records), "gpu-operator")


def test_the_audits_operator_plugin_is_the_plans():
    cp = StackResource(CP_TYPE, "cluster-policy", {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy",
                                                  "metadata": {"name": "cluster-policy"}, "spec": SPEC})
    ds = audited(cp)
    assert ds == planned(SPEC)
    assert ds["spec"]["template"]["spec"]["priorityClassName"] == "gpu-critical"
    assert ds["spec"]["selector"] == {"matchLabels": {"app": "nvidia-device-plugin-daemonset"}}


def test_from_the_charts_values_it_is_the_same_but_for_where_it_came_from():
    chart = StackResource("kubernetes:helm.sh/v3:Release", "gpu-operator", {"chart": "gpu-operator", "values": SPEC})
    ds = audited(chart)
    assert ds["metadata"].pop("annotations") == {"gpu-node-pools/synthesized-from": "ClusterPolicy of chart gpu-operator spec.devicePlugin"}
    expected = planned(SPEC)
    expected["metadata"].pop("annotations")
    assert ds == expected


def test_none_when_the_operator_runs_no_device_plugin():
    off = {**SPEC, "devicePlugin": {"enabled": False}}
    assert audited(StackResource(CP_TYPE, "cp", {"metadata": {"name": "cp"}, "spec": off})) is None
