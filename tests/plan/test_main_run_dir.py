"""``main: src/`` in ``Pulumi.yaml``: ``gpupool check`` runs the program and reads its relative manifest paths in
the directory Pulumi runs it in (pulumi/pulumi pkg/engine/project.go@v3.259.0 getPwdMain), not the project
directory; a malformed v2 glob is the error a real preview gives; a program error's SARIF log is rooted at the
project directory from any current directory."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "expand"))

from conftest import ROOT  # noqa: E402
from test_chart_value_assets import check, team_project  # noqa: E402
from test_path_typos import MANIFEST  # noqa: E402

from gpu_node_pool.cli.commands import main  # noqa: E402


def _in_src(tmp_path: Path, line: str) -> Path:
    """The team project with its program moved to ``src/`` and ``main: src/``."""
    project = team_project(tmp_path, line)
    (project / "src").mkdir()
    (project / "__main__.py").rename(project / "src" / "__main__.py")
    (project / "Pulumi.yaml").write_text("name: team-gpu\nruntime:\n  name: python\nmain: src/\n")
    return project


GROUP = 'k8s.yaml.v2.ConfigGroup("extra", files=["manifests/agent.yaml"])'


def test_a_manifest_next_to_a_main_directory_program_is_judged(capsys, tmp_path):
    project = _in_src(tmp_path, GROUP)
    (project / "src" / "manifests").mkdir()
    (project / "src" / "manifests" / "agent.yaml").write_text(MANIFEST)
    code, doc = check(capsys, project)
    assert doc["configErrors"] == [] and doc["notJudged"] == []
    assert "kubernetes:apps/v1:DaemonSet extra:monitoring/agent" in {  # judged: the agent lands on GPU nodes
        v["resource"] for v in doc["violations"] if v["enforcement"] == "mandatory"}
    assert code == 1


def test_a_manifest_only_at_the_project_root_is_refused_naming_the_run_directory(capsys, tmp_path):
    project = _in_src(tmp_path, GROUP)
    (project / "manifests").mkdir()
    (project / "manifests" / "agent.yaml").write_text(MANIFEST)
    code, doc = check(capsys, project)
    assert code == 2
    [error] = doc["configErrors"]
    assert error["path"] == "kubernetes:yaml/v2:ConfigGroup 'extra' files[0]"
    assert error["message"].startswith(f"'manifests/agent.yaml' names no file ({project / 'src' / 'manifests' / 'agent.yaml'})")
    assert f"relative to the directory Pulumi runs the program in ({project / 'src'})" in error["message"]
    assert error["location"]["file"] == "src/__main__.py"  # still relative to the project directory


def test_the_program_runs_in_its_main_directory(capsys, tmp_path):
    project = _in_src(tmp_path, 'pulumi.export("note", open("note.txt").read())')
    (project / "src" / "note.txt").write_text("from src")
    code, doc = check(capsys, project)
    assert doc["configErrors"] == [] and code == 0


def test_a_malformed_glob_is_refused_as_gos_filepath_glob_refuses_it(capsys, tmp_path):
    project = team_project(tmp_path, 'k8s.yaml.v2.ConfigGroup("extra", files=["[bad"])')
    code, doc = check(capsys, project)
    assert code == 2 and doc["notJudged"] == []
    [error] = doc["configErrors"]
    assert error["path"] == "kubernetes:yaml/v2:ConfigGroup 'extra' files[0]"
    assert error["message"].startswith("'[bad' is a malformed glob pattern (the character class at '[bad' is never "
                                       "closed with ])")
    assert "syntax error in pattern" in error["message"] and "escape a literal" in error["message"]


def test_a_well_formed_glob_matching_nothing_stays_not_judged(capsys, tmp_path):
    project = team_project(tmp_path, 'k8s.yaml.v2.ConfigGroup("extra", files=["[a-z]*.yml"])')
    code, doc = check(capsys, project)
    assert doc["configErrors"] == []
    [item] = doc["notJudged"]
    assert "matches no file (relative to the directory Pulumi runs the program in" in item["reason"]


def test_a_plan_program_error_in_sarif_is_rooted_at_the_project_from_another_directory(capsys, tmp_path, monkeypatch):
    project = tmp_path / "x" / "r"
    shutil.copytree(ROOT / "examples" / "violating", project)
    program = project / "__main__.py"
    program.write_text(program.read_text() + '\nraise ValueError("quota exceeded")\n')
    line = len(program.read_text().splitlines())
    monkeypatch.chdir(tmp_path)
    code = main(["plan", "--stack", "demo", "--project-dir", str(project), "--format", "sarif"])
    run = json.loads(capsys.readouterr().out)["runs"][0]
    assert code == 2
    assert run["originalUriBaseIds"]["PROJECTROOT"]["uri"] == project.resolve().as_uri() + "/"
    [result] = run["results"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "__main__.py", "uriBaseId": "PROJECTROOT"}
    assert location["region"]["startLine"] == line


def _shipped_project_with_main(tmp_path: Path, main_line: str) -> Path:
    """This repository's project (its program and dev stack) with ``main_line`` added to ``Pulumi.yaml``."""
    project = tmp_path / "p"
    (project / "stacks").mkdir(parents=True)
    shutil.copy(ROOT / "stacks" / "Pulumi.dev.yaml", project / "stacks")
    (project / "src").mkdir()
    shutil.copy(ROOT / "__main__.py", project / "src" / "__main__.py")
    (project / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text() + main_line + "\n")
    return project


def test_plan_runs_the_program_main_names(capsys, tmp_path):
    project = _shipped_project_with_main(tmp_path, "main: src/")
    assert main(["plan", "--stack", "dev", "--project-dir", str(project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pools"]


def test_plan_of_a_main_that_names_no_program_is_refused_at_main(capsys, tmp_path):
    project = _shipped_project_with_main(tmp_path, "main: app/")
    assert main(["plan", "--stack", "dev", "--project-dir", str(project)]) == 2
    out = "".join(capsys.readouterr())
    assert "Pulumi.yaml:" in out and "main: 'app/' names no program" in out and str(project / "app") in out
