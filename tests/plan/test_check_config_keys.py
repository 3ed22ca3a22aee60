"""``gpupool check``: a key the program requires that the stack file misspells is named at its stack file line,
with the rename (tests/data/foreign_project, whose program does ``config.require("clusterName")``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import DATA

from gpu_node_pool.cli import commands as cli
from gpu_node_pool.plan.locate_keys import distance


def _project(tmp_path: Path, key: str, declared: bool = False) -> Path:
    """The foreign project whose stack file writes ``clusterName`` as ``key``; ``declared``: Pulumi.yaml declares
    ``clusterName`` (a string, no default)."""
    project = tmp_path / "p"
    shutil.copytree(DATA / "foreign_project", project)
    stack = project / "Pulumi.ci.yaml"
    assert "  clusterName: ml-prod\n" in stack.read_text()
    stack.write_text(stack.read_text().replace("  clusterName: ml-prod\n", f"  {key}: ml-prod\n"))
    if declared:
        (project / "Pulumi.yaml").write_text((project / "Pulumi.yaml").read_text()
                                             + "config:\n  clusterName:\n    type: string\n")
    return project


def _error(capsys, project: Path) -> dict:
    code = cli.main(["check", "--project-dir", str(project), "--stack", "ci", "--json"])
    [error] = json.loads(capsys.readouterr().out)["configErrors"]
    assert code == 2
    return error


def _line_of(project: Path, text: str) -> int:
    return next(i for i, line in enumerate((project / "Pulumi.ci.yaml").read_text().splitlines(), 1) if text in line)


@pytest.mark.parametrize("key", ["clusterNmae", "platform-gpu:clusterNmae", "clustername", "clusterNam"])
def test_a_misspelt_key_the_program_requires_is_named_with_its_place_and_the_rename(capsys, tmp_path, key):
    project = _project(tmp_path, key)
    error = _error(capsys, project)
    full = key if ":" in key else f"platform-gpu:{key}"
    assert "Missing required configuration variable 'platform-gpu:clusterName'" in error["message"]
    assert f"Pulumi.ci.yaml:{_line_of(project, key)}:3 sets {full}, a near spelling" in error["message"]
    assert "rename the key to platform-gpu:clusterName" in error["message"]
    assert error["location"]["file"] == "__main__.py"  # the program's require() stays the error's place


def test_a_misspelt_key_pulumi_yaml_declares_is_placed_at_the_stack_file_key(capsys, tmp_path):
    project = _project(tmp_path, "clusterNmae", declared=True)
    error = _error(capsys, project)
    assert error["path"] == "platform-gpu:clusterName" and "is missing this configuration value" in error["message"]
    line = _line_of(project, "clusterNmae")
    assert error["location"] == {"file": "Pulumi.ci.yaml", "line": line, "column": 3}
    assert error["message"].endswith("if that is this value, rename the key to platform-gpu:clusterName")
    assert cli.main(["check", "--project-dir", str(project), "--stack", "ci"]) == 2
    assert f"Pulumi.ci.yaml:{line}:3: platform-gpu:clusterName: stack 'ci'" in capsys.readouterr().err


def test_a_key_of_another_name_or_namespace_is_no_near_miss(capsys, tmp_path):
    for key in ("region", "aws:clusterName"):
        project = _project(tmp_path / key.replace(":", "-"), key, declared=True)
        error = _error(capsys, project)
        assert "near spelling" not in error["message"]
        # placed at the config: block that should hold it
        assert error["location"] == {"file": "Pulumi.ci.yaml", "line": _line_of(project, "config:"), "column": 1}


@pytest.mark.parametrize(("a", "b", "expected"), [("clusterNmae", "clusterName", 1), ("clusterName", "clusterNme", 1),
                                                  ("region", "clusterName", 3), ("ab", "ba", 1), ("", "abc", 3)])
def test_the_edit_distance_counts_a_swap_of_neighbours_as_one(a, b, expected):
    assert distance(a, b, 2) == min(expected, 3)
