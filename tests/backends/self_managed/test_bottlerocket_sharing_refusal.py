"""Self-managed ``format: bottlerocket`` with ``gpuSharing``: refused, and the refusal says what Bottlerocket has
(time-slicing and MPS settings under settings.kubelet-device-plugins.nvidia, bottlerocket.dev 1.54.x) and that
this component does not write them yet, instead of implying Bottlerocket shares no GPU."""

from __future__ import annotations

import pytest
from builders import config_issues

CLUSTER = {"name": "ml-sm", "apiServerEndpoint": "https://ABC.gr7.us-east-1.eks.amazonaws.com",
           "certificateAuthority": "LS0tLS1CRUdJTg==", "serviceCidr": "10.100.0.0/16",
           "nodeRoleArn": "arn:aws:iam::444455556666:role/ml-sm-gpu-node", "subnetIds": ["subnet-07a1c2e3f4a5b6c7d"]}


@pytest.mark.parametrize(("strategy", "replicas_key"), [("timeSlicing", "time-slicing.replicas"), ("mps", "mps.replicas")])
def test_the_refusal_names_bottlerocket_s_own_sharing_settings_and_that_they_are_not_written(strategy, replicas_key):
    pool = {"name": "batch", "backend": "self-managed", "format": "bottlerocket", "provider": "aws",
            "instanceTypes": ["g6e.12xlarge"], "scaling": {"minSize": 0, "maxSize": 4},
            "securityGroupIds": ["sg-0a1b2c3d4e5f60718"], "taints": ["nvidia.com/gpu=present:NoSchedule"],
            "gpuSharing": {"strategy": strategy, "replicas": 2}}
    messages = dict(config_issues({"cluster": CLUSTER, "pools": [pool]}))
    message = messages["pools[0].gpuSharing"]
    assert "settings.kubelet-device-plugins.nvidia.device-sharing-strategy" in message
    assert replicas_key in message and "bottlerocket.dev/en/os/1.54.x/api/settings/kubelet-device-plugins" in message
    assert "does not write yet" in message
    assert "configures its plugin only through" not in message
