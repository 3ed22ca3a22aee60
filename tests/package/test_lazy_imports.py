"""What the plan imports only when it needs it, checked in a fresh interpreter.

``offline_yaml`` patches ``pulumi_kubernetes.yaml.yaml`` (no remote v1 ``ConfigFile`` fetched)
when the program imports it, instead of importing it (and ``requests``) for every plan. The
``audit`` sub-command's run and analysis modules load only when ``gpupool audit`` runs. The
instance catalog is built on its first lookup, not when the CLI is imported.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

from gpu_node_pool.plan.on_import import when_imported

COMPONENTS = Path(__file__).resolve().parents[2] / "components"
PROBE = """
import io, json, sys, contextlib
from gpu_node_pool.cli import main
before = set(sys.modules)
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "out": out.getvalue(), "modules": sorted(set(sys.modules)),
                  "before": sorted(before)}))
"""


def _project(tmp_path: Path, extra: str) -> Path:
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "Pulumi.dev.yaml", tmp_path / "stacks" / "Pulumi.dev.yaml")
    (tmp_path / "__main__.py").write_text("from gpu_node_pool.component.program import main\n\nmain()\n" + extra)
    return tmp_path


def _fresh(*argv: str, cwd: Path | None = None) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(COMPONENTS), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, env=env, check=True,
                          cwd=cwd)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _plan(directory: Path) -> dict:
    # v1 yaml reads files relative to the working directory, as pulumi runs the program
    return _fresh("plan", "--stack", "dev", "--project-dir", str(directory), "--json", cwd=directory)


def test_a_plan_of_a_program_without_v1_yaml_does_not_import_requests(tmp_path):
    run = _plan(_project(tmp_path, ""))
    assert run["code"] == 0, run["out"]
    assert "requests" not in run["modules"] and "pulumi_kubernetes.yaml.yaml" not in run["modules"]


def test_a_v1_config_file_imported_by_the_program_is_still_expanded_offline(tmp_path):
    (tmp_path / "agent.yaml").write_text(
        "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: node-agent, namespace: monitoring}\n"
        "spec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n"
        "    spec:\n      containers: [{name: a, image: example.com/a:1}]\n"
    )
    extra = ("import pulumi_kubernetes.yaml\n"
             "pulumi_kubernetes.yaml.ConfigFile('local', file='agent.yaml')\n"
             "pulumi_kubernetes.yaml.ConfigFile('remote', file='https://example.invalid/agent.yaml')\n")
    run = _plan(_project(tmp_path, extra))
    assert "pulumi_kubernetes.yaml.yaml" not in run["before"]  # imported by the program, patched then
    doc = json.loads(run["out"])
    assert any(r["type"] == "kubernetes:apps/v1:DaemonSet" and r["name"].endswith("node-agent")
               for r in doc["resources"]), [r["name"] for r in doc["resources"]]
    [item] = doc["notJudged"]  # the remote file: never fetched, reported
    assert item["type"] == "kubernetes:yaml:ConfigFile" and "remote URL" in item["reason"]
    assert item["resource"].endswith("kubernetes:yaml:ConfigFile::remote")


def test_gpupool_help_lists_audit_without_importing_it():
    run = _fresh("--help")
    assert run["code"] == 0 and "audit" in run["out"]
    assert "gpu_node_pool.cli.audit" not in run["modules"]


def test_when_imported_patches_on_first_import_and_the_hook_is_gone_after(tmp_path, monkeypatch):
    (tmp_path / "lazy_probe_mod.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    seen = []
    hooks = len(sys.meta_path)
    with when_imported("lazy_probe_mod", seen.append):
        assert seen == [] and "lazy_probe_mod" not in sys.modules
        import lazy_probe_mod
    assert seen == [lazy_probe_mod] and len(sys.meta_path) == hooks
    assert lazy_probe_mod.__spec__.loader is lazy_probe_mod.__loader__ and "ThenCall" not in repr(lazy_probe_mod.__loader__)
    monkeypatch.delitem(sys.modules, "lazy_probe_mod")


def test_importing_the_cli_program_and_policies_does_not_build_the_instance_catalog():
    code = ("import gpu_node_pool.cli.commands, gpu_node_pool.component.program, gpu_node_pool.component.pool, gpu_node_pool.gpu_agents.device_plugin, "
            "gpu_node_pool.policies\nfrom gpu_node_pool import catalog\nfrom gpu_node_pool.catalog import instances\n"
            "print(catalog._catalog.cache_info().currsize)\n"
            "print(len(instances.NVIDIA_GPU_COUNTS) > 0, catalog._catalog.cache_info().currsize)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(COMPONENTS), os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert out.split() == ["0", "True", "1"]
