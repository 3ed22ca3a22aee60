"""``gpupool audit --stack`` with an invalid stack config reports every mistake as ``gpupool plan`` does: the same
lines (path, message and ``file:line:column`` each) on stderr, the same ``configErrors`` under ``--json``, exit 2,
before the cluster dump is read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import ROOT

from gpu_node_pool.cli.commands import main


def _project(tmp_path: Path) -> Path:
    """The dev stack as ``mine``, with a misspelt effect and a pool key of another backend: two mistakes."""
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "stacks").mkdir()
    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
    text = text.replace("present:NoSchedule", "present:NoSchedul").replace("      taints:\n", "      limits: {cpu: 4}\n      taints:\n")
    (tmp_path / "stacks" / "Pulumi.mine.yaml").write_text(text)
    return tmp_path


def test_every_config_error_with_its_file_line_as_plan_reports_them(tmp_path, capsys):
    project = _project(tmp_path)
    assert main(["plan", "--stack", "mine", "--project-dir", str(project)]) == 2
    planned = capsys.readouterr()
    plan_lines = [line for line in (planned.out + planned.err).splitlines() if line.startswith("  stacks/")]
    assert len(plan_lines) == 2, planned
    code = main(["audit", "--stack", "mine", "--project-dir", str(project), "--cluster-dump", str(tmp_path / "none.json")])
    audited = capsys.readouterr()
    assert code == 2
    assert audited.out == ""
    assert "2 errors in Pulumi.mine.yaml" in audited.err
    assert [line for line in audited.err.splitlines() if line.startswith("  stacks/")] == plan_lines
    assert "none.json" not in audited.err  # the stack is read first


def test_every_config_error_is_in_the_json_report_with_its_location(tmp_path, capsys):
    project = _project(tmp_path)
    code = main(["audit", "--stack", "mine", "--project-dir", str(project), "--cluster-dump", "x.json", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 2 and doc["exitCode"] == 2
    assert sorted(e["path"] for e in doc["configErrors"]) == ["pools[0].limits", "pools[0].taints[0].effect"], doc
    assert all(e["location"]["file"] == "stacks/Pulumi.mine.yaml" and e["location"]["line"] > 0
               for e in doc["configErrors"])
