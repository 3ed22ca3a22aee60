"""``devicePlugin.chartVersion`` other than the chart version the component writes values for is refused with why
(the values and the planned DaemonSet are that version's) and how to proceed."""

from __future__ import annotations

import pytest
from builders import config_issues

from gpu_node_pool.config import DevicePluginConfig
from gpu_node_pool.gpu_agents.device_plugin.values import CHART_VERSION

POOL = {"name": "inference", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "amiType": "AL2023_x86_64_NVIDIA",
        "scaling": {"minSize": 0, "maxSize": 4}}
CLUSTER = {"name": "ml-dev", "kubernetesVersion": "1.33", "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-dev-gpu-node",
           "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}


def test_the_pinned_version_is_the_one_the_values_are_written_for():
    assert DevicePluginConfig().chart_version == CHART_VERSION
    assert DevicePluginConfig.model_validate({"chartVersion": CHART_VERSION}).chart_version == CHART_VERSION


@pytest.mark.parametrize("version", ["99.0.0", "0.17.0", "v0.20.0", 0.2])
def test_another_version_is_refused_with_why_and_how_to_proceed(version):
    (path, message), = config_issues({"cluster": CLUSTER, "pools": [POOL], "devicePlugin": {"chartVersion": version}})
    assert path == "devicePlugin.chartVersion"
    assert "chart 0.20.0 only" in message
    assert "values.yaml" in message and "NVIDIA/k8s-device-plugin@v0.20.0" in message  # why, with its source
    assert "Remove chartVersion" in message and "devicePlugin.enabled: false" in message  # how to proceed
