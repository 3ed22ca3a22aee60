"""A manifest path that names a FIFO (or another file that is no regular file) is read through the one safe opener
(``sdk/files.py``'s ``open_input``) and refused at once, as a missing manifest is: an error at the component's input,
exit 2, saying what the path is and the fix; never waited on. Each run is a subprocess with a timeout: a read that
blocks on the FIFO fails the test instead of hanging the suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import ROOT
from test_chart_value_assets import team_project
from test_path_typos import MANIFEST

ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "components"), str(ROOT / "tests"),
                                                  os.environ.get("PYTHONPATH", "")]))
FIFO_SAYS = ("is a FIFO (named pipe), not a regular file: reading one waits until something writes to it, so nothing "
             "was read")


def check(project: Path) -> tuple[int, dict]:
    """``gpupool check --json`` of ``project`` in a child Python, at most 20 s."""
    code = ("import sys\nfrom gpu_node_pool.cli.commands import main\n"
            f"sys.exit(main(['check', '--project-dir', {str(project)!r}, '--stack', 'ci', '--json']))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=20)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize(("line", "path"), [
    ('k8s.yaml.v2.ConfigFile("extra", file="manifests/agent.yaml")', "kubernetes:yaml/v2:ConfigFile 'extra' file"),
    ('k8s.yaml.v2.ConfigGroup("extra", files=["manifests/agent.yaml"])',
     "kubernetes:yaml/v2:ConfigGroup 'extra' files[0]"),
    ('k8s.yaml.v2.ConfigGroup("extra", files=["manifests/*.yaml"])', "kubernetes:yaml/v2:ConfigGroup 'extra' files[0]"),
], ids=["v2-config-file", "v2-config-group-path", "v2-config-group-glob"])
def test_a_v2_manifest_that_is_a_fifo_is_an_error_at_its_input_naming_what_it_is_and_the_fix(tmp_path, line, path):
    project = team_project(tmp_path, line)
    (project / "manifests").mkdir()
    os.mkfifo(project / "manifests" / "agent.yaml")
    code, doc = check(project)
    assert code == 2
    [error] = doc["configErrors"]
    assert error["path"] == path
    # the path as written, or the glob's match relative to the run directory
    assert error["message"].startswith(f"'manifests/agent.yaml' ({project / 'manifests' / 'agent.yaml'}) {FIFO_SAYS}. "), error
    assert "so a real `pulumi preview` hangs or fails on it" in error["message"]
    assert "provider/pkg/provider/yaml/v2/yaml.go@v4.32.0" in error["message"]
    assert error["message"].endswith(f"Give the path of the manifest's regular file, relative to the directory Pulumi "
                                     f"runs the program in ({project})")
    assert error["location"] == {"file": "__main__.py", "line": 11, "column": 1}


def test_a_v1_config_file_that_is_a_fifo_is_an_error_at_its_file_not_a_hung_program(tmp_path):
    project = team_project(tmp_path, 'k8s.yaml.ConfigFile("agent", file="manifests/agent.yaml")')
    (project / "manifests").mkdir()
    os.mkfifo(project / "manifests" / "agent.yaml")
    code, doc = check(project)
    assert code == 2
    [error] = doc["configErrors"]
    assert error["path"] == "kubernetes:yaml:ConfigFile 'agent' file"
    assert error["message"].startswith(f"'manifests/agent.yaml' ({project / 'manifests' / 'agent.yaml'}) {FIFO_SAYS}. "
                                       "A v1 ConfigFile reads its file in the program with Python's open()"), error
    assert "sdk/python/pulumi_kubernetes/yaml/yaml.py@v4.34.2" in error["message"]
    assert "Give file the path of the manifest's regular file" in error["message"]


def test_a_v1_config_file_that_is_a_regular_file_is_still_judged(tmp_path):
    project = team_project(tmp_path, 'k8s.yaml.ConfigFile("agent", file="manifests/agent.yaml")')
    (project / "manifests").mkdir()
    (project / "manifests" / "agent.yaml").write_text(MANIFEST)
    code, doc = check(project)
    assert doc["configErrors"] == [] and doc["notJudged"] == []
    assert any("DaemonSet" in v["resource"] and "agent" in v["resource"] for v in doc["violations"]), doc["violations"]
    assert code == 1


def test_a_local_charts_chart_yaml_that_is_a_fifo_is_not_waited_on(tmp_path):
    (tmp_path / "chart").mkdir()
    os.mkfifo(tmp_path / "chart" / "Chart.yaml")
    # Path.is_file says "a regular file" for it, as a check made a moment before the FIFO was swapped in would
    probe = textwrap.dedent(f"""
        import pathlib
        _is_file = pathlib.Path.is_file
        pathlib.Path.is_file = lambda self: self.name == "Chart.yaml" or _is_file(self)
        from gpu_node_pool.expand.helm import _local_chart_version, _Source
        print(_local_chart_version(_Source({str(tmp_path / 'chart')!r}, local=True)))
    """)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=ENV, timeout=20)
    assert done.stdout.strip() == "None", done.stderr
