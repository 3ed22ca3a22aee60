"""The pack end to end: the offline plan of every shipped stack, the violating example, the
CLI option, and the pack as the Pulumi engine drives it (the SDK's analyzer servicer)."""

from __future__ import annotations

import json
import runpy

import pytest
from conftest import ROOT  # noqa: E402
from google.protobuf import struct_pb2
from pulumi.runtime.proto import analyzer_pb2
from pulumi_policy import EnforcementLevel
from pulumi_policy.policy import _PolicyAnalyzerServicer
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

from gpu_node_pool.cli import commands as cli
from gpu_node_pool.gpu_agents.device_plugin.chart import chart_daemonset
from gpu_node_pool.plan import plan_stack, render_text
from gpu_node_pool.plan.expand import FALLBACK_STAND_IN
from gpu_node_pool.policies import PACK_NAME, POLICIES

STACKS = sorted(p.name[len("Pulumi."):-len(".yaml")] for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))
EXAMPLE = ROOT / "examples" / "violating"
ALL_IDS = {p.name for p in POLICIES}


_PLANS: dict[str, object] = {}


def planned(stack: str):
    """One offline plan per shipped stack and test session (a plan takes about a second)."""
    if stack not in _PLANS:
        _PLANS[stack] = plan_stack(stack, ROOT)
    return _PLANS[stack]


@pytest.mark.parametrize("stack", STACKS)
def test_every_shipped_stack_plans_clean_with_zero_violations(stack):
    result = planned(stack)
    assert result.violations == [] and result.exit_code == 0, result.violations


@pytest.fixture(scope="module")
def example():
    return plan_stack("demo", EXAMPLE)


def test_the_violating_example_exits_1_and_trips_every_policy(example):
    assert example.exit_code == 1
    assert {v["policy"] for v in example.violations} == ALL_IDS
    assert all(set(v) - {"location"} == {"policy", "enforcement", "resource", "urn", "message"} for v in example.violations)
    text = render_text(example)
    for policy_id in ALL_IDS:
        assert f"] {policy_id} " in text


def test_the_example_policy_config_changes_levels_and_allowlist():
    config = json.loads((EXAMPLE / "policy-config.json").read_text())
    result = plan_stack("demo", EXAMPLE, policy_config=config)
    by_policy = {(v["policy"], v["resource"]): v["enforcement"] for v in result.violations}
    assert by_policy[("gpu-workloads-select-gpu-nodes", "kubernetes:apps/v1:Deployment web")] == "mandatory"
    assert ("gpu-toleration-allowlist", "kubernetes:batch/v1:Job train") not in by_policy


def test_the_plan_synthesizes_the_chart_daemonset_and_says_so():
    result = planned("dev")
    (chart,) = [r for r in result.resources if r.type == "kubernetes:helm.sh/v4:Chart"]
    (ds,) = [r for r in result.resources if r.type == "kubernetes:apps/v1:DaemonSet"]
    assert ds.synthesized.startswith(FALLBACK_STAND_IN) and ds.parent == chart.urn  # no chart in Helm's cache here
    assert "(the real chart was not rendered offline: chart 'nvidia-device-plugin'" in ds.synthesized  # why, exactly
    assert ds.inputs == chart_daemonset(chart.inputs["values"], chart.inputs["namespace"], chart.name)
    assert "fallback stand-in" in render_text(result)


def test_cli_plan_takes_a_policy_pack_config_file(tmp_path, capsys):
    config = tmp_path / "policy.json"
    config.write_text(json.dumps({"all": "advisory"}))
    assert cli.main(["plan", "--stack", "demo", "--project-dir", str(EXAMPLE), "--policy-pack-config", str(config), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {v["enforcement"] for v in out["violations"]} == {"advisory"}
    config.write_text(json.dumps({"gpu-toleration-allowlist": {"allowedNamespaces": "web"}}))
    assert cli.main(["plan", "--stack", "dev", "--project-dir", str(ROOT), "--policy-pack-config", str(config)]) == 2
    assert "allowedNamespaces" in capsys.readouterr().err


# --- the pack as the engine sees it ------------------------------------------------------


def test_policy_main_builds_the_pack_only_when_run_as_main():
    namespace = runpy.run_path(str(ROOT / "policy" / "__main__.py"), run_name="not_main")
    assert namespace["POLICIES"] is POLICIES and namespace["PACK_NAME"] == PACK_NAME


@pytest.fixture
def servicer():
    return _PolicyAnalyzerServicer(PACK_NAME, "0.1.0", POLICIES, EnforcementLevel.ADVISORY)


def struct(value: dict) -> struct_pb2.Struct:
    out = struct_pb2.Struct()
    out.update(value)
    return out


def test_analyzer_info_lists_every_policy_with_level_schema_and_remediation(servicer):
    info = servicer.GetAnalyzerInfo(None, None)
    assert [p.name for p in info.policies] == [p.name for p in POLICIES]
    allowlist = next(p for p in info.policies if p.name == "gpu-toleration-allowlist")
    assert "allowedNamespaces" in allowlist.configSchema.properties and allowlist.remediation_steps


def test_analyze_reports_an_imperative_taint_and_skips_an_unknown_command(servicer):
    def analyze(create):
        return servicer.Analyze(analyzer_pb2.AnalyzeRequest(
            type="command:local:Command", properties=struct({"create": create}), urn="urn:cmd", name="cmd"), None)

    (diag,) = analyze("kubectl taint nodes -l a=b x=y:NoSchedule").diagnostics
    assert diag.policyName == "no-imperative-taints" and diag.enforcementLevel == analyzer_pb2.MANDATORY
    (note,) = analyze(UNKNOWN_STRING_VALUE).diagnostics
    assert "can't run policy 'no-imperative-taints'" in note.message and note.enforcementLevel == analyzer_pb2.ADVISORY


def test_analyze_stack_flags_a_daemonset_without_gpu_tolerations(servicer):
    pool = analyzer_pb2.AnalyzerResource(type="aws:eks/nodeGroup:NodeGroup", name="gpu", urn="urn:gpu", properties=struct({
        "amiType": "AL2023_x86_64_NVIDIA", "instanceTypes": ["g6.xlarge"], "scalingConfig": {"minSize": 1},
        "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}],
        "labels": {"nvidia.com/gpu.present": "true"}}))
    ds = analyzer_pb2.AnalyzerResource(type="kubernetes:apps/v1:DaemonSet", name="fb", urn="urn:fb", properties=struct({
        "metadata": {"name": "fluent-bit", "namespace": "logging"},
        "spec": {"template": {"spec": {"containers": [{"name": "fb", "image": "fluent-bit"}]}}}}))
    response = servicer.AnalyzeStack(analyzer_pb2.AnalyzeStackRequest(resources=[pool, ds]), None)
    flagged = [x for x in response.diagnostics if x.policyName == "daemonsets-tolerate-gpu-taints"]
    assert len(flagged) == 1 and flagged[0].urn == "urn:fb" and "logging/fluent-bit" in flagged[0].message


def test_the_readme_config_is_the_shipped_example_and_the_dev_plan_passes_with_it():
    import re

    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Policy pack"):]
    (block,) = re.findall(r"```json\n(.*?)```", section, flags=re.S)
    assert json.loads(block) == json.loads((ROOT / "policy" / "config.example.json").read_text())
    assert cli.main(["plan", "--stack", "dev", "--project-dir", str(ROOT),
                     "--policy-pack-config", str(ROOT / "policy" / "config.example.json")]) == 0
