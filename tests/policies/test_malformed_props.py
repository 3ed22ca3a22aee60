"""Malformed and unknown props never crash a policy: every policy of the pack on broken resources,
and on unknown values, which yield only "can't run" notes (advisory) or verdicts."""

from __future__ import annotations

import pytest
from builders import (
    EXISTS_GPU,
    node_group,
    plugin,
)
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE as UNKNOWN

from gpu_node_pool.policies import POLICIES, StackResource, evaluate

MALFORMED = [
    StackResource("kubernetes:apps/v1:DaemonSet", "no-spec", {"metadata": {"name": "x"}}),
    StackResource("kubernetes:apps/v1:DaemonSet", "null-tolerations", {"spec": {"template": {"spec": {"tolerations": None}}}}),
    StackResource("kubernetes:apps/v1:DaemonSet", "bad-tolerations", {"spec": {"template": {"spec": {
        "tolerations": ["x", {"operator": "Sometimes"}, {"key": "a", "tolerationSeconds": "soon", "effect": "NoSchedule"}],
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [None, {}]}}},
        "nodeSelector": ["not", "a", "map"], "containers": None}}}}),
    StackResource("kubernetes:apps/v1:Deployment", "spec-none", {"spec": None, "metadata": None}),
    StackResource("kubernetes:batch/v1:Job", "containers-junk", {"spec": {"template": {"spec": {"containers": [None, 3, {"resources": "x"}]}}}}),
    StackResource("kubernetes:batch/v1:CronJob", "cron", {"spec": {"jobTemplate": None}}),
    StackResource("kubernetes:core/v1:Pod", "pod", {}),
    StackResource("aws:eks/nodeGroup:NodeGroup", "ng-none", {"amiType": None, "instanceTypes": None, "taints": None}),
    StackResource("aws:eks/nodeGroup:NodeGroup", "ng-junk", {"amiType": "AL2023_x86_64_NVIDIA", "taints": [None, "x"], "labels": "x",
                                                            "scalingConfig": {"minSize": "zero"}}),
    StackResource("gcp:container/nodePool:NodePool", "np", {"nodeConfig": {"guestAccelerators": [{"type": None}], "taints": None}}),
    StackResource("kubernetes:karpenter.sh/v1:NodePool", "kp", {"spec": {"limits": {"nvidia.com/gpu": 1}, "template": None}}),
    StackResource("aws:ec2/launchTemplate:LaunchTemplate", "lt", {"instanceType": "g6.xlarge", "userData": 42}),
    StackResource("aws:autoscaling/group:Group", "asg", {"minSize": 0, "tags": None, "mixedInstancesPolicy": {"launchTemplate": None}}),
    StackResource("aws:autoscaling/tag:Tag", "tag", {"tag": None}),
    StackResource("command:local:Command", "cmd", {"create": None, "update": 3}),
    StackResource("kubernetes:core/v1:NodePatch", "np", {"spec": {"taints": [None, {"effect": "Bogus"}]}}),
    StackResource("kubernetes:helm.sh/v3:Release", "rel", {"chart": "nvidia-device-plugin", "values": None}),
]

UNKNOWNS = [
    StackResource("kubernetes:apps/v1:DaemonSet", "unknown-spec", {"metadata": {"name": "u"}, "spec": UNKNOWN}),
    StackResource("kubernetes:apps/v1:DaemonSet", "unknown-ns", {"metadata": {"namespace": UNKNOWN}, "spec": {"template": {"spec": {}}}}),
    StackResource("kubernetes:batch/v1:Job", "unknown-limit", {"spec": {"template": {"spec": {"containers": [
        {"resources": {"limits": {"nvidia.com/gpu": UNKNOWN}}}]}}}}),
    StackResource("aws:eks/nodeGroup:NodeGroup", "unknown-ami", {"amiType": UNKNOWN, "taints": UNKNOWN}),
    StackResource("gcp:container/nodePool:NodePool", "unknown-config", {"nodeConfig": UNKNOWN}),
    StackResource("aws:ec2/launchTemplate:LaunchTemplate", "unknown-ud", {"instanceType": "g6.xlarge", "userData": UNKNOWN}),
    StackResource("command:remote:Command", "unknown-cmd", {"create": UNKNOWN}),
    StackResource("kubernetes:helm.sh/v4:Chart", "unknown-values", {"chart": "nvidia-device-plugin", "values": UNKNOWN}),
]


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.name)
def test_malformed_props_never_raise(policy):
    for resource in MALFORMED:
        evaluate([resource], policies=[policy])
    evaluate(MALFORMED + [node_group(), plugin([EXISTS_GPU])], policies=[policy])


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.name)
def test_unknown_values_never_raise_and_only_yield_cant_run_notes_or_verdicts(policy):
    for resource in UNKNOWNS:
        for finding in evaluate([resource, node_group(min_size=2)], policies=[policy]):
            assert finding["policy"] == policy.name
    notes = [f for f in evaluate(UNKNOWNS + [node_group()], policies=[policy]) if "can't run" in f["message"]]
    assert all(f["enforcement"] == "advisory" for f in notes)
