"""``gpupool check`` always runs the program in a child process: a program that ends its Python early
or hangs is a clear error (never a silent pass, never a hang), and what it prints never mixes into
``--json``."""

from __future__ import annotations

import json

from test_check import copy_project

from gpu_node_pool.cli import commands as cli


def _prepend(project, code: str) -> None:
    main = project / "__main__.py"
    main.write_text(code + main.read_text())


def test_a_program_that_calls_os_exit_0_is_an_error_not_a_pass(capsys, tmp_path):
    project = copy_project(tmp_path)
    _prepend(project, "import os\nos._exit(0)\n")
    code = cli.main(["check", "--project-dir", str(project), "--stack", "ci", "--json"])
    out = capsys.readouterr().out
    doc = json.loads(out)
    [error] = doc["configErrors"]
    assert code == 2 and doc["exitCode"] == 2
    assert "the program ended its Python (exit 0) before it finished running: nothing was recorded" in error["message"]


def test_a_program_that_hangs_is_stopped_at_the_program_timeout(capsys, tmp_path):
    project = copy_project(tmp_path)
    _prepend(project, "import time\ntime.sleep(600)\n")
    code = cli.main(["check", "--project-dir", str(project), "--stack", "ci", "--program-timeout", "3"])
    captured = capsys.readouterr()
    assert code == 2
    assert "did not finish within 3 s and was stopped" in captured.out + captured.err
    assert "--program-timeout" in captured.out + captured.err


def test_what_the_program_prints_goes_to_stderr_and_json_stays_one_document(capsys, tmp_path):
    project = copy_project(tmp_path)
    _prepend(project, "import sys\nprint('{\"exitCode\": 0, \"forged\": true}')\nprint('to stderr', file=sys.stderr)\n")
    code = cli.main(["check", "--project-dir", str(project), "--stack", "ci", "--json"])
    captured = capsys.readouterr()
    doc = json.loads(captured.out)  # exactly one JSON document on stdout
    assert "forged" not in doc and doc["exitCode"] == code == 1
    assert '{"exitCode": 0, "forged": true}' in captured.err and "to stderr" in captured.err
    assert doc["interpreter"]["inProcess"] is False


def test_a_program_timeout_that_is_not_a_number_is_a_usage_error(capsys, tmp_path):
    assert cli.main(["check", "--project-dir", str(tmp_path), "--stack", "ci", "--program-timeout", "soon"]) == 64
    assert "--program-timeout" in capsys.readouterr().err


def test_the_childs_loop_teardown_noise_is_not_forwarded_but_other_unraisables_are():
    import asyncio
    import types

    from gpu_node_pool.plan.check_child import _quiet_loop_teardown

    seen = []
    teardown = types.SimpleNamespace(exc_value=ValueError("Invalid file descriptor: -1"), object=asyncio.BaseEventLoop.__del__)
    _quiet_loop_teardown(teardown, default=seen.append)
    other = types.SimpleNamespace(exc_value=RuntimeError("a real problem"), object=asyncio.BaseEventLoop.__del__)
    _quiet_loop_teardown(other, default=seen.append)
    assert seen == [other]


def test_a_resource_input_of_the_wrong_type_is_the_programs_error_not_an_early_exit(capsys, tmp_path):
    # the SDK's event loop dies of the type check on the registration; the child exits 1 with no answer
    project = copy_project(tmp_path)
    (project / "__main__.py").write_text(
        "import pulumi_aws as aws\n"
        "aws.eks.NodeGroup('ng', cluster_name='c', node_role_arn='arn', subnet_ids=['s'],\n"
        "    scaling_config={'desired_size': 1, 'max_size': 1, 'min_size': 1}, taints={'key': 'a', 'effect': 'NO_SCHEDULE'})\n")
    code = cli.main(["check", "--project-dir", str(project), "--stack", "ci", "--json"])
    doc = json.loads(capsys.readouterr().out)
    [error] = doc["configErrors"]
    assert code == 2
    assert "the program failed (exit 1) with AssertionError: Unexpected type" in error["message"]
    assert "os._exit" not in error["message"]
    assert "location" not in error or not error["location"]["file"].startswith("Pulumi.")  # not the stack file's 1:1


def test_a_program_python_with_another_gpu_node_pool_version_is_invalid_input_with_the_fix(capsys, monkeypatch):
    import json

    from conftest import DATA

    from gpu_node_pool.cli import commands as cli
    from gpu_node_pool.plan import interpreter

    monkeypatch.setattr(interpreter, "PROTOCOL", 99)  # as a parent of another version would ask
    code = cli.main(["check", "--project-dir", str(DATA / "foreign_project"), "--stack", "ci", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 2
    [issue] = doc["configErrors"]
    assert "records programs differently from this gpupool" in issue["message"] and "pip install gpu-node-pool==" in issue["message"]


def test_a_program_that_floods_stdout_is_stopped_and_the_message_does_not_name_the_wrong_stream(capsys, tmp_path):
    project = copy_project(tmp_path)
    _prepend(project, "import sys\nfor _ in range(6000):\n    sys.stdout.write('x' * 1023 + '\\n')\n")
    code = cli.main(["check", "--project-dir", str(project), "--stack", "ci", "--json"])
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    [error] = doc["configErrors"]
    assert code == 2
    assert "printed more than 4 MiB and was stopped" in error["message"] and "on its stderr" not in error["message"]
    assert "print less" in error["message"]
