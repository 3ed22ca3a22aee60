"""Options that contradict each other, or one given twice where only one counts, are usage errors (exit 64)."""

from __future__ import annotations

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main


@pytest.mark.parametrize(("argv", "said"), [
    (["plan", "--stack", "dev", "--json", "--format", "sarif"], "--json and --format sarif ask for two reports"),
    (["check", "--stack", "dev", "--json", "--format", "text"], "--json and --format text ask for two reports"),
    (["audit", "--cluster-dump", str(ROOT / "examples" / "audit" / "cluster.json"),
      "--cluster-dump", str(ROOT / "examples" / "audit" / "cluster.json")], "--cluster-dump is given twice"),
])
def test_contradicting_or_repeated_options_exit_64_naming_them(capsys, argv, said):
    assert main(argv) == 64
    assert said in capsys.readouterr().err


def test_json_with_format_json_is_one_request(capsys):
    assert main(["plan", "--stack", "dev", "--project-dir", str(ROOT), "--json", "--format", "json", "-q"]) == 0
