"""Every command, as a script in a pipe sees it: the report on stdout, every error and warning on
stderr. A clean run writes nothing to stderr; a refused input writes nothing to stdout (text mode);
a config warning is on stderr only, with its stack-file place, and the report still counts it."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main

DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
#: A valid stack with one config warning (a Kubernetes version past the end of EKS extended support).
OLD = DEV.replace('kubernetesVersion: "1.33"', 'kubernetesVersion: "1.29"')
OLD_LINE = next(i for i, line in enumerate(OLD.splitlines(), 1) if '"1.29"' in line)
#: A stack with one config error.
BAD = DEV.replace("present:NoSchedule", "present:NoScheduel", 1)


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _dump(tmp_path) -> str:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "gpu-1", "labels": {}},
            "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
            "status": {"allocatable": {"nvidia.com/gpu": "1"}, "capacity": {"nvidia.com/gpu": "1"}}}
    path = tmp_path / "dump.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [node]}))
    return str(path)


def _clean(tmp_path) -> dict[str, list[str]]:
    at = ["--project-dir", str(ROOT)]
    return {
        "plan": ["plan", "--stack", "dev", *at],
        "validate": ["validate", "--stack", "dev", *at],
        "check": ["check", "--stack", "dev", *at],
        "render": ["render", "--stack", "dev", *at, "--out", str(tmp_path / "out")],
        "policy-pack": ["policy-pack", "--out", str(tmp_path / "pack")],
        "schema": ["schema"],
        "audit": ["audit", "--cluster-dump", _dump(tmp_path)],
        "completion": ["completion", "bash"],
    }


COMMANDS = ["plan", "validate", "check", "render", "policy-pack", "schema", "audit", "completion"]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_clean_run_writes_its_report_on_stdout_and_nothing_on_stderr(capsys, tmp_path, command):
    code, out, err = _run(capsys, *_clean(tmp_path)[command])
    assert out.strip() and err == "", err
    assert code in (0, 1)  # the audit of a bare node may find something; it is still a report


@pytest.mark.parametrize("command", ["plan", "validate", "check", "render", "audit", "policy-pack", "schema"])
def test_a_refused_input_writes_the_error_on_stderr_and_nothing_on_stdout(capsys, temp_project, tmp_path, command):
    project = str(temp_project("bad", BAD))
    argv = {
        "plan": ["plan", "--stack", "bad", "--project-dir", project],
        "validate": ["validate", "--stack", "bad", "--project-dir", project],
        "check": ["check", "--stack", "bad", "--project-dir", project],
        "render": ["render", "--stack", "bad", "--project-dir", project, "--out", str(tmp_path / "out")],
        "audit": ["audit", "--cluster-dump", str(tmp_path / "missing.json")],
        "policy-pack": ["policy-pack", "--out", str(tmp_path / "p"), "--requirement", "-e ."],
        "schema": ["schema", "--out", str(tmp_path / "no-such-dir" / "s.json")],
    }[command]
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == "" and err.strip()
    if command in ("plan", "validate", "check", "render"):
        assert "stacks/Pulumi.bad.yaml:" in err and "NoScheduel" in err


@pytest.mark.parametrize("command", ["plan", "validate", "render"])
def test_a_config_warning_is_on_stderr_with_its_place_and_counted_in_the_report(capsys, temp_project, tmp_path,
                                                                               command):
    project = str(temp_project("old", OLD))
    argv = [command, "--stack", "old", "--project-dir", project]
    if command == "render":
        argv += ["--out", str(tmp_path / "out")]
    code, out, err = _run(capsys, *argv)
    assert code == 0
    assert f"warning: stacks/Pulumi.old.yaml:{OLD_LINE}:" in err and "warning:" not in out
    if command != "render":
        assert "1 warning(s), on stderr" in out or "1 config warning(s), on stderr" in out
    code, out, err = _run(capsys, *argv, "--quiet")  # --quiet trims the report, never a warning
    assert f"warning: stacks/Pulumi.old.yaml:{OLD_LINE}:" in err and len(out.splitlines()) == 1
