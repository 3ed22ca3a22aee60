"""``render --json`` carries the stack outputs the program exports, as ``plan --json`` does: cut of the program's
secrets the same way, and allowed by the report schema."""

from __future__ import annotations

import json

import jsonschema
from conftest import ROOT, shipped_project
from test_plan_own_pools import OWN_POOL

from gpu_node_pool.cli import commands as cli
from gpu_node_pool.cli.contract import report_schema

SECRET = "s3cr3t-token-value"
EXPORTS = (f'pulumi.CustomResource("command:local:Command", "login", {{"create": pulumi.Output.secret("echo {SECRET}")}})\n'
           'pulumi.export("vision.tolerations", vision.workload_tolerations)\n'
           f'pulumi.export("token", pulumi.Output.secret("{SECRET}"))\n'
           f'pulumi.export("note", "the login runs echo {SECRET}")\n')


def json_report(capsys, *argv: str) -> dict:
    cli.main([*argv, "--json"])
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, report_schema())
    return doc


def test_render_json_has_the_plans_outputs_masked_alike(capsys, tmp_path):
    root = shipped_project(tmp_path / "p", {"dev": (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()})
    (root / "__main__.py").write_text(OWN_POOL + EXPORTS)
    planned = json_report(capsys, "plan", "--project-dir", str(root), "--stack", "dev")
    rendered = json_report(capsys, "render", "--project-dir", str(root), "--stack", "dev", "--out", str(tmp_path / "o"))
    assert rendered["exitCode"] == planned["exitCode"] == 0 and rendered["written"]
    assert rendered["outputs"] == planned["outputs"]
    assert rendered["outputs"]["token"] == "[secret]"
    assert rendered["outputs"]["note"] == "the login runs [secret]"  # the secret input, cut wherever it is quoted
    assert rendered["outputs"]["vision.tolerations"][1] == {"key": "team", "operator": "Equal", "value": "vision",
                                                            "effect": "NoSchedule"}
    assert SECRET not in json.dumps(rendered)


def test_render_json_of_a_broken_stack_still_has_outputs(capsys, tmp_path):
    root = shipped_project(tmp_path / "p", {"dev": "config:\n  gpu-node-pools:pools: 3\n"})
    doc = json_report(capsys, "render", "--project-dir", str(root), "--stack", "dev", "--out", str(tmp_path / "o"))
    assert doc["exitCode"] == 2 and doc["outputs"] == {}
