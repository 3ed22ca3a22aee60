"""The once-per-cluster guard of the GPU agents is scoped to one Pulumi program run.

Each test is what a team writes: a plain ``pulumi.runtime.set_mocks`` (Pulumi's unit-testing
guide), then its components; pytest runs them one after the other in one process.
"""

from __future__ import annotations

import re

import pulumi
import pytest
from conftest import base

from gpu_node_pool.config import ConfigError, validate_stack_config
from gpu_node_pool.gpu_agents import (
    DcgmExporter,
    DcgmExporterArgs,
    GpuOperator,
    GpuOperatorArgs,
    NvidiaDevicePlugin,
    NvidiaDevicePluginArgs,
)
from gpu_node_pool.k8s.wellknown import POOL_LABEL_KEY

POOL = validate_stack_config(base()).pools[0]


class Mocks(pulumi.runtime.Mocks):
    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        return [args.name + "_id", dict(args.inputs)]

    def call(self, args: pulumi.runtime.MockCallArgs):
        return {}


def test_a_first_team_test_declares_the_device_plugin_for_cluster_ml():
    pulumi.runtime.set_mocks(Mocks(), preview=False)
    plugin = NvidiaDevicePlugin("nvidia-device-plugin", NvidiaDevicePluginArgs(cluster_name="ml", pools=[POOL]))
    assert plugin.tolerations


def test_a_second_team_test_declares_the_device_plugin_for_cluster_ml_too():
    pulumi.runtime.set_mocks(Mocks(), preview=False)
    plugin = NvidiaDevicePlugin("nvidia-device-plugin", NvidiaDevicePluginArgs(cluster_name="ml", pools=[POOL]))
    assert plugin.tolerations


def test_within_one_run_a_second_plugin_for_the_same_cluster_is_still_refused():
    pulumi.runtime.set_mocks(Mocks(), preview=False)
    NvidiaDevicePlugin("plugin-a", NvidiaDevicePluginArgs(cluster_name="ml", pools=[POOL]))
    with pytest.raises(ConfigError, match=r"devicePlugin: the NVIDIA device plugin is already declared for cluster 'ml' "
                                          r"\(as 'plugin-a'\)"):
        NvidiaDevicePlugin("plugin-b", NvidiaDevicePluginArgs(cluster_name="ml", pools=[POOL]))


def test_an_output_cluster_name_is_accepted_and_keys_the_guard_on_that_output():
    import pulumi_aws as aws

    pulumi.runtime.set_mocks(Mocks(), preview=False)
    cluster = aws.eks.Cluster("ml", name="ml", role_arn="arn:aws:iam::111122223333:role/eks",
                              vpc_config={"subnet_ids": ["subnet-0a1b2c3d4e5f60718"]})
    NvidiaDevicePlugin("plugin-a", NvidiaDevicePluginArgs(cluster_name=cluster.name, pools=[POOL]))
    with pytest.raises(ConfigError, match="already declared for this cluster_name Output"):
        NvidiaDevicePlugin("plugin-b", NvidiaDevicePluginArgs(cluster_name=cluster.name, pools=[POOL]))
    # the cluster resource keys the guard whatever the name is given as
    NvidiaDevicePlugin("plugin-c", NvidiaDevicePluginArgs(cluster_name=cluster.name, pools=[POOL], cluster=cluster))
    with pytest.raises(ConfigError, match="already declared for cluster 'ml'"):
        NvidiaDevicePlugin("plugin-d", NvidiaDevicePluginArgs(cluster_name=pulumi.Output.from_input("ml"),
                                                              pools=[POOL], cluster=cluster))


@pytest.mark.parametrize(("component", "args"), [
    (NvidiaDevicePlugin, NvidiaDevicePluginArgs),
    (GpuOperator, GpuOperatorArgs),
    (DcgmExporter, DcgmExporterArgs),
])
def test_the_code_examples_of_a_missing_cluster_name_run(component, args):
    import pulumi_aws as aws

    pulumi.runtime.set_mocks(Mocks(), preview=False)
    with pytest.raises(ConfigError) as exc:
        component("agent", args(cluster_name=None, pools=[POOL]))
    examples = re.findall(rf"\b{args.__name__}\(.*?\]\)", str(exc.value))
    assert len(examples) == 2, str(exc.value)
    eks_cluster = aws.eks.Cluster("ml-dev", name="ml-dev", role_arn="arn:aws:iam::111122223333:role/eks",
                                  vpc_config={"subnet_ids": ["subnet-0a1b2c3d4e5f60718"]})
    pool = type("Pool", (), {"spec": POOL})()  # what a GpuNodePool exposes
    for i, example in enumerate(examples):
        made = eval(example, {args.__name__: args, "eks_cluster": eks_cluster, "pool": pool})  # noqa: S307
        component(f"agent-{i}", made)


