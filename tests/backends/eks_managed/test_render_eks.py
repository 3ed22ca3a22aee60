"""render/eks.py and render/device_plugin.py: pure renderers and their readers, no mocks."""

from __future__ import annotations

from conftest import base

from gpu_node_pool.backends._shared import cluster_autoscaler as ca
from gpu_node_pool.backends.eks_managed import read as eks_read
from gpu_node_pool.backends.eks_managed import render as eks_render
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.gpu_agents.device_plugin import values as dp
from gpu_node_pool.k8s.taints import Taint, TaintEffect, tolerations_tolerate_taint


def stack(**pool_changes):
    cfg = base()
    cfg["pools"][0].update(pool_changes)
    return validate_stack_config(cfg)


def test_node_group_taints_use_the_eks_spelling():
    s = stack(taints=["nvidia.com/gpu=present:NoSchedule", "workload=training:NoExecute"])
    args = eks_render.node_group_args(s.pools[0], s.cluster)
    assert args["taints"] == [
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"},
        {"key": "workload", "value": "training", "effect": "NO_EXECUTE"},
    ]
    assert eks_read.read_node_group_taints({"taints": args["taints"]}) == s.pools[0].taint_list


def test_node_group_args_carry_scaling_role_subnets_and_sorted_labels():
    s = stack(scaling={"minSize": 0, "maxSize": 4}, updateConfig={"maxUnavailablePercentage": 25})
    args = eks_render.node_group_args(s.pools[0], s.cluster)
    assert args["scaling_config"] == {"min_size": 0, "max_size": 4, "desired_size": 0}
    assert args["node_role_arn"] == "arn:aws:iam::111122223333:role/ml-dev-gpu-node"
    assert args["subnet_ids"] == ["subnet-0a1b2c3d4e5f60718"]
    assert args["ami_type"] == "AL2023_x86_64_NVIDIA"
    assert args["update_config"] == {"max_unavailable_percentage": 25}
    assert list(args["labels"]) == sorted(args["labels"])


def test_ca_tags_use_the_kubernetes_spelling_value_colon_effect():
    taints = [Taint("nvidia.com/gpu", "present", TaintEffect.NO_SCHEDULE), Taint("dedicated", "", TaintEffect.NO_EXECUTE)]
    tags = ca.ca_node_template_tags(taints, {"nvidia.com/gpu.present": "true"})
    assert tags == {
        "k8s.io/cluster-autoscaler/node-template/label/nvidia.com/gpu.present": "true",
        "k8s.io/cluster-autoscaler/node-template/taint/dedicated": ":NoExecute",
        "k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu": "present:NoSchedule",
    }
    read_taints, read_labels = ca.read_ca_node_template_tags(tags | {"team": "ml"})
    assert sorted(read_taints) == sorted(taints)
    assert read_labels == {"nvidia.com/gpu.present": "true"}


def test_device_plugin_tolerations_are_critical_addons_plus_one_per_distinct_taint():
    cfg = base()
    cfg["pools"][0]["taints"] = ["nvidia.com/gpu=present:NoSchedule", "workload=training:NoSchedule"]
    second = dict(cfg["pools"][0], name="inference", taints=["nvidia.com/gpu=true:NoSchedule"])
    cfg["pools"][0]["name"] = "training"
    cfg["pools"].append(second)
    s = validate_stack_config(cfg)
    values = dp.chart_values(s.pools, s.device_plugin)
    assert values["tolerations"] == [
        {"key": "CriticalAddonsOnly", "operator": "Exists"},
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "workload", "operator": "Exists", "effect": "NoSchedule"},
    ]
    assert values["affinity"] == {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "nvidia.com/gpu.present", "operator": "In", "values": ["true"]},
                            {"key": "gpu-node-pools/pool", "operator": "In", "values": ["inference", "training"]},
                        ]
                    }
                ]
            }
        }
    }
    assert values["priorityClassName"] == "system-node-critical"
    tolerations = dp.chart_tolerations(values)
    assert all(tolerations_tolerate_taint(tolerations, t) for p in s.pools for t in p.taint_list)
    assert all(c.tolerated for c in dp.coverage(values, s.pools))


def test_device_plugin_stays_unprivileged_and_pins_the_image():
    s = stack()
    values = dp.chart_values(s.pools, s.device_plugin)
    assert values["securityContext"] == {"allowPrivilegeEscalation": False, "privileged": False, "capabilities": {"drop": ["ALL"]}}
    assert values["image"] == {"repository": "nvcr.io/nvidia/k8s-device-plugin", "tag": "v0.20.0"}


def test_bottlerocket_pools_ship_their_own_plugin_and_are_not_served():
    s = stack(amiType="BOTTLEROCKET_x86_64_NVIDIA")
    assert not s.pools[0].uses_nvidia_device_plugin
    values = dp.chart_values(s.pools, s.device_plugin)
    assert values["tolerations"] == [{"key": "CriticalAddonsOnly", "operator": "Exists"}]
    assert dp.coverage(values, s.pools) == []


def test_release_version_pins_the_ami_release_on_the_node_group():
    # EKS API CreateNodegroup releaseVersion (AL2023: <Kubernetes version>-<date>)
    from builders import config_errors

    s = stack(releaseVersion="1.33.0-20250610")
    assert eks_render.node_group_args(s.pools[0], s.cluster)["release_version"] == "1.33.0-20250610"
    s = stack()
    assert "release_version" not in eks_render.node_group_args(s.pools[0], s.cluster)
    cfg = base()
    cfg["pools"][0]["releaseVersion"] = "latest"
    (err,) = config_errors(cfg)
    assert "pools[0].releaseVersion" in err and "'latest'" in err
