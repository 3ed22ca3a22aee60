"""A Pulumi.yaml that is empty or indented with a tab: plan and check say what is wrong and what it needs."""

from __future__ import annotations

import shutil

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main

PROJECT_FILE_DOCS = "https://www.pulumi.com/docs/iac/concepts/projects/project-file/"


def _project(tmp_path, text: str):
    project = tmp_path / "p"
    shutil.copytree(ROOT / "examples" / "violating", project)
    (project / "Pulumi.yaml").write_text(text)
    return project


def _run(capsys, command: str, project) -> tuple[int, str]:
    code = main([command, "--stack", "demo", "--project-dir", str(project)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.parametrize("command", ["plan", "check"])
def test_a_tab_indenting_pulumi_yaml_is_named_as_the_cause(capsys, tmp_path, command):
    project = _project(tmp_path, "name: myteam-gpu\nruntime:\n\tname: python\n")
    code, text = _run(capsys, command, project)
    assert code == 2
    [line] = [line.strip() for line in text.splitlines() if "is not valid YAML" in line]
    assert line.startswith("Pulumi.yaml:3:1: is not valid YAML: ")
    assert ("(the character there is a tab: YAML indents with spaces only, "
            "https://yaml.org/spec/1.2.2/#61-indentation-spaces); fix the syntax there") in line


@pytest.mark.parametrize("command", ["plan", "check"])
def test_a_syntax_error_without_a_tab_gets_no_tab_hint(capsys, tmp_path, command):
    project = _project(tmp_path, "name: x: y\nruntime: python\n")
    code, text = _run(capsys, command, project)
    assert code == 2
    assert "Pulumi.yaml:1:8: is not valid YAML" in text and "tab" not in text


@pytest.mark.parametrize("body", ["", "# nothing yet\n", "\n\n"])
@pytest.mark.parametrize("command", ["plan", "check"])
def test_an_empty_pulumi_yaml_says_it_is_empty_and_what_it_needs(capsys, tmp_path, command, body):
    project = _project(tmp_path, body)
    code, text = _run(capsys, command, project)
    assert code == 2
    assert "Pulumi.yaml:1:1: is empty: a Pulumi project file needs at least name: <project> and runtime: python" in text
    assert PROJECT_FILE_DOCS in text
    assert "is None" not in text and "internal error" not in text
