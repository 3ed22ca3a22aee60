"""The plan says what serves nvidia.com/gpu on each pool, and the same in its summary line and in --json: NVIDIA's
chart, the GPU Operator's device plugin (devicePlugin.provider: gpu-operator), or nothing this stack installs
(devicePlugin.enabled: false)."""

from __future__ import annotations

import json

import pytest
from conftest import shipped_project
from stack_texts import EKS_BIG

from gpu_node_pool.cli.commands import main

STACK = EKS_BIG + """    - name: small
      backend: eks-managed
      instanceTypes: [g6.2xlarge]
      scaling: {minSize: 0, maxSize: 2}
      taints: ["nvidia.com/gpu=present:NoSchedule", "example.com/team=ml:NoSchedule"]
  gpu-node-pools:devicePlugin: %s
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    plugins = {"op": "{provider: gpu-operator}", "off": "{enabled: false}", "chart": "{}"}
    return shipped_project(tmp_path_factory.mktemp("provider"), {name: STACK % p for name, p in plugins.items()})


def plan(capsys, project, stack, *extra):
    code = main(["plan", "--stack", stack, "--project-dir", str(project), *extra])
    out = capsys.readouterr().out
    return code, out


def pool_lines(text):
    return [line.split(None, 2)[2] for line in text.splitlines() if line.startswith("  device plugin   ")]


def summary(text):
    return next(line for line in text.splitlines() if line.startswith("device plugin"))


def test_gpu_operator_serves_every_pool_in_text_and_json(capsys, project):
    code, text = plan(capsys, project, "op")
    assert code == 0, text
    assert pool_lines(text) == ["the GPU Operator's device plugin (gpu-operator chart)"] * 2
    assert summary(text).startswith("device plugin: the GPU Operator's, chart gpu-operator v26.7.0 from ")
    assert "not installed by this stack" not in text and "nvidia-device-plugin chart" not in text
    # the operands' tolerations follow the summary line, one per pool taint key/effect
    assert "    key: example.com/team, operator: Exists, effect: NoSchedule" in text
    _, doc = plan(capsys, project, "op", "--json")
    doc = json.loads(doc)
    assert [p["devicePlugin"] for p in doc["pools"]] == ["the GPU Operator's device plugin (gpu-operator chart)"] * 2
    assert doc["devicePlugin"] is None  # no standalone nvidia-device-plugin chart


def test_a_disabled_plugin_is_said_to_be_missing_on_each_pool(capsys, project):
    _, text = plan(capsys, project, "off")
    assert pool_lines(text) == ["needs NVIDIA's device plugin; not installed by this stack (devicePlugin.enabled: false)"] * 2
    assert summary(text) == "device plugin: not installed by this stack"
    _, doc = plan(capsys, project, "off", "--json")
    assert {p["devicePlugin"] for p in json.loads(doc)["pools"]} == {
        "needs NVIDIA's device plugin; not installed by this stack (devicePlugin.enabled: false)"}


def test_the_standalone_chart_is_named_on_each_pool(capsys, project):
    code, text = plan(capsys, project, "chart")
    assert code == 0, text
    assert pool_lines(text) == ["nvidia-device-plugin chart"] * 2
    assert summary(text).startswith("device plugin nvidia-device-plugin 0.20.0 from ")
