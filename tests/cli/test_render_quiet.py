"""``gpupool render -q`` keeps the command-line contract of ``--quiet`` (README, Command-line contract): a render
refused for findings prints one line, the exit line and that nothing was written; a config error still in full."""

from __future__ import annotations

import pytest
from conftest import shipped_project
from stack_texts import GKE_L4

from gpu_node_pool.cli.commands import main

#: A GKE pool whose driver install is off, with the stack's driver installer turned off and none declared: a
#: mandatory finding (exit 1).
NO_DRIVER = GKE_L4 + "  gpu-node-pools:gpuAgents:\n    gkeDriverInstaller: {enabled: false}\n"
BAD = NO_DRIVER.replace("maxSize: 4", "maxSize: many")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return shipped_project(tmp_path_factory.mktemp("quiet"), {"nodriver": NO_DRIVER, "bad": BAD})


def test_a_render_refused_for_findings_prints_one_line(project, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["render", "--stack", "nodriver", "--project-dir", str(project), "--out", str(out), "-q"])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.out == ""
    *warnings, last = captured.err.splitlines()
    assert last == f"exit 1: FAILED (mandatory policy violation or uncovered taint); nothing was written to {out}"
    # config warnings go to stderr under --quiet too (the pool's INSTALLATION_DISABLED one, the switched-off
    # installer's, NVIDIA's plugin on GKE without the container toolkit); nothing of the report
    count = int(warnings[0].split()[0])
    assert warnings[0] == f"{count} config warning(s) (the plan goes on; nothing here is refused):" and count >= 2
    assert len(warnings) == count + 1
    assert all(w.startswith("  warning: stacks/Pulumi.nodriver.yaml:") for w in warnings[1:])
    assert any("gpuAgents.gkeDriverInstaller.enabled: false" in w for w in warnings[1:])
    assert not out.exists() or not any(out.iterdir())


def test_without_quiet_the_refused_render_says_why(project, tmp_path, capsys):
    code = main(["render", "--stack", "nodriver", "--project-dir", str(project), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 1
    assert "[mandatory] gpu-agents-cover-gpu-pools" in err and err.rstrip().endswith("nothing was written to "
                                                                                     f"{tmp_path / 'out'}")


def test_quiet_keeps_a_config_error_in_full(project, tmp_path, capsys):
    code = main(["render", "--stack", "bad", "--project-dir", str(project), "--out", str(tmp_path / "out"), "-q"])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert "stacks/Pulumi.bad.yaml:" in captured.err and "'many'" in captured.err
    assert len(captured.err.splitlines()) > 1
