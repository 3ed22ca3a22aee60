"""Behaviour kept across the architecture move: every shipped stack's plan and render equal the
baseline recorded before it, compared semantically.

``tests/data/baseline/`` holds ``gpupool plan --json`` of each stack in ``stacks/`` and of
``examples/violating`` (stack ``demo``), and the files ``gpupool render`` wrote, recorded on the
commit before the move. Pools are compared by name, violations as a set keyed by policy and
resource, resources by (type, name) — registration order under Pulumi is concurrent and not
part of the contract. A later change that alters the report on purpose updates the baseline in
the same commit and says why. The plan opens the stacks' charts with Helm, so without a
``helm`` (on ``PATH`` or beside the venv's python) these tests skip with that reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main
from gpu_node_pool.plan import plan_stack, to_json
from gpu_node_pool.plan.expand import locate_helm

BASELINE = ROOT / "tests" / "data" / "baseline"
pytestmark = pytest.mark.skipif(
    locate_helm() is None, reason="no helm on PATH or beside the venv's python (make setup installs it); the baseline was recorded with charts rendered"
)
CASES = [(s, ROOT) for s in ("dev", "prod", "gke-dev", "onprem")] + [("demo", ROOT / "examples" / "violating")]


def _key(doc: dict) -> dict:
    return {
        "exitCode": doc["exitCode"],
        "configErrors": sorted(json.dumps(e, sort_keys=True) for e in doc["configErrors"]),
        "pools": {p["name"]: p for p in doc["pools"]},
        "devicePlugin": doc["devicePlugin"],
        "violations": sorted(json.dumps(v, sort_keys=True) for v in doc["violations"]),
        "resources": {(r["type"], r["name"]): r for r in doc["resources"]},
        "outputs": doc["outputs"],
    }


@pytest.mark.parametrize(("stack", "project"), CASES, ids=[c[0] for c in CASES])
def test_plan_json_equals_the_baseline(stack, project):
    name = "violating" if stack == "demo" else stack
    want = json.loads((BASELINE / f"plan-{name}.json").read_text())
    got = json.loads(json.dumps(to_json(plan_stack(stack, project)), default=str))
    want_k, got_k = _key(want), _key(got)
    assert got_k["pools"] == want_k["pools"]
    assert got_k["violations"] == want_k["violations"]
    assert got_k["devicePlugin"] == want_k["devicePlugin"]
    assert got_k["exitCode"] == want_k["exitCode"]
    assert got_k["resources"].keys() == want_k["resources"].keys()
    assert got_k == want_k


@pytest.mark.parametrize("stack", ["dev", "prod", "onprem"])
def test_render_writes_the_baseline_files(stack, tmp_path: Path):
    out = tmp_path / stack
    assert main(["render", "--stack", stack, "--out", str(out), "--project-dir", str(ROOT)]) == 0
    want_dir = BASELINE / f"render-{stack}"
    want = {p.relative_to(want_dir).as_posix(): p.read_text() for p in want_dir.rglob("*") if p.is_file()}
    got = {p.relative_to(out).as_posix(): p.read_text() for p in out.rglob("*") if p.is_file()}
    assert got == want


def test_a_project_of_another_name_gets_its_urns_and_the_stack_files_lines(tmp_path):
    # the URNs carry the project's own name; the stack file's keys are found in the component's namespace
    import shutil

    shutil.copytree(ROOT / "examples" / "violating", tmp_path / "p")
    result = plan_stack("demo", tmp_path / "p")
    assert all("::gpu-node-pools-violating-example::" in r.urn for r in result.resources if r.urn)
    located = {v["policy"]: v.get("location") for v in result.violations if "training" in v.get("resource", "")}
    assert located["noexecute-gpu-taint"] == {"file": "Pulumi.demo.yaml", "line": 12, "column": 7}
    stack = tmp_path / "p" / "Pulumi.demo.yaml"
    stack.write_text(stack.read_text().replace("gpu=present:NoSchedule", "gpu=present:NoSchedul", 1))
    (issue,) = plan_stack("demo", tmp_path / "p").config_issues
    assert (issue.location.line, issue.location.column) == (20, 11)  # the effect's taint, not config: on line 3
