"""A program error is placed at the program's line, never inside a library in the project's own ``venv/``."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main
from gpu_node_pool.sdk.registration_sites import installed_code

#: What Pulumi's ``Config.require`` does when the key is missing, from a module installed in the project's venv.
LIBRARY = '''\
class ConfigMissingError(Exception):
    pass


def require(key):
    raise ConfigMissingError(f"Missing required configuration variable 'demo:{key}'")
'''

PROGRAM = '''\
import sys, pathlib
sys.path.insert(0, str(pathlib.Path(__file__).parent / "venv/lib/python3.11/site-packages"))
import fakeconfig
fakeconfig.require("clusterName")
'''


def _project(temp_project) -> Path:
    project = temp_project("dev", (ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    site = project / "venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (site / "fakeconfig.py").write_text(LIBRARY)
    (project / "__main__.py").write_text(PROGRAM)
    return project


@pytest.mark.parametrize("command", ["plan", "check"])
def test_an_error_raised_in_the_projects_venv_is_placed_at_the_programs_line(capsys, temp_project, command):
    project = _project(temp_project)
    code = main([command, "--stack", "dev", "--project-dir", str(project)])
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert "__main__.py:4:1: the program raised ConfigMissingError: Missing required configuration" in out + err
    assert "fakeconfig.py" not in out + err and "venv/lib" not in out + err


def test_installed_code_is_site_packages_a_virtualenv_or_the_interpreters_prefix(tmp_path):
    import sys

    (tmp_path / ".venv" / "src").mkdir(parents=True)
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / "lib").mkdir()
    assert installed_code(tmp_path / "venv/lib/python3.11/site-packages/pulumi/config.py", tmp_path)
    assert installed_code(tmp_path / "x/dist-packages/m.py", tmp_path)
    assert installed_code(tmp_path / ".venv/src/editable.py", tmp_path)  # below a folder holding pyvenv.cfg
    assert installed_code(Path(sys.prefix) / "lib" / "anything.py", tmp_path)
    assert not installed_code(tmp_path / "__main__.py", tmp_path)
    assert not installed_code(tmp_path / "lib" / "helpers.py", tmp_path)  # the program's own package
    assert not installed_code("<string>", tmp_path)
    # a project that itself lives in a site-packages folder keeps its own files
    project = tmp_path / "site-packages" / "proj"
    assert not installed_code(project / "__main__.py", project)
