"""A provider-aws self-managed pool's instance types are judged once per validation: each type that is no NVIDIA
GPU type is refused at its own item (``instanceTypes[i]``), and only when every type is one are the types'
architectures and GPU counts compared (one group runs one AMI; Cluster Autoscaler models a group as one node
shape)."""

from __future__ import annotations

import base64

from builders import config_error_text, config_issues

from gpu_node_pool.catalog import instances
from gpu_node_pool.config import validate_stack_config

CLUSTER = {
    "name": "ml-prod",
    "kubernetesVersion": "1.33",
    "nodeRoleArn": "arn:aws:iam::444455556666:role/ml-prod-gpu-node",
    "subnetIds": ["subnet-07a1c2e3f4a5b6c7d"],
    "apiServerEndpoint": "https://3F1A2B4C5D6E7F8091A2B3C4D5E6F708.gr7.us-east-1.eks.amazonaws.com",
    "certificateAuthority": base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n").decode(),
    "serviceCidr": "10.100.0.0/16",
}


def stack(*types: str) -> dict:
    pool = {"name": "batch", "backend": "self-managed", "format": "al2023", "instanceTypes": list(types),
            "scaling": {"minSize": 0, "maxSize": 6}, "securityGroupIds": ["sg-0a1b2c3d4e5f60718"],
            "taints": ["nvidia.com/gpu=present:NoSchedule"]}
    return {"cluster": CLUSTER, "pools": [pool]}


def test_the_instance_types_are_checked_once_per_validation(monkeypatch):
    calls = []
    checked = instances.nvidia_instance_problems_at
    monkeypatch.setattr(instances, "nvidia_instance_problems_at",
                        lambda values, **kw: calls.append(list(values)) or checked(values, **kw))
    validate_stack_config(stack("g6e.12xlarge"))
    assert calls == [["g6e.12xlarge"]]


def test_a_type_that_is_no_nvidia_gpu_type_is_said_at_its_item_and_the_counts_are_not_compared():
    issues = config_issues(stack("g6e.2xlarge", "inf2.xlarge"))
    assert [path for path, _ in issues] == ["pools[0].instanceTypes[1]"]
    assert "AWS Inferentia2 chips, not NVIDIA GPUs" in issues[0][1]
    assert "different GPU counts" not in config_error_text(stack("g6e.2xlarge", "inf2.xlarge"))


def test_nvidia_types_of_different_gpu_counts_are_refused():
    assert "have different GPU counts" in config_error_text(stack("g6e.2xlarge", "g6e.12xlarge"))
