"""Policy scale-from-zero-hints: a pool that can scale from zero carries Cluster Autoscaler node-template
tags matching its labels and taints (for a self-managed group, its launch template's registration)."""

from __future__ import annotations

from builders import (
    GPU,
    node_group,
    nodeadm_launch_template,
    run,
)

from gpu_node_pool.policies import StackResource
from gpu_node_pool.policies import rules as d


def ca_tags(pool, tags):
    return [
        StackResource("aws:autoscaling/tag:Tag", f"tag-{i}", {"autoscalingGroupName": "(known after apply)",
                      "tag": {"key": k, "value": v, "propagateAtLaunch": False}}, dependencies=[pool.urn])
        for i, (k, v) in enumerate(tags.items())
    ]


CA = "k8s.io/cluster-autoscaler/node-template/"


def test_matching_node_template_tags_pass_and_mismatches_are_named():
    pool = node_group(min_size=0)
    good = {CA + "label/nvidia.com/gpu.present": "true", CA + "taint/nvidia.com/gpu": "present:NoSchedule"}
    assert run(d.scale_from_zero_hints.POLICY, [pool, *ca_tags(pool, good)]) == []
    wrong = {CA + "label/nvidia.com/gpu.present": "true", CA + "taint/nvidia.com/gpu": "present:NoExecute"}
    (found,) = run(d.scale_from_zero_hints.POLICY, [pool, *ca_tags(pool, wrong)])
    assert "missing nvidia.com/gpu=present:NoSchedule" in found["message"] and found["enforcement"] == "advisory"
    (none,) = run(d.scale_from_zero_hints.POLICY, [pool])
    assert "no Cluster Autoscaler node-template tags" in none["message"]


def test_pools_that_do_not_scale_from_zero_need_no_tags():
    assert run(d.scale_from_zero_hints.POLICY, [node_group(min_size=1)]) == []


def test_a_self_managed_group_is_compared_with_its_launch_template_registration():
    lt = nodeadm_launch_template(taints=(GPU,), instance_type=None)
    del lt.inputs["instanceType"]
    asg = StackResource("aws:autoscaling/group:Group", "asg", {
        "minSize": 0, "maxSize": 2,
        "mixedInstancesPolicy": {"launchTemplate": {"overrides": [{"instanceType": "g6e.2xlarge"}]}},
        "tags": [{"key": CA + "taint/nvidia.com/gpu", "value": "present:NoExecute", "propagateAtLaunch": False}]},
        dependencies=[lt.urn])
    (found,) = run(d.scale_from_zero_hints.POLICY, [lt, asg])
    assert "self-managed" in found["message"]
    assert "missing nvidia.com/gpu=present:NoSchedule, not on the nodes nvidia.com/gpu=present:NoExecute" in found["message"]
    (untainted,) = run(d.gpu_pool_declares_taint.POLICY, [nodeadm_launch_template()])
    assert "self-managed" in untainted["message"]
