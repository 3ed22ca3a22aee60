"""The CI recipes of ``examples/ci/`` and the pre-commit hook, run as their CI would run them.

- Shape: each recipe is checked against its CI's published schema (SchemaStore's
  ``github-workflow.json`` and ``gitlab-ci.json``, as vendored by ``check-jsonschema``), and
  ``.pre-commit-hooks.yaml`` against pre-commit's own manifest schema (``pre_commit.clientlib``).
- Commands: every ``run:`` step of the workflow and every ``script`` line of the GitLab job is
  executed by ``bash -e`` in a copy of this project, with the recipe's variables, the ``gpupool``
  of this environment on ``PATH`` and this checkout's package first on ``PYTHONPATH``. The install
  step (``pip install "$GPUPOOL_INSTALL"``, a git URL) is the one line not run: it needs the network
  and a published commit; ``tests/package/test_wheel.py`` installs the built wheel instead.
- The hook: ``pre-commit try-repo`` builds a virtualenv and pip-installs the repository into it
  (network, minutes). Offline, the real ``pre-commit run`` is driven with the manifest's own
  ``entry``, ``files`` and ``pass_filenames`` as a ``repo: local`` hook of ``language: system``
  (the ``gpupool`` already installed), in a scratch git repository: pre-commit selects the changed
  stack files and passes them, as it does for a user.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml
from conftest import ROOT

CI = ROOT / "examples" / "ci"
GITHUB = CI / "github-actions.yml"
GITLAB = CI / "gitlab-ci.yml"
SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif" / "sarif-2.1.0-minimal.schema.json").read_text())
BIN = Path(sys.executable).parent
GPUPOOL = shutil.which("gpupool", path=str(BIN)) or shutil.which("gpupool")
needs_gpupool = pytest.mark.skipif(GPUPOOL is None, reason="the gpupool console script is not installed (make setup)")
#: A misspelt effect on the dev stack's pool taint (a config error the recipes must stop on).
BAD_DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text().replace("present:NoSchedule", "present:NoScheduel", 1)


def _workflow() -> dict:
    doc = yaml.safe_load(GITHUB.read_text())
    doc["on"] = doc.pop(True, doc.get("on"))  # YAML 1.1 reads the key `on` as true
    return doc


def _gitlab_job() -> dict:
    return yaml.safe_load(GITLAB.read_text())["gpupool"]


def _schema_check(schema: str, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)],
                          capture_output=True, text=True, timeout=120, check=False)


def _project(tmp_path: Path, dev: str | None = None) -> Path:
    """A copy of this Pulumi project, as a CI checkout of it would be."""
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", tmp_path / "__main__.py")
    shutil.copytree(ROOT / "stacks", tmp_path / "stacks")
    if dev is not None:
        (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text(dev)
    return tmp_path


def _env(variables: dict) -> dict[str, str]:
    path = os.pathsep.join([str(BIN), os.environ.get("PATH", "")])
    return {**os.environ, **{k: str(v) for k, v in variables.items()}, "PATH": path,
            "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}


def _run_lines(lines: list[str], cwd: Path, variables: dict) -> list[subprocess.CompletedProcess[str]]:
    """Run each command as its CI does (a failing line ends the job); returns the runs made."""
    done = []
    for line in lines:
        if "$GPUPOOL_INSTALL" in line:
            continue  # the install from a git URL: see the module docstring
        done.append(subprocess.run(["bash", "-e", "-c", line], cwd=cwd, env=_env(variables), capture_output=True,
                                   text=True, timeout=300, check=False))
        if done[-1].returncode:
            break
    return done


# --- shape ----------------------------------------------------------------------------------------


def test_the_github_workflow_matches_the_published_workflow_schema():
    done = _schema_check("vendor.github-workflows", GITHUB)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_gitlab_job_matches_the_published_gitlab_ci_schema():
    done = _schema_check("vendor.gitlab-ci", GITLAB)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_schema_check_fails_a_broken_workflow(tmp_path):
    broken = _workflow()
    broken["jobs"]["gpupool"]["steps"][0]["run"] = "echo both uses and run"
    del broken["jobs"]["gpupool"]["runs-on"]
    (tmp_path / "w.yml").write_text(yaml.safe_dump(broken))
    assert _schema_check("vendor.github-workflows", tmp_path / "w.yml").returncode != 0


def test_the_workflow_uploads_the_sarif_file_the_plan_writes():
    doc = _workflow()
    assert "pull_request" in doc["on"]
    assert doc["permissions"]["security-events"] == "write"  # upload-sarif needs it
    steps = doc["jobs"]["gpupool"]["steps"]
    upload = next(s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@"))
    plan = next(s for s in steps if "--format sarif" in s.get("run", ""))
    assert plan["run"].rstrip().endswith(f"> {upload['with']['sarif_file']}")
    assert "always()" in upload["if"]  # a failed plan (exit 1 or 2) still shows its findings
    assert steps.index(plan) < steps.index(upload)
    assert any("gpupool check" in s.get("run", "") for s in steps)


def test_the_gitlab_job_keeps_the_sarif_file_whatever_the_exit():
    job = _gitlab_job()
    plan = next(line for line in job["script"] if "--format sarif" in line)
    assert plan.endswith("> gpupool.sarif") and job["artifacts"]["paths"] == ["gpupool.sarif"]
    assert job["artifacts"]["when"] == "always"


def test_the_hook_manifest_is_valid_for_pre_commit():
    from pre_commit.clientlib import load_manifest

    (hook,) = load_manifest(ROOT / ".pre-commit-hooks.yaml")
    assert hook["id"] == "gpupool-validate" and hook["entry"].startswith("gpupool validate")


# --- the commands the recipes run ---------------------------------------------------------------


def _github_lines() -> tuple[list[str], dict]:
    doc = _workflow()
    return [s["run"] for s in doc["jobs"]["gpupool"]["steps"] if "run" in s], dict(doc["env"])


def _gitlab_lines() -> tuple[list[str], dict]:
    job = _gitlab_job()
    return [*job["before_script"], *job["script"]], dict(job["variables"])


RECIPES = {"github": _github_lines, "gitlab": _gitlab_lines}


@needs_gpupool
@pytest.mark.parametrize("recipe", RECIPES)
def test_the_recipe_commands_pass_on_the_clean_stack_and_write_a_valid_sarif_log(tmp_path, recipe):
    lines, variables = RECIPES[recipe]()
    project = _project(tmp_path)
    done = _run_lines(lines, project, variables)
    assert len(done) == len(lines) - 1, "every command but the install ran"
    assert [d.returncode for d in done] == [0] * len(done), [d.stderr for d in done]
    log = json.loads((project / "gpupool.sarif").read_text())
    jsonschema.Draft202012Validator(SARIF_SCHEMA).validate(log)
    assert log["runs"][0]["results"] == []


@needs_gpupool
@pytest.mark.parametrize("recipe", RECIPES)
def test_the_recipe_stops_on_a_config_error_and_names_its_line(tmp_path, recipe):
    lines, variables = RECIPES[recipe]()
    typo_line = next(i for i, line in enumerate(BAD_DEV.splitlines(), 1) if "NoScheduel" in line)
    project = _project(tmp_path, BAD_DEV)
    done = _run_lines(lines, project, variables)
    assert done[0].returncode == 2  # gpupool validate: the job fails here, exit 2
    assert f"stacks/Pulumi.dev.yaml:{typo_line}:" in done[0].stderr and "NoScheduel" in done[0].stderr
    # the SARIF step alone, as GitHub's upload would still receive it
    sarif_line = next(line for line in lines if "--format sarif" in line)
    (plan,) = _run_lines([sarif_line], project, variables)
    assert plan.returncode == 2
    (result,) = json.loads((project / "gpupool.sarif").read_text())["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]
    assert region["artifactLocation"]["uri"] == "stacks/Pulumi.dev.yaml"
    assert region["region"]["startLine"] == typo_line


# --- the pre-commit hook, through pre-commit itself ------------------------------------------------


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=cwd, check=True,
                   capture_output=True, timeout=60)


@needs_gpupool
@pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git, which is not installed")
def test_pre_commit_runs_the_hook_on_the_changed_stack_files(tmp_path):
    hook = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())[0]
    local = {**{k: hook[k] for k in ("id", "name", "entry", "files", "pass_filenames")}, "language": "system"}
    (tmp_path / "repo").mkdir()
    project = _project(tmp_path / "repo")
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]}))
    _git(project, "init", "-q")
    _git(project, "add", ".")
    env = {**_env({}), "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}

    def run(*files: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pre_commit", "run", "gpupool-validate", "--files", *files],
                              cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False)

    done = run("stacks/Pulumi.dev.yaml", "Pulumi.yaml")  # Pulumi.yaml is not a stack file: not passed
    assert done.returncode == 0 and "Passed" in done.stdout, done.stdout + done.stderr
    (project / "stacks" / "Pulumi.dev.yaml").write_text(BAD_DEV)
    done = run("stacks/Pulumi.dev.yaml")
    assert done.returncode == 1 and "Failed" in done.stdout  # pre-commit's own code for a failing hook
    assert "stacks/Pulumi.dev.yaml:" in done.stdout and "NoScheduel" in done.stdout
