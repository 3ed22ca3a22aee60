"""The console script ends without the interpreter's teardown: what it wrote must all be there, the
exit code be main()'s, and no temporary file or directory be left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GPUPOOL = [sys.executable, "-c", "from gpu_node_pool.cli import main_exit; main_exit()"]


def _run(args: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, TMPDIR=str(tmp), PYTHONPATH=str(ROOT / "components"))
    return subprocess.run([*GPUPOOL, *args], cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)


def test_a_plan_written_to_a_pipe_arrives_whole_and_leaves_no_temporary_files(tmp_path):
    done = _run(["plan", "--stack", "dev", "--json"], tmp_path)
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)  # the whole document, not a truncated buffer
    assert plan["pools"] and len(done.stdout) > 8192  # more than one pipe buffer's worth
    assert list(tmp_path.iterdir()) == []


def test_an_invalid_stack_ends_with_exit_2_and_its_message(tmp_path):
    done = _run(["validate", "--file", str(tmp_path / "missing.yaml")], tmp_path)
    assert done.returncode == 2
    assert "missing.yaml" in done.stderr
