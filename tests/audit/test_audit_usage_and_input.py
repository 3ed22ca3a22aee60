"""What a user sees when ``gpupool audit`` is given a bad option value or a dump it cannot use: a usage
error (exit 64) or an input error (exit 2) of one line naming the option, the path or value and the fix;
never an internal error, never a silent pass."""

from __future__ import annotations

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main

EXAMPLE = ROOT / "examples" / "audit" / "cluster.json"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if "error" in line]


# --- --timeout: a number of seconds above 0, whatever the source ------------------------------


@pytest.mark.parametrize("value", ["-1", "0", "nan", "inf", "-inf", "soon"])
@pytest.mark.parametrize("source", [["--kubeconfig", "kc.yaml"], ["--cluster-dump", str(EXAMPLE)]])
def test_a_timeout_that_is_not_seconds_above_0_is_a_usage_error_of_one_line(capsys, value, source):
    code, out, err = run(capsys, "audit", *source, f"--timeout={value}")
    assert code == 64, out + err
    assert out == ""
    [line] = error_lines(err)
    assert line.startswith("gpupool audit: error: argument --timeout:")
    assert repr(value) in line
    assert "internal error" not in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [
    ["audit", "--cluster-dump", str(EXAMPLE), "--timeout"],
    ["check", "--stack", "s", "--program-timeout"],
    ["check", "--stack", "s", "--render-timeout"],
    ["plan", "--stack", "s", "--render-timeout"],
])
def test_every_timeout_option_refuses_with_the_same_rule(capsys, argv):
    code, _, err = run(capsys, *argv, "nan")
    assert code == 64
    [line] = error_lines(err)
    assert line.endswith(f"argument {argv[-1]}: 'nan' must be a number of seconds above 0, e.g. 30")


def test_a_timeout_above_0_is_accepted(capsys):
    code, _, err = run(capsys, "audit", "--cluster-dump", str(EXAMPLE), "--timeout", "0.5")
    assert code == 1, err  # the example's findings
