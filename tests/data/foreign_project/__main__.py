"""A platform team's program: a hand-written GPU node group, a logging DaemonSet, a chart, a YAML
component, and GpuNodePool.

Used by tests/plan/test_check.py: none of it uses this project's stack config keys. ``agentChart``
(default: the local ``charts/node-agent``) and ``agentChartRepo`` let a test point the chart elsewhere.
"""

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from gpu_node_pool import GpuNodePool, GpuNodePoolArgs, NvidiaDevicePlugin, NvidiaDevicePluginArgs

config = pulumi.Config()
cluster_name = config.require("clusterName")
role_arn = config.require("nodeRoleArn")
subnet_ids = config.require_object("subnetIds")

# Hand-written: a GPU node group tainted for GPU work, outside the component.
aws.eks.NodeGroup(
    "training-gpu",
    cluster_name=cluster_name,
    node_role_arn=role_arn,
    subnet_ids=subnet_ids,
    instance_types=["p4d.24xlarge"],
    ami_type="AL2023_x86_64_NVIDIA",
    scaling_config={"min_size": 1, "max_size": 2, "desired_size": 1},
    taints=[{"key": "dedicated", "value": "training", "effect": "NO_SCHEDULE"}],
    labels={"team": "research"},
)

# A node agent that must run on every node, GPU nodes included, but tolerates nothing.
k8s.apps.v1.DaemonSet(
    "fluent-bit",
    metadata={"name": "fluent-bit", "namespace": "logging"},
    spec={
        "selector": {"matchLabels": {"app": "fluent-bit"}},
        "template": {
            "metadata": {"labels": {"app": "fluent-bit"}},
            "spec": {"containers": [{"name": "fluent-bit", "image": "cr.fluentbit.io/fluent/fluent-bit:3.1"}]},
        },
    },
)

# A team chart (local path, relative to the project) whose DaemonSet tolerates nothing.
agent_repo = config.get("agentChartRepo")
k8s.helm.v4.Chart(
    "node-agent",
    chart=config.get("agentChart") or "charts/node-agent",
    version=config.get("agentChartVersion"),
    namespace="logging",
    repository_opts={"repo": agent_repo} if agent_repo else None,
)

# Plain YAML applied as a v2 ConfigGroup: a DaemonSet with no tolerations either.
k8s.yaml.v2.ConfigGroup("node-exporter", files=["manifests/node-exporter.yaml"])

# Our component, fed from this program's own config.
inference = GpuNodePool(
    "inference",
    GpuNodePoolArgs(
        cluster={"name": cluster_name, "nodeRoleArn": role_arn, "subnetIds": subnet_ids},
        pool={
            "name": "inference",
            "backend": "eks-managed",
            "instanceTypes": ["g6.xlarge"],
            "scaling": {"minSize": 0, "maxSize": 4},
            "taints": ["nvidia.com/gpu=present:NoSchedule"],
        },
    ),
)
NvidiaDevicePlugin("nvidia-device-plugin", NvidiaDevicePluginArgs(cluster_name, [inference.spec]))
