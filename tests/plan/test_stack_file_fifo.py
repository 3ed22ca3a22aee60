"""The stack file and ``Pulumi.yaml`` are read through the one safe reader (``sdk/files.py``'s ``open_input``): what
is opened is what is judged, so a FIFO named ``Pulumi.<stack>.yaml`` (or ``Pulumi.yaml``), even one swapped in
after a path-level check saw a regular file, is refused at once with exit 2, never waited on. Each run is a
subprocess with a timeout: a read that blocks on the FIFO fails the test instead of hanging the suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import ROOT

ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "components"), os.environ.get("PYTHONPATH", "")]))

#: Run before the command in the child: ``Path.is_file`` says "a regular file" for the FIFOs, as a check made a moment
#: before the FIFO was swapped in would; a reader that trusts such a check then blocks on the FIFO.
RACE = textwrap.dedent("""
    import pathlib
    _is_file = pathlib.Path.is_file
    pathlib.Path.is_file = lambda self, *a, **k: self.name in NAMES or _is_file(self, *a, **k)
""")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "Pulumi.yaml").write_text("name: gpu-node-pools\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    os.mkfifo(tmp_path / "Pulumi.fifo.yaml")
    return tmp_path


def gpupool(argv: list[str], race: tuple[str, ...] = (), prelude: str = "") -> tuple[int, str, str]:
    """``gpupool <argv>`` in a child Python, with :data:`RACE` for the file names in ``race`` and ``prelude`` run
    first; at most 20 s."""
    code = (f"NAMES = {race!r}\n" + (RACE if race else "") + prelude
            + f"import sys\nfrom gpu_node_pool.cli.commands import main\nsys.exit(main({argv!r}))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=20)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("race", [(), ("Pulumi.fifo.yaml",)], ids=["fifo", "fifo-swapped-in-after-a-check"])
def test_a_fifo_named_as_the_stack_file_is_refused_at_once_naming_what_it_is_and_the_fix(project, race):
    code, out, err = gpupool(["validate", "--stack", "fifo", "--project-dir", str(project), "--json"], race)
    assert code == 2, err
    [error] = json.loads(out)["configErrors"]
    assert error["path"] == "--stack"
    assert error["message"] == (
        f"--stack {project / 'Pulumi.fifo.yaml'}: is a FIFO (named pipe), not a regular file: reading one waits until "
        "something writes to it, so nothing was read; the stack file of --stack fifo must be a regular YAML file: put "
        "the stack's config there, or give another stack (stacks here: dev" + (", fifo)" if race else ")"))


def test_plan_refuses_it_in_text_with_exit_2(project):
    code, _, err = gpupool(["plan", "--stack", "fifo", "--project-dir", str(project)], ("Pulumi.fifo.yaml",))
    assert code == 2 and "is a FIFO (named pipe), not a regular file" in err and "Traceback" not in err, err


def test_a_fifo_swapped_in_for_pulumi_yaml_is_refused_at_once(project):
    (project / "Pulumi.yaml").unlink()
    os.mkfifo(project / "Pulumi.yaml")
    code, _, err = gpupool(["validate", "--stack", "dev", "--project-dir", str(project)], ("Pulumi.yaml",))
    assert code == 2, err
    assert f"{project / 'Pulumi.yaml'}: is a FIFO (named pipe), not a regular file" in err
    assert "make Pulumi.yaml the project's YAML file" in err and "Traceback" not in err


def test_validate_file_reads_the_stack_file_it_checked_with_the_same_reader(project):
    # validate --file checks the path first; the FIFO comes after that check (the check is made to pass)
    passed = "import gpu_node_pool.sdk.files as files\nfiles.check_input = lambda *a, **k: None\n"
    code, out, err = gpupool(["validate", "--file", str(project / "Pulumi.fifo.yaml"), "--json"], prelude=passed)
    assert code == 2, err
    assert "is a FIFO (named pipe), not a regular file" in json.loads(out)["configErrors"][0]["message"]


def test_a_symbolic_link_to_nothing_is_named_as_one_with_the_stacks_there(project, capsys):
    from gpu_node_pool.cli.commands import main

    (project / "Pulumi.gone.yaml").symlink_to(project / "nowhere.yaml")
    code = main(["validate", "--stack", "gone", "--project-dir", str(project)])
    err = capsys.readouterr().err
    assert code == 2
    assert (f"{project / 'Pulumi.gone.yaml'} is a symbolic link to nothing (a broken symbolic link), not a stack file; "
            "stacks here: dev") in err, err


def test_a_missing_stack_file_keeps_its_message(project, capsys):
    from gpu_node_pool.cli.commands import main

    code = main(["validate", "--stack", "nope", "--project-dir", str(project)])
    err = capsys.readouterr().err
    assert code == 2 and f"no stack file {project / 'Pulumi.nope.yaml'}; stacks here: dev" in err, err
