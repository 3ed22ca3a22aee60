"""The header of a stack's config errors says what the command did not do: plan and render registered no resource,
validate found the stack not valid, the audit audited nothing."""

from __future__ import annotations

import pytest

from gpu_node_pool.cli.commands import main

BAD = "config:\n  gpu-node-pools:pools: []\n"


@pytest.mark.parametrize(("command", "tail"), [
    (["plan"], "no resource was registered"),
    (["render", "--out", "OUT"], "no resource was registered"),
    (["validate"], "the stack is not valid"),
    (["audit", "--cluster-dump", "DUMP"], "nothing was audited"),
], ids=lambda c: c[0] if isinstance(c, list) else None)
def test_the_config_error_header_says_what_the_command_did_not_do(capsys, tmp_path, temp_project, command, tail):
    project = temp_project("bad", BAD)
    swap = {"OUT": str(tmp_path / "out"), "DUMP": str(tmp_path / "dump.json")}
    (tmp_path / "dump.json").write_text('{"apiVersion": "v1", "kind": "List", "items": []}')
    code = main([*(swap.get(a, a) for a in command), "--stack", "bad", "--project-dir", str(project)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"2 errors in Pulumi.bad.yaml; {tail}:" in err.splitlines()
    assert (tail == "no resource was registered") == ("no resource was registered" in err)


def test_validate_files_say_each_stack_is_not_valid(capsys, temp_project):
    project = temp_project("bad", BAD)
    stack_file = str(project / "stacks" / "Pulumi.bad.yaml")
    assert main(["validate", "--file", stack_file, stack_file]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err.count("2 errors in Pulumi.bad.yaml; the stack is not valid:") == 2
