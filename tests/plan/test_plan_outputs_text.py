"""The text plan shows the stack outputs the program exports (``--json`` has them as ``outputs``), secrets masked."""

from __future__ import annotations

import json

from conftest import ROOT, shipped_project
from test_plan_own_pools import OWN_POOL

from gpu_node_pool.cli import commands as cli
from gpu_node_pool.plan.report import MAX_OUTPUTS, output_lines

EXPORTS = ('pulumi.export("vision.tolerations", vision.workload_tolerations)\n'
           'pulumi.export("token", pulumi.Output.secret("s3cr3t-token-value"))\n')


def test_plan_shows_the_programs_stack_outputs_with_secrets_masked(capsys, tmp_path):
    root = shipped_project(tmp_path / "p", {"dev": (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()})
    (root / "__main__.py").write_text(OWN_POOL + EXPORTS)
    cli.main(["plan", "--project-dir", str(root), "--stack", "dev"])
    text = capsys.readouterr().out
    assert "stack outputs (2; pulumi stack output shows them after an update):" in text
    assert '  vision.tolerations  [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", ' in text
    assert "  token  [secret]" in text and "s3cr3t" not in text
    cli.main(["plan", "--json", "--project-dir", str(root), "--stack", "dev"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["outputs"]["token"] == "[secret]"
    assert doc["outputs"]["vision.tolerations"][1] == {"key": "team", "operator": "Equal", "value": "vision",
                                                       "effect": "NoSchedule"}


def test_the_outputs_section_is_short():
    many = {f"pool{i}.name": "x" * 500 for i in range(MAX_OUTPUTS + 5)}
    lines = output_lines(many)
    assert len(lines) == 2 + MAX_OUTPUTS + 1
    assert lines[2] == f"  pool0.name  {'x' * 200}... (500 characters)"
    assert lines[-1] == "  ... 5 more: gpupool plan --json has them all (outputs)"
    assert output_lines({}) == []