def test_one_device_plugin_given_the_pools_of_two_clusters_is_refused_naming_the_pool():
    # a chart installed into one cluster never runs on another cluster's nodes
    from gpu_node_pool import GpuNodePool, GpuNodePoolArgs

    pulumi.runtime.set_mocks(Mocks(), preview=False)
    cfg_a, cfg_b = base(), base()
    cfg_b["cluster"]["name"] = "ml-b"
    cfg_b["pools"][0]["name"] = "vision"
    a = GpuNodePool("inference", GpuNodePoolArgs(pool=cfg_a["pools"][0], cluster=cfg_a["cluster"]))
    b = GpuNodePool("vision", GpuNodePoolArgs(pool=cfg_b["pools"][0], cluster=cfg_b["cluster"]))
    with pytest.raises(ConfigError) as info:
        NvidiaDevicePlugin("plugin", NvidiaDevicePluginArgs(cluster_name="ml-dev", pools=[a.spec, b.spec]))
    text = str(info.value)
    assert "NvidiaDevicePlugin 'plugin'" in text and "pools[1]" in text
    assert "GpuNodePool 'vision'" in text and "cluster 'ml-b'" in text and "cluster 'ml-dev'" in text
    # one plugin per cluster, each with its own pools, is what works
    NvidiaDevicePlugin("plugin-a", NvidiaDevicePluginArgs(cluster_name="ml-dev", pools=[a.spec]))
    NvidiaDevicePlugin("plugin-b", NvidiaDevicePluginArgs(cluster_name="ml-b", pools=[b.spec]))


def _pool(name: str, cluster: object, pool_name: str = "burst", **extra: object):
    from gpu_node_pool import GpuNodePool, GpuNodePoolArgs

    pool = {"name": pool_name, "backend": "eks-managed", "instanceTypes": ["g6.xlarge"],
            "scaling": {"minSize": 0, "maxSize": 2}, **extra}
    return GpuNodePool(name, GpuNodePoolArgs(pool=pool, cluster=cluster))


def test_two_pools_of_one_name_in_one_cluster_are_refused_before_the_second_registers():
    cluster = dict(base()["cluster"])
    mocks = Mocks()
    pulumi.runtime.set_mocks(mocks, preview=False)
    _pool("burst-a", cluster)
    with pytest.raises(ConfigError) as err:
        _pool("burst-b", cluster, taints=["example.com/x=y:NoSchedule"])
    (issue,) = err.value.issues
    assert issue.path == "pool.name"
    assert issue.message.startswith(f"'burst' is already the pool of GpuNodePool 'burst-a' on cluster {cluster['name']!r}")
    assert "give this pool another name" in issue.message
    assert f"nodes' {POOL_LABEL_KEY} label" in issue.message  # the label the pool's nodes carry, named from wellknown


def test_one_pool_name_in_two_clusters_or_two_names_in_one_cluster_are_accepted():
    cluster = dict(base()["cluster"])
    pulumi.runtime.set_mocks(Mocks(), preview=False)
    _pool("burst-a", cluster)
    _pool("burst-other-cluster", {**cluster, "name": "ml-other"})
    _pool("batch", cluster, pool_name="batch")


MIG_POOL = {"name": "mig", "backend": "eks-managed", "instanceTypes": ["p5.48xlarge"], "scaling": {"minSize": 0, "maxSize": 2},
            "mig": {"strategy": "single", "profile": "1g.10gb"}}


def test_a_mig_pool_of_a_program_is_judged_by_the_agent_that_serves_it():
    # an AL2023 pool's MIG needs the GPU Operator's MIG manager: a GpuNodePool alone cannot know which agent serves
    # it, so the GPU Operator takes it and the standalone plugin, which partitions nothing, refuses it
    from gpu_node_pool import GpuNodePool, GpuNodePoolArgs

    cluster = dict(base()["cluster"])
    pulumi.runtime.set_mocks(Mocks(), preview=False)
    pool = GpuNodePool("mig", GpuNodePoolArgs(pool=MIG_POOL, cluster=cluster))
    with pytest.raises(ConfigError) as err:
        NvidiaDevicePlugin("plugin", NvidiaDevicePluginArgs(cluster_name=cluster["name"], pools=[pool.spec]))
    (issue,) = err.value.issues
    assert issue.path == "pools[0].mig" and issue.message.startswith("pool 'mig': nothing partitions this pool's GPUs")
    assert "serve the pool with GpuOperator" in issue.message
    operator = GpuOperator("operator", GpuOperatorArgs(cluster_name=cluster["name"], pools=[pool.spec]))
    assert operator.values["migManager"]["enabled"] is True



