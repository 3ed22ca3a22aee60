"""The GPU Operator on Karpenter pools: an EC2NodeClass with ``amiAlias: al2023@...`` boots the EKS-optimized AL2023
NVIDIA AMI on GPU instances (aws/karpenter-provider-aws pkg/providers/amifamily/al2023.go@v1.14.1, the nvidia
variant), which ships the driver and the container toolkit, so the operator installs neither; an existing class
whose AMI the plan cannot see keeps them on."""

from __future__ import annotations

from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.gpu_agents.gpu_operator.values import operator_values
from gpu_node_pool.gpu_agents.pools import agent_pool

EKS = {"name": "ml", "nodeRoleArn": "arn:aws:iam::123456789012:role/n", "karpenterVersion": "1.14"}


def karpenter(name: str, **node_class) -> dict:
    return {"name": name, "backend": "karpenter", "instanceFamilies": ["g6"], "limits": {"nvidia.com/gpu": 8}, **node_class}


def enables(*pools: dict) -> dict[str, bool]:
    s = validate_stack_config({"cluster": EKS, "devicePlugin": {"provider": "gpu-operator"}, "pools": list(pools)})
    values = operator_values([agent_pool(p) for p in s.pools])
    return {k: values[k]["enabled"] for k in ("driver", "toolkit", "devicePlugin", "migManager")}


def test_an_al2023_alias_turns_driver_and_toolkit_off_and_keeps_the_plugin():
    expected = {"driver": False, "toolkit": False, "devicePlugin": True, "migManager": True}
    assert enables(karpenter("latest", nodeClass={"amiAlias": "al2023@latest"})) == expected
    assert enables(karpenter("pinned", nodeClass={"amiAlias": "al2023@v20250505"})) == expected
    assert enables(karpenter("default", nodeClass={})) == expected  # amiAlias defaults to al2023@latest


def test_al2023_beside_bottlerocket_still_needs_no_driver():
    got = enables(karpenter("al", nodeClass={"amiAlias": "al2023@latest"}),
                  karpenter("br", nodeClass={"name": "br", "amiAlias": "bottlerocket@latest"}))
    assert got == {"driver": False, "toolkit": False, "devicePlugin": True, "migManager": True}


def test_an_existing_al2023_class_is_not_known_so_the_operator_installs_the_driver():
    got = enables(karpenter("ref", nodeClassRef={"name": "custom-ami", "amiFamily": "AL2023"}))
    assert got["driver"] is True and got["toolkit"] is True
