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


@pytest.mark.parametrize(("argv", "said"), [
    (["plan", "--stack", "dev", "--format", "sarif", "--format", "text"],
     "gpupool plan: error: --format is given twice; give it once (got 'sarif', then 'text')"),
    (["plan", "--stack", "dev", "--html", "a.html", "--html", "b.html"],
     "gpupool plan: error: --html is given twice; give it once (got 'a.html', then 'b.html')"),
    (["plan", "--stack", "dev", "--stack", "prod"], "gpupool plan: error: --stack is given twice; give it once"),
    (["check", "--stack", "dev", "--fail-on", "none", "--fail-on", "advisory"],
     "gpupool check: error: --fail-on is given twice; give it once (got 'none', then 'advisory')"),
    (["audit", "--fail-on", "info", "--fail-on", "info"], "gpupool audit: error: --fail-on is given twice"),
    (["render", "--stack", "dev", "--out", "a", "--out", "b"], "gpupool render: error: --out is given twice"),
    (["policy-pack", "--out", "a", "--layout", "per-rule", "--layout", "per-level"],
     "gpupool policy-pack: error: --layout is given twice"),
    (["check", "--stack", "dev", "--program-timeout", "3", "--program-timeout", "4"],
     "gpupool check: error: --program-timeout is given twice; give it once (got 3.0, then 4.0)"),
    (["audit", "--cluster-dump", "a.json", "--cluster-dump", "b.json"],
     "--cluster-dump is given twice; give it once (got 'a.json', then 'b.json'); put several dump files in one "
     "directory"),
])
def test_every_single_valued_option_given_twice_exits_64_naming_it(capsys, monkeypatch, tmp_path, argv, said):
    monkeypatch.chdir(tmp_path)  # where a command that ran anyway would write its files
    assert main(argv) == 64
    assert list(tmp_path.iterdir()) == []
    assert said in capsys.readouterr().err


def test_an_option_with_a_default_given_once_is_not_a_repeat(capsys):
    # --fail-on has a default (mandatory); giving it once is one value, not a second one
    assert main(["plan", "--stack", "dev", "--project-dir", str(ROOT), "--fail-on", "mandatory", "-q"]) == 0
