"""GpuNodePool and NvidiaDevicePlugin under Pulumi mocks: the exact inputs they register."""

from __future__ import annotations

import pulumi
import pytest
from conftest import base

from gpu_node_pool import GpuNodePool, GpuNodePoolArgs, NvidiaDevicePlugin, NvidiaDevicePluginArgs
from gpu_node_pool.config import ConfigError, validate_stack_config
from gpu_node_pool.plan import record

CA = "k8s.io/cluster-autoscaler/node-template/"


def declare(cfg: dict):
    def program():
        s = validate_stack_config(cfg)
        pools = [GpuNodePool(p.name, GpuNodePoolArgs(pool=p, cluster=s.cluster)) for p in s.pools]
        NvidiaDevicePlugin("nvidia-device-plugin", NvidiaDevicePluginArgs(s.cluster.name, [p.spec for p in pools]))

    resources, _ = record(program)
    return {(r.type, r.name): r.inputs for r in resources}


def test_node_group_gets_eks_taints_labels_and_scaling():
    res = declare(base())
    ng = res[("aws:eks/nodeGroup:NodeGroup", "inference-node-group")]
    assert ng["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]
    assert ng["labels"] == {
        "example.com/team": "ml",
        "gpu-node-pools/pool": "inference",
        "nvidia.com/gpu.present": "true",
    }
    assert ng["scalingConfig"] == {"minSize": 0, "maxSize": 4, "desiredSize": 0}
    assert ng["amiType"] == "AL2023_x86_64_NVIDIA"
    assert ng["clusterName"] == "ml-dev"


def test_scale_from_zero_tags_the_eks_asg_with_ca_node_templates():
    res = declare(base())
    tags = {v["tag"]["key"]: v["tag"]["value"] for (t, _), v in res.items() if t == "aws:autoscaling/tag:Tag"}
    assert tags == {
        CA + "label/example.com/team": "ml",
        CA + "label/gpu-node-pools/pool": "inference",
        CA + "label/nvidia.com/gpu.present": "true",
        # GPUs of the type from the catalog (kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/aws_manager.go: resources/ tags override the instance table)
        CA + "resources/nvidia.com/gpu": "1",
        CA + "taint/nvidia.com/gpu": "present:NoSchedule",
    }
    tag = res[("aws:autoscaling/tag:Tag", f"inference-ca-{CA}taint/nvidia.com/gpu")]
    assert tag["tag"]["propagateAtLaunch"] is False
    # The EKS-created ASG's name is only known after the node group exists.
    assert tag["autoscalingGroupName"] == "(known after apply)"


def test_no_asg_tags_when_the_pool_never_scales_to_zero():
    cfg = base()
    cfg["pools"][0]["scaling"] = {"minSize": 1, "maxSize": 4}
    res = declare(cfg)
    assert not [k for k in res if k[0] == "aws:autoscaling/tag:Tag"]


def test_device_plugin_chart_values_are_derived():
    cfg = base()
    cfg["pools"][0]["taints"] = ["nvidia.com/gpu=present:NoSchedule", "workload=training:NoSchedule"]
    res = declare(cfg)
    chart = res[("kubernetes:helm.sh/v4:Chart", "nvidia-device-plugin-chart")]
    assert chart["chart"] == "nvidia-device-plugin"
    assert chart["version"] == "0.20.0"
    assert chart["repositoryOpts"] == {"repo": "https://nvidia.github.io/k8s-device-plugin"}
    assert chart["namespace"] == "nvidia-device-plugin"
    assert chart["values"]["tolerations"] == [
        {"key": "CriticalAddonsOnly", "operator": "Exists"},
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "workload", "operator": "Exists", "effect": "NoSchedule"},
    ]
    assert chart["values"]["priorityClassName"] == "system-node-critical"
    ns = res[("kubernetes:core/v1:Namespace", "nvidia-device-plugin-namespace")]
    assert ns["metadata"] == {"name": "nvidia-device-plugin"}


def test_two_pools_share_one_chart():
    cfg = base()
    cfg["pools"].append(dict(cfg["pools"][0], name="training", instanceTypes=["p5.48xlarge"]))
    res = declare(cfg)
    assert [k for k in res if k[0] == "kubernetes:helm.sh/v4:Chart"] == [("kubernetes:helm.sh/v4:Chart", "nvidia-device-plugin-chart")]


