"""The component under a user's own mocks, written as Pulumi's testing guide shows (no helper of ours).

Guide: https://www.pulumi.com/docs/using-pulumi/testing/unit/ (a ``pulumi.runtime.Mocks``
subclass whose ``new_resource`` returns the inputs as outputs, ``set_mocks``, then
``@pulumi.runtime.test`` functions over the resources' outputs).
"""

from __future__ import annotations

import pulumi
import pytest

REGISTERED: list[pulumi.runtime.MockResourceArgs] = []


class MyMocks(pulumi.runtime.Mocks):
    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        REGISTERED.append(args)
        return [args.name + "_id", args.inputs]

    def call(self, args: pulumi.runtime.MockCallArgs):
        return {}


pulumi.runtime.set_mocks(MyMocks(), preview=False)

from gpu_node_pool import GpuNodePool, GpuNodePoolArgs  # noqa: E402 - after set_mocks, as in the guide


@pytest.fixture(autouse=True)
def _user_mocks():
    # Other test modules install their own mocks; this one's are back before each test.
    REGISTERED.clear()
    pulumi.runtime.set_mocks(MyMocks(), preview=False)


CLUSTER = {
    "name": "ml-dev",
    "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-dev-gpu-node",
    "subnetIds": ["subnet-0a1b2c3d4e5f60718"],
}


def _pool(name: str) -> GpuNodePool:
    return GpuNodePool(
        name,
        GpuNodePoolArgs(
            cluster=CLUSTER,
            pool={
                "name": name,
                "backend": "eks-managed",
                "instanceTypes": ["g6.xlarge"],
                "scaling": {"minSize": 0, "maxSize": 4},
                "taints": ["nvidia.com/gpu=present:NoSchedule"],
            },
        ),
    )


def test_an_eks_managed_pool_scaling_from_zero_builds_under_mocks_that_return_inputs_as_outputs():
    built = {}

    @pulumi.runtime.test  # the SDK's decorator: returns once every registration has finished
    def program():
        built["pool"] = pool = _pool("vision")

        def check(args):
            name, taints = args
            assert name is None or isinstance(name, str)
            assert taints == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]

        return pulumi.Output.all(pool.node_group_name, pool.node_group.taints).apply(check)

    program()
    # The CA tags were registered at construction (not inside an apply), although the mocked
    # node group reports no Auto Scaling group: the ASG name input is simply absent (unknown).
    tags = {a.name: a.inputs for a in REGISTERED if a.typ == "aws:autoscaling/tag:Tag"}
    taint_tag = "vision-ca-k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu"
    assert set(tags) == {f"vision-ca-{key}" for key in built["pool"].asg_tags}
    assert taint_tag in tags
    assert tags[taint_tag]["tag"]["value"] == "present:NoSchedule"
    assert "autoscalingGroupName" not in tags[taint_tag]
    assert built["pool"].asg_tags["k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu"] == "present:NoSchedule"
