"""``--quiet``, the kind of each synthesized stand-in in the text, and the pre-commit hook run as
pre-commit runs it (its ``entry`` with the changed files as arguments, in a subprocess)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from conftest import ROOT

from gpu_node_pool.cli.commands import main
from gpu_node_pool.plan import PlanResult, Recorded, render_text

#: The dev stack with one mistake: a misspelt taint effect, on line TYPO_LINE.
DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
BAD_EFFECT = DEV.replace("present:NoSchedule", "present:NoScheduel", 1)
TYPO_LINE = next(i for i, line in enumerate(BAD_EFFECT.splitlines(), 1) if "NoScheduel" in line)


def test_quiet_prints_only_the_exit_line(capsys):
    assert main(["validate", "--stack", "dev", "--project-dir", str(ROOT), "--quiet"]) == 0
    assert capsys.readouterr().out == "stack 'dev': config is valid (1 pool(s))\n"
    assert main(["plan", "--stack", "dev", "--project-dir", str(ROOT), "-q"]) == 0
    assert capsys.readouterr().out.splitlines() == ["exit 0: clean"]


def test_quiet_keeps_errors_in_full(temp_project, capsys):
    project = temp_project("bad", BAD_EFFECT)
    assert main(["plan", "--stack", "bad", "--project-dir", str(project), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"stacks/Pulumi.bad.yaml:{TYPO_LINE}:" in err and "NoScheduel" in err


def test_synthesized_stand_ins_are_labelled_by_their_kind():
    stand_ins = [Recorded(type=t, name=f"chart:ns/{t.rsplit(':', 1)[-1].lower()}", inputs={}, synthesized="stand-in")
                 for t in ("kubernetes:apps/v1:DaemonSet", "kubernetes:core/v1:ServiceAccount",
                           "kubernetes:rbac.authorization.k8s.io/v1:Role",
                           "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding")]
    text = render_text(PlanResult(stack="s", resources=stand_ins))
    for kind in ("DaemonSet", "ServiceAccount", "Role", "RoleBinding"):
        assert f"  {kind} chart:ns/{kind.lower()}: stand-in" in text


def _hook() -> dict:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    return next(h for h in hooks if h["id"] == "gpupool-validate")


def _run_hook(files: list[Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    entry = shlex.split(_hook()["entry"])
    exe = shutil.which(entry[0], path=str(Path(sys.executable).parent)) or shutil.which(entry[0])
    assert exe, f"{entry[0]} is not installed beside {sys.executable}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}  # this checkout's package first, as the hook's venv
    return subprocess.run([exe, *entry[1:], *map(str, files)], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_hook_selects_stack_files_only():
    import re

    pattern = re.compile(_hook()["files"])
    assert pattern.search("stacks/Pulumi.dev.yaml") and pattern.search("Pulumi.prod.yaml")
    assert not pattern.search("Pulumi.yaml") and not pattern.search("stacks/values.yaml")


def test_the_hook_passes_good_stack_files_and_fails_a_bad_one_with_its_place(temp_project):
    good = [ROOT / "stacks" / "Pulumi.dev.yaml", ROOT / "stacks" / "Pulumi.prod.yaml"]
    done = _run_hook(good, ROOT)
    assert done.returncode == 0, done.stderr
    project = temp_project("bad", BAD_EFFECT)
    done = _run_hook([*good, project / "stacks" / "Pulumi.bad.yaml"], project)
    assert done.returncode == 2
    assert f"stacks/Pulumi.bad.yaml:{TYPO_LINE}:" in done.stderr and "NoScheduel" in done.stderr
    assert done.stderr.startswith("1 error in Pulumi.bad.yaml")
    assert "Pulumi.dev.yaml" not in done.stderr


def test_quiet_on_render_policy_pack_and_schema(tmp_path, capsys):
    assert main(["render", "--stack", "dev", "--project-dir", str(ROOT), "--out", str(tmp_path / "r"), "-q"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and "file(s) for stack 'dev'" in out[0]
    assert main(["policy-pack", "--out", str(tmp_path / "p"), "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith("policy pack in ")
    assert main(["schema", "--out", str(tmp_path / "s.json"), "--quiet"]) == 0
    assert capsys.readouterr().out == "" and (tmp_path / "s.json").is_file()
