"""``--stack <org>/<project>/<stack>`` names the project of the stack: one other than ``Pulumi.yaml``'s ``name:`` is
a usage error (exit 64) under every command that takes ``--stack``; the message says when pulumi refuses such a stack
("provided project name ... doesn't match Pulumi.yaml": when it creates the stack and when it previews, updates,
imports, refreshes or destroys it) and where its source says so."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main

#: Every command that takes --stack, with what else it needs; the stack is checked before anything runs.
COMMANDS = [["plan"], ["render", "--out", "OUT"], ["validate"], ["check"], ["audit", "--cluster-dump", "DUMP"]]


def _argv(tmp_path, command: list[str], stack: str, project_dir) -> list[str]:
    swap = {"OUT": str(tmp_path / "out"), "DUMP": str(tmp_path / "dump.json")}
    (tmp_path / "dump.json").write_text('{"apiVersion": "v1", "kind": "List", "items": []}')
    return [*(swap.get(a, a) for a in command), "--stack", stack, "--project-dir", str(project_dir)]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_another_project_in_a_qualified_stack_is_a_usage_error(capsys, tmp_path, command):
    code = main(_argv(tmp_path, command, "acme/otherproj/dev", ROOT))
    captured = capsys.readouterr()
    assert code == 64 and captured.out == ""
    last = captured.err.strip().splitlines()[-1]
    assert last.startswith(f"gpupool {command[0]}: error: argument --stack: 'acme/otherproj/dev' names the project "
                           f"'otherproj', but this project is 'gpu-node-pools' (name: in {ROOT / 'Pulumi.yaml'})"), last
    assert "doesn't match Pulumi.yaml" in last
    assert ("pulumi refuses a stack whose project differs from it when it creates the stack and when it previews, "
            "updates, imports, refreshes or destroys it") in last
    assert "pulumi/pulumi@v3.259.0 pkg/backend/backend.go CurrentProjectContradictsWorkspace" in last
    assert last.endswith("give --stack acme/gpu-node-pools/dev or --stack dev")
    assert not (tmp_path / "out").exists()


def test_the_project_is_the_one_of_the_nearest_pulumi_yaml(capsys, temp_project):
    project = temp_project("dev", (ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    text = (project / "Pulumi.yaml").read_text().replace("name: gpu-node-pools", "name: ml-pools", 1)
    (project / "Pulumi.yaml").write_text(text)
    assert main(["validate", "--stack", "acme/gpu-node-pools/dev", "--project-dir", str(project / "stacks")]) == 64
    assert "but this project is 'ml-pools'" in capsys.readouterr().err
    assert main(["validate", "--stack", "acme/ml-pools/dev", "--project-dir", str(project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["stack"] == "dev"


@pytest.mark.parametrize("stack", ["acme/gpu-node-pools/dev", "acme/dev", "dev"])
def test_a_stack_of_this_project_or_of_none_is_taken(capsys, stack):
    assert main(["validate", "--stack", stack, "--project-dir", str(ROOT), "-q"]) == 0
    assert capsys.readouterr().out.strip() == "stack 'dev': config is valid (1 pool(s))"
