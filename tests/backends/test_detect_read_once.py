"""A node group or launch template read once per resource (kept in the runner's per-resource cache) still
gives every caller its own pool: what the stack's detection adds (registration taints of a node group's
launch template, its Auto Scaling groups) never reaches the pool a resource policy reads, in either order."""

from __future__ import annotations

import base64

from gpu_node_pool.policies.pools import find_gpu_pools, gpu_pool_of
from gpu_node_pool.policies.runner import StackResource, policy_resources

NODEADM = """MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="B"

--B
Content-Type: application/node.eks.aws

apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  kubelet:
    flags:
      - --register-with-taints=hidden=x:NoSchedule
--B--
"""


def _stack() -> list:
    user_data = base64.b64encode(NODEADM.encode()).decode()
    return policy_resources([
        StackResource("aws:ec2/launchTemplate:LaunchTemplate", "lt", {"name": "gpu-lt", "userData": user_data},
                      urn="urn:lt"),
        StackResource("aws:eks/nodeGroup:NodeGroup", "ng", {
            "amiType": "AL2023_x86_64_NVIDIA", "instanceTypes": ["g6.xlarge"], "nodeGroupName": "ng",
            "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}],
            "launchTemplate": {"name": "gpu-lt", "version": "1"}, "scalingConfig": {"minSize": 0}}, urn="urn:ng"),
    ])


def _taints(pool) -> list[str]:
    return [str(t) for t in pool.taints]


def test_the_stack_detection_adds_to_its_own_pools_only_whichever_reads_first():
    for stack_first in (True, False):
        resources = _stack()
        ng = resources[1]

        def alone(ng=ng):
            return gpu_pool_of(ng.resource_type, ng.props, ng.name, ng.urn)

        first = alone() if not stack_first else None
        pools = {p.name: p for p in find_gpu_pools(resources)}
        assert _taints(pools["ng"]) == ["nvidia.com/gpu=present:NoSchedule", "hidden=x:NoSchedule"]
        assert "hidden_registration_taints" in pools["ng"].extra
        for pool in (first, alone()) if first is not None else (alone(),):
            assert _taints(pool) == ["nvidia.com/gpu=present:NoSchedule"] and "hidden_registration_taints" not in pool.extra
            assert pool.labels == {"eks.amazonaws.com/nodegroup": "ng"} and pool.name == "ng" and pool.urn == "urn:ng"
        again = {p.name: p for p in find_gpu_pools(resources)}["ng"]  # found again: added to once, not twice
        assert _taints(again) == _taints(pools["ng"]) and again is not pools["ng"]
