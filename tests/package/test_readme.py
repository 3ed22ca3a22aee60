"""The README stays true: its Python blocks run as written (under Pulumi mocks), and its shell blocks marked
``<!-- runnable -->`` run against a copy of the repository with the exit codes they state."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from gpu_node_pool.plan import record

README = (ROOT / "README.md").read_text()
SNIPPETS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_readme_has_the_two_commands_and_ci_runs_the_test_one():
    assert "make plan STACK=dev" in README
    assert "make test" in README
    ci = (ROOT / ".ci" / "run").read_text()
    assert "\nmake test\n" in ci


def test_component_snippet_registers_the_pool_and_the_plugin():
    assert len(SNIPPETS) >= 2
    resources, outputs = record(lambda: exec(SNIPPETS[0], {"__name__": "__main__"}))
    types = {(r.type, r.name) for r in resources}
    assert ("aws:eks/nodeGroup:NodeGroup", "vision-node-group") in types
    assert ("kubernetes:helm.sh/v4:Chart", "nvidia-device-plugin-chart") in types
    assert outputs["vision.tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
        {"key": "team", "operator": "Equal", "value": "vision", "effect": "NoSchedule"},
    ]


def test_taint_snippet_runs():
    exec(SNIPPETS[1], {"__name__": "__main__"})


# --- the shell blocks marked runnable, run against a copy of the repository -----------------------

#: ``<!-- runnable -->`` on the line before a ```` ```sh ```` block: every command in it runs as written.
RUNNABLE = re.findall(r"<!-- runnable -->\n```sh\n(.*?)```", README, flags=re.S)
#: A trailing ``# ...: exit N`` states the command's exit code (default 0).
EXPECTED_EXIT = re.compile(r"#[^#]*:\s*exit (\d+)\s*$")
BIN = Path(sys.executable).parent


def _commands(block: str) -> list[tuple[str, int]]:
    commands = []
    for line in block.replace("\\\n", " ").splitlines():
        if not line.strip():
            continue
        expected = EXPECTED_EXIT.search(line)
        commands.append((line, int(expected.group(1)) if expected else 0))
    return commands


def test_the_readme_marks_its_runnable_blocks_and_each_names_gpupool():
    assert len(RUNNABLE) >= 4
    assert all(cmd.split()[0] == "gpupool" for block in RUNNABLE for cmd, _ in _commands(block))


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """The files the README's commands read, copied: they write their outputs (plan.json...) there."""
    work = tmp_path_factory.mktemp("readme")
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(ROOT / name, work / name)
    for name in ("stacks", "examples", "policy"):
        shutil.copytree(ROOT / name, work / name)
    return work


@pytest.mark.skipif(shutil.which("gpupool", path=str(BIN)) is None and shutil.which("gpupool") is None,
                    reason="the gpupool console script is not installed (make setup)")
@pytest.mark.parametrize("block", RUNNABLE, ids=[b.split("\n", 1)[0][:40] for b in RUNNABLE])
def test_a_runnable_block_runs_as_the_readme_says(checkout, block):
    env = {**os.environ, "PATH": os.pathsep.join([str(BIN), os.environ.get("PATH", "")]),
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    for command, expected in _commands(block):
        done = subprocess.run(["bash", "-c", command], cwd=checkout, env=env, capture_output=True, text=True,
                              timeout=300, check=False)
        assert done.returncode == expected, f"{command}\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        for word in shlex.split(command, comments=True):  # what it says it writes, it wrote
            if word.endswith((".json", ".sarif", ".bash")) and ">" in command.split(word)[0][-3:]:
                assert (checkout / word).stat().st_size > 0, word


def test_every_python_block_runs_under_mocks():
    """Each ```python block of the README runs as written, under Pulumi mocks (a block that registers
    nothing, like the taint one, checks itself with its own asserts); the tests above check what the
    first two register."""
    assert len(SNIPPETS) >= 3
    for snippet in SNIPPETS:
        record(lambda snippet=snippet: exec(snippet, {"__name__": "__main__"}))
