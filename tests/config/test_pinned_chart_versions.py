"""Every pinned ``chartVersion`` (``devicePlugin``, ``gpuAgents.dcgmExporter``, ``gpuAgents.efaDevicePlugin``) keeps
one rule: the version the component writes values for, also with Helm's leading ``v`` (a Masterminds/semver
constraint, which Helm's chart lookup reads, takes it), read as that version; anything else refused with the chart's
name, the version installed, why it is pinned and how to proceed; the JSON schema offers both spellings."""

from __future__ import annotations

import json

import pytest
from builders import config_issues

from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.config.json_schema import stack_file_schema
from gpu_node_pool.gpu_agents.dcgm_exporter import values as dcgm
from gpu_node_pool.gpu_agents.device_plugin import values as device_plugin
from gpu_node_pool.gpu_agents.efa_device_plugin import values as efa

POOL = {"name": "inference", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "amiType": "AL2023_x86_64_NVIDIA",
        "scaling": {"minSize": 0, "maxSize": 4}}
CLUSTER = {"name": "ml-dev", "kubernetesVersion": "1.33", "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-dev-gpu-node",
           "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}

#: (stack path of the section, model name in the schema, chart, version the component writes values for,
#: the key that turns the install off, the source the refusal names)
CHARTS = [
    (("devicePlugin",), "DevicePluginConfig", "nvidia-device-plugin", device_plugin.CHART_VERSION,
     "devicePlugin.enabled", "NVIDIA/k8s-device-plugin@v0.20.0"),
    (("gpuAgents", "dcgmExporter"), "DcgmExporterConfig", "dcgm-exporter", dcgm.CHART_VERSION,
     "gpuAgents.dcgmExporter.enabled", "NVIDIA/dcgm-exporter@4.5.3-4.8.2"),
    (("gpuAgents", "efaDevicePlugin"), "EfaDevicePluginConfig", "aws-efa-k8s-device-plugin", efa.CHART_VERSION,
     "gpuAgents.efaDevicePlugin.enabled", "aws/eks-charts@v0.0.241 stable/aws-efa-k8s-device-plugin (Chart.yaml version: v0.5.30)"),
]
IDS = [c[2] for c in CHARTS]


def stack_with(section: tuple[str, ...], version: object) -> dict:
    raw: dict = {"cluster": CLUSTER, "pools": [POOL]}
    if len(section) == 1:
        raw[section[0]] = {"chartVersion": version}
    else:
        raw[section[0]] = {section[1]: {"chartVersion": version}}
    return raw


def chart_version(stack, section: tuple[str, ...]) -> str:
    if section == ("devicePlugin",):
        return stack.device_plugin.chart_version
    return getattr(stack.gpu_agents, {"dcgmExporter": "dcgm_exporter", "efaDevicePlugin": "efa_device_plugin"}[section[1]]).chart_version


@pytest.mark.parametrize(("section", "model", "chart", "version", "enabled", "source"), CHARTS, ids=IDS)
def test_the_version_and_its_v_spelling_are_the_installed_version(section, model, chart, version, enabled, source):
    assert chart_version(validate_stack_config(stack_with(section, version)), section) == version
    assert chart_version(validate_stack_config(stack_with(section, "v" + version)), section) == version
    assert chart_version(validate_stack_config({"cluster": CLUSTER, "pools": [POOL]}), section) == version


@pytest.mark.parametrize("wrong", ["99.0.0", "v99.0.0", "V{v}", "{v}.0", "=v{v}", "~{v}", " {v}", 4.8])
@pytest.mark.parametrize(("section", "model", "chart", "version", "enabled", "source"), CHARTS, ids=IDS)
def test_another_version_is_refused_naming_the_chart_why_and_the_fix(section, model, chart, version, enabled, source,
                                                                      wrong):
    given = wrong.format(v=version) if isinstance(wrong, str) else wrong
    (path, message), = config_issues(stack_with(section, given))
    assert path == ".".join(section) + ".chartVersion"
    assert f"the component installs {chart} chart {version} only" in message
    assert "values.yaml keys" in message and source in message  # why, with its public source
    assert "Remove chartVersion" in message and f"v{version} is the same version" in message
    assert f"{enabled}: false" in message  # how to proceed otherwise


@pytest.mark.parametrize(("section", "model", "chart", "version", "enabled", "source"), CHARTS, ids=IDS)
def test_the_schema_offers_both_spellings(section, model, chart, version, enabled, source):
    field = stack_file_schema()["$defs"][model]["properties"]["chartVersion"]
    assert field["default"] == version and field["enum"] == [version, "v" + version], json.dumps(field)
