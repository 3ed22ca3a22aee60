"""Self-managed ``format: bottlerocket`` with ``gpuSharing``: the node's TOML carries Bottlerocket's own sharing
settings beside the component's ``[settings.kubernetes]``, so the node advertises the GPUs x replicas the plan and the
Cluster Autoscaler tags promise; on an image of the user's (``amiId``) the plugin's settings are not known: refused."""

from __future__ import annotations

import base64
import tomllib

import pytest
from builders import config_issues

from gpu_node_pool.backends.self_managed.render import bootstrap_files
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.gpu_agents.capacity import autoscaler_resources

PEM = b"-----BEGIN CERTIFICATE-----\nMIIBdummyCAfortests\n-----END CERTIFICATE-----\n"
CLUSTER = {"name": "ml-sm", "apiServerEndpoint": "https://ABC.gr7.us-east-1.eks.amazonaws.com", "kubernetesVersion": "1.33",
           "certificateAuthority": base64.b64encode(PEM).decode(), "serviceCidr": "10.100.0.0/16",
           "nodeRoleArn": "arn:aws:iam::444455556666:role/ml-sm-gpu-node", "subnetIds": ["subnet-07a1c2e3f4a5b6c7d"]}
POOL = {"name": "batch", "backend": "self-managed", "format": "bottlerocket", "provider": "aws",
        "instanceTypes": ["g6e.12xlarge"], "scaling": {"minSize": 0, "maxSize": 4},
        "securityGroupIds": ["sg-0a1b2c3d4e5f60718"], "taints": ["nvidia.com/gpu=present:NoSchedule"]}


@pytest.mark.parametrize(("strategy", "table"), [
    ("timeSlicing", {"time-slicing": {"replicas": 2, "rename-by-default": False, "fail-requests-greater-than-one": False}}),
    ("mps", {"mps": {"replicas": 2, "rename-by-default": False}}),
])
def test_the_bootstrap_toml_carries_bottlerocket_s_sharing_settings(strategy, table):
    stack = validate_stack_config({"cluster": CLUSTER, "pools": [POOL | {"gpuSharing": {"strategy": strategy, "replicas": 2}}]})
    (pool,) = stack.pools
    settings = tomllib.loads(bootstrap_files(pool, stack.cluster)["user-data.toml"])["settings"]
    name = next(iter(table))
    assert settings["kubelet-device-plugins"] == {"nvidia": {"device-sharing-strategy": name} | table}
    assert settings["kubernetes"]["cluster-name"] == "ml-sm"  # the component's own registration stays
    assert settings["kubernetes"]["node-taints"] == {"nvidia.com/gpu": ["present:NoSchedule"]}
    # g6e.12xlarge carries 4 L40S: 4 x 2 replicas of nvidia.com/gpu (not renamed nvidia.com/gpu.shared)
    assert autoscaler_resources(pool) == {"nvidia.com/gpu": 8}


def test_an_image_of_the_user_s_is_refused_as_its_plugin_settings_are_not_known():
    pool = POOL | {"amiId": "ami-0123456789abcdef0", "gpuSharing": {"strategy": "timeSlicing", "replicas": 2}}
    messages = dict(config_issues({"cluster": CLUSTER, "pools": [pool]}))
    message = messages["pools[0].gpuSharing"]
    assert "not known to be a Bottlerocket NVIDIA image" in message
    assert "bottlerocket.dev/en/os/1.54.x/api/settings/kubelet-device-plugins" in message
    assert message.endswith("use an AL2023 NVIDIA image or remove gpuSharing")


@pytest.mark.parametrize("gpus", [
    {"gpuSharing": {"strategy": "mps", "replicas": 2}},  # MPS needs Bottlerocket 1.54.0 where a release is pinned
    {"gpuSharing": {"strategy": "timeSlicing", "replicas": 2}},
    {"instanceTypes": ["p4d.24xlarge"], "mig": {"strategy": "single", "profile": "1g.5gb"}},
], ids=["mps", "timeSlicing", "mig"])
def test_a_bottlerocket_pool_that_pins_no_release_is_never_refused_by_a_release_rule(gpus):
    # format bottlerocket takes the latest Bottlerocket NVIDIA AMI from SSM: no release to be older than a setting
    stack = validate_stack_config({"cluster": CLUSTER, "pools": [POOL | gpus]})  # a refusal raises ConfigError
    (pool,) = stack.pools
    settings = tomllib.loads(bootstrap_files(pool, stack.cluster)["user-data.toml"])["settings"]
    assert "kubelet-device-plugins" in settings  # the settings a pinned old release would refuse are written
