"""A ``Pulumi.yaml`` whose ``main:`` names no program: one issue at the ``main:`` line, naming the project, what is
missing, a near entry and the fix (Pulumi refuses such a project too: "project 'main' could not be read")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import DATA

from gpu_node_pool.cli.commands import main
from gpu_node_pool.plan.run import program_run_dir
from gpu_node_pool.plan.stack_file import missing_program_issue

FIX = "write main: as the program file or its directory, relative to Pulumi.yaml, or remove it for __main__.py"


def _project(tmp_path: Path, main_line: str) -> Path:
    project = tmp_path / "p"
    shutil.copytree(DATA / "foreign_project", project)
    (project / "src").mkdir()
    (project / "Pulumi.yaml").write_text((project / "Pulumi.yaml").read_text() + main_line + "\n")
    return project


def _main_line(project: Path) -> int:
    [line] = [i for i, text in enumerate((project / "Pulumi.yaml").read_text().splitlines(), 1) if text.startswith("main:")]
    return line


def test_check_names_the_project_the_main_line_the_near_directory_and_the_fix(tmp_path, capsys):
    project = _project(tmp_path, "main: srcx/")
    assert main(["check", "--stack", "ci", "--project-dir", str(project), "--json"]) == 2
    report = json.loads(capsys.readouterr().out)
    assert report["project"] == "platform-gpu"
    [issue] = report["configErrors"]
    assert issue["path"] == "main"
    assert issue["location"] == {"file": "Pulumi.yaml", "line": _main_line(project), "column": 1}
    assert "did you mean main: src/?" in issue["message"] and FIX in issue["message"]
    assert main(["check", "--stack", "ci", "--project-dir", str(project)]) == 2
    out = "".join(capsys.readouterr())
    assert "check of project 'platform-gpu'" in out and "in the project 'platform-gpu'" in out and "'?'" not in out
    assert f"Pulumi.yaml:{_main_line(project)}:1: main: 'srcx/' names no program" in out


def test_a_short_name_is_matched_to_the_directory(tmp_path):
    project = _project(tmp_path, "main: sr")
    issue = missing_program_issue(project, "sr", program_run_dir(project, "sr")[1])
    assert "did you mean main: src/?" in issue.message and issue.location.line == _main_line(project)


def test_a_directory_without_the_program_is_named_as_such(tmp_path):
    project = _project(tmp_path, "main: src/")
    issue = missing_program_issue(project, "src/", program_run_dir(project, "src/")[1])
    assert "holds no __main__.py" in issue.message and "did you mean" not in issue.message and FIX in issue.message


def test_a_name_near_nothing_suggests_nothing(tmp_path):
    project = _project(tmp_path, "main: infrastructure/")
    issue = missing_program_issue(project, "infrastructure/", program_run_dir(project, "infrastructure/")[1])
    assert "did you mean" not in issue.message and "no file or directory" in issue.message
