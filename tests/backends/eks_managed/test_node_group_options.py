"""The eks-managed node group's resource options, as the engine receives them."""

from __future__ import annotations

import pulumi
from conftest import base
from pulumi.runtime.mocks import MockMonitor

from gpu_node_pool import GpuNodePool, GpuNodePoolArgs
from gpu_node_pool.config import validate_stack_config

IGNORED: dict[str, list[str]] = {}


class Mocks(pulumi.runtime.Mocks):
    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        return [args.name + "_id", dict(args.inputs)]

    def call(self, args: pulumi.runtime.MockCallArgs):
        return {}


class RecordingMonitor(MockMonitor):
    def RegisterResource(self, request):  # noqa: N802 - the gRPC method name
        IGNORED[request.name] = list(request.ignoreChanges)
        return super().RegisterResource(request)


@pulumi.runtime.test
def test_the_node_group_leaves_its_desired_size_to_the_cluster_autoscaler():
    IGNORED.clear()
    pulumi.runtime.set_mocks(Mocks(), preview=False, monitor=RecordingMonitor(Mocks()))
    stack = validate_stack_config(base())
    pool = GpuNodePool("inference", GpuNodePoolArgs(pool=stack.pools[0], cluster=stack.cluster))

    def check(_):
        # a refresh after Cluster Autoscaler scaled the group up must not set it back to minSize
        assert IGNORED["inference-node-group"] == ["scalingConfig.desiredSize"]

    return pool.node_group_arn.apply(check)