def test_a_second_device_plugin_for_the_same_cluster_is_refused():
    def program():
        s = validate_stack_config(base())
        pool = GpuNodePool("inference", GpuNodePoolArgs(pool=s.pools[0], cluster=s.cluster))
        NvidiaDevicePlugin("plugin-a", NvidiaDevicePluginArgs("ml-dev", [pool.spec]))
        NvidiaDevicePlugin("plugin-b", NvidiaDevicePluginArgs("ml-dev", [pool.spec]))

    with pytest.raises(ConfigError, match="already declared for cluster 'ml-dev'"):
        record(program)


def test_args_from_mappings_are_validated_before_anything_is_registered():
    cfg = base()
    cfg["pools"][0]["taints"] = ["nvidia.com/gpu=present:NO_SCHEDULE"]

    def program():
        GpuNodePool("inference", GpuNodePoolArgs(pool=cfg["pools"][0], cluster=cfg["cluster"]))

    registered = []
    with pytest.raises(ConfigError) as exc:
        record(program, sink=registered)
    # the message names the component and the argument the team wrote (pool=...), not a stack path
    assert "in the GpuNodePool 'inference'" in str(exc.value)
    assert "pool.taints[0].effect: 'NO_SCHEDULE' is the EKS/GKE API spelling" in str(exc.value)
    assert "pools[0]" not in str(exc.value)
    assert registered == []


def test_an_invalid_stack_registers_nothing(temp_project):
    from gpu_node_pool.plan import load_stack_file, record_program

    project = temp_project(
        "bad",
        "config:\n  gpu-node-pools:cluster: {name: c}\n  gpu-node-pools:pools:\n"
        "    - {name: p, backend: eks-managed, instanceTypes: [g6.xlarge], scaling: {minSize: 2, maxSize: 1}}\n",
    )
    config, secrets, _ = load_stack_file(project, "bad")
    registered = []
    with pytest.raises(pulumi.RunError) as exc:
        record_program(project / "__main__.py", config, secrets, stack="bad", sink=registered)
    assert isinstance(exc.value.__cause__, ConfigError)
    assert registered == []


def test_a_valid_stack_registers_through_the_same_sink(temp_project):
    from gpu_node_pool.plan import load_stack_file, record_program

    project = temp_project(
        "good",
        "config:\n  gpu-node-pools:cluster: {name: c, nodeRoleArn: 'arn:aws:iam::111122223333:role/r', subnetIds: [subnet-0a1b2c3d4e5f60718]}\n"
        "  gpu-node-pools:pools:\n"
        "    - {name: p, backend: eks-managed, instanceTypes: [g6.xlarge], scaling: {minSize: 1, maxSize: 2}}\n",
    )
    config, secrets, _ = load_stack_file(project, "good")
    registered = []
    record_program(project / "__main__.py", config, secrets, stack="good", sink=registered)
    assert "aws:eks/nodeGroup:NodeGroup" in [r.type for r in registered]


def test_public_outputs_are_plain_values():
    s = validate_stack_config(base())
    captured = {}

    def program():
        captured["pool"] = GpuNodePool("inference", GpuNodePoolArgs(pool=s.pools[0], cluster=s.cluster))

    record(program)
    pool = captured["pool"]
    assert pool.taints == ["nvidia.com/gpu=present:NoSchedule"]
    assert pool.workload_tolerations == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
    ]
    assert pool.workload_node_selector["gpu-node-pools/pool"] == "inference"


def test_the_engine_keeps_each_pools_declared_taints_and_labels(monkeypatch):
    """What ``pulumi stack export`` shows as a GpuNodePool's outputs: its taints and labels; the derived
    attributes (tolerations, node selector, CA tags, names) stay readable in Python and as typed outputs."""
    from google.protobuf import json_format
    from pulumi.runtime.mocks import MockMonitor

    registered: dict[str, dict] = {}
    original = MockMonitor.RegisterResourceOutputs

    def keep(self, request):
        registered[request.urn] = json_format.MessageToDict(request.outputs)
        return original(self, request)

    monkeypatch.setattr(MockMonitor, "RegisterResourceOutputs", keep)
    built = {}

    def program():
        s = validate_stack_config(base())
        built["pool"] = GpuNodePool(s.pools[0].name, GpuNodePoolArgs(pool=s.pools[0], cluster=s.cluster))

    record(program)
    (outputs,) = [v for urn, v in registered.items() if urn.endswith("::inference")]
    assert outputs == {
        "taints": ["nvidia.com/gpu=present:NoSchedule"],
        "labels": {"example.com/team": "ml", "gpu-node-pools/pool": "inference", "nvidia.com/gpu.present": "true"},
    }
    pool = built["pool"]
    assert pool.workload_node_selector == outputs["labels"]
    assert pool.asg_tags[CA + "taint/nvidia.com/gpu"] == "present:NoSchedule"