def test_a_programs_pool_warnings_read_its_limits_and_say_a_cluster_warning_once():
    from gpu_node_pool import GpuNodePool, GpuNodePoolArgs
    from gpu_node_pool.gpu_agents.once import run_warnings

    cluster = {**base()["cluster"], "kubernetesVersion": "1.29"}
    big = {"name": "big", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 600}}
    pulumi.runtime.set_mocks(Mocks(), preview=False)
    GpuNodePool("big", GpuNodePoolArgs(pool=big, cluster=cluster))
    GpuNodePool("raised", GpuNodePoolArgs(pool={**big, "name": "raised"}, cluster=cluster,
                                          limits={"eksNodesPerNodeGroup": 1000}))
    warned = [(name, w.path) for name, w in run_warnings()]
    assert ("big", "pool.scaling.maxSize") in warned  # above the published 450
    assert ("raised", "pool.scaling.maxSize") not in warned  # the account's quota was raised
    assert [p for _, p in warned].count("cluster.kubernetesVersion") == 1  # one cluster, said once


def test_a_karpenter_pools_sharing_warning_reaches_a_program():
    from gpu_node_pool import GpuNodePool, GpuNodePoolArgs
    from gpu_node_pool.gpu_agents.once import run_warnings

    pool = {"name": "k", "backend": "karpenter", "instanceFamilies": ["g6e"], "nodeClass": {}, "limits": {"nvidia.com/gpu": 8},
            "gpuSharing": {"strategy": "timeSlicing", "replicas": 4}}
    pulumi.runtime.set_mocks(Mocks(), preview=False)
    GpuNodePool("k", GpuNodePoolArgs(pool=pool, cluster=dict(base()["cluster"])))
    [(name, warning)] = [(n, w) for n, w in run_warnings() if w.path == "pool.gpuSharing"]
    assert name == "k" and "Karpenter counts nvidia.com/gpu from the instance's physical GPUs" in warning.message


def test_limits_that_are_no_limits_are_a_config_error():
    from gpu_node_pool import GpuNodePool, GpuNodePoolArgs

    pulumi.runtime.set_mocks(Mocks(), preview=False)
    with pytest.raises(ConfigError) as err:
        GpuNodePool("x", GpuNodePoolArgs(pool={**MIG_POOL, "name": "x", "mig": None}, cluster=dict(base()["cluster"]),
                                          limits={"eksNodesPerNodeGroup": "lots"}))
    assert err.value.issues[0].path == "limits.eksNodesPerNodeGroup"


def test_two_pools_of_one_name_on_one_output_cluster_name_are_refused():
    # the README's form: the cluster as a mapping whose name is the cluster resource's Output
    import pulumi_aws as aws

    from gpu_node_pool import GpuNodePool, GpuNodePoolArgs

    pulumi.runtime.set_mocks(Mocks(), preview=True)
    eks = aws.eks.Cluster("ml", name="ml", role_arn="arn:aws:iam::444455556666:role/ml-eks",
                          vpc_config={"subnet_ids": ["subnet-07a1c2e3f4a5b6c7d"]})
    cluster = {**base()["cluster"], "name": eks.name}
    pool = {"name": "other", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 2}}
    GpuNodePool("p3", GpuNodePoolArgs(cluster=cluster, pool=pool))
    with pytest.raises(ConfigError) as err:
        GpuNodePool("p4", GpuNodePoolArgs(cluster=cluster, pool=pool))
    assert "on the same cluster (its name is the same Output)" in err.value.issues[0].message
    # another cluster's Output name is another cluster: accepted
    other = aws.eks.Cluster("ml2", name="ml2", role_arn="arn:aws:iam::444455556666:role/ml-eks",
                            vpc_config={"subnet_ids": ["subnet-07a1c2e3f4a5b6c7d"]})
    GpuNodePool("p5", GpuNodePoolArgs(cluster={**cluster, "name": other.name}, pool=pool))
