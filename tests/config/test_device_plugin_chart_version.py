"""``devicePlugin.chartVersion`` other than the chart version the component writes values for is refused with why
(the values and the planned DaemonSet are that version's) and how to proceed; the same version written with Helm's
leading ``v`` (``v0.20.0``, which Helm's Masterminds/semver constraint reads as ``0.20.0``) is that version."""

from __future__ import annotations

import json

import pytest
from builders import config_issues
from conftest import ROOT

from gpu_node_pool.cli.commands import main
from gpu_node_pool.config import DevicePluginConfig, validate_stack_config
from gpu_node_pool.config.json_schema import stack_file_schema
from gpu_node_pool.gpu_agents.device_plugin.values import CHART_VERSION

POOL = {"name": "inference", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "amiType": "AL2023_x86_64_NVIDIA",
        "scaling": {"minSize": 0, "maxSize": 4}}
CLUSTER = {"name": "ml-dev", "kubernetesVersion": "1.33", "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-dev-gpu-node",
           "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}


def test_the_pinned_version_is_the_one_the_values_are_written_for():
    assert DevicePluginConfig().chart_version == CHART_VERSION
    assert DevicePluginConfig.model_validate({"chartVersion": CHART_VERSION}).chart_version == CHART_VERSION


@pytest.mark.parametrize("version", ["99.0.0", "0.17.0", "v0.17.0", "V0.20.0", "0.20", 0.2])
def test_another_version_is_refused_with_why_and_how_to_proceed(version):
    (path, message), = config_issues({"cluster": CLUSTER, "pools": [POOL], "devicePlugin": {"chartVersion": version}})
    assert path == "devicePlugin.chartVersion"
    assert "chart 0.20.0 only" in message
    assert "values.yaml" in message and "NVIDIA/k8s-device-plugin@v0.20.0" in message  # why, with its source
    assert "Remove chartVersion" in message and "devicePlugin.enabled: false" in message  # how to proceed


def test_the_pinned_version_with_a_leading_v_is_read_as_that_version():
    stack = validate_stack_config({"cluster": CLUSTER, "pools": [POOL], "devicePlugin": {"chartVersion": "v0.20.0"}})
    assert stack.device_plugin.chart_version == CHART_VERSION == "0.20.0"


def test_the_schema_offers_both_spellings():
    schema = json.dumps(stack_file_schema())
    assert '"chartVersion": {"default": "0.20.0", "enum": ["0.20.0", "v0.20.0"]' in schema


def test_the_plan_installs_the_chart_version_without_the_v(tmp_path, capsys):
    dev = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
    (tmp_path / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    (tmp_path / "__main__.py").write_text((ROOT / "__main__.py").read_text())
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.mine.yaml").write_text(
        dev.replace("    namespace: nvidia-device-plugin", "    namespace: nvidia-device-plugin\n    chartVersion: v0.20.0"))
    code = main(["plan", "--stack", "mine", "--json", "--project-dir", str(tmp_path)])
    report = json.loads(capsys.readouterr().out)
    charts = [r for r in report["resources"] if r["type"] == "kubernetes:helm.sh/v4:Chart"]
    assert code == 0 and [c["inputs"]["version"] for c in charts] == ["0.20.0"], charts
