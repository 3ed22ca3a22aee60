"""``gpupool check``: each item no policy could judge is about its resource, at the program line that built it, and
is listed once in the text (tests/data/foreign_project with DaemonSets whose tolerations are unknown at preview)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
from conftest import DATA
from stack_texts import PROBES

from gpu_node_pool.cli import commands as cli
from gpu_node_pool.cli.contract import report_schema

VALIDATOR = jsonschema.Draft202012Validator(report_schema())
POLICY = "daemonsets-tolerate-gpu-taints"


def probes_project(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    """The foreign project with :data:`PROBES` appended; ``{DaemonSet name: the line of its call}``."""
    project = tmp_path / "p"
    shutil.copytree(DATA / "foreign_project", project)
    main = project / "__main__.py"
    main.write_text(main.read_text() + PROBES)
    lines = main.read_text().splitlines()
    return project, {name: next(i for i, text in enumerate(lines, 1) if text.startswith(f'k8s.apps.v1.DaemonSet("{name}"'))
                     for name in ("probe-a", "probe-b")}


def test_each_daemonset_a_policy_could_not_decide_is_its_own_item_at_its_line(capsys, tmp_path):
    project, lines = probes_project(tmp_path)
    code = cli.main(["check", "--project-dir", str(project), "--stack", "ci", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert not [e.message for e in VALIDATOR.iter_errors(doc)] and code == 1
    items = [n for n in doc["notJudged"] if f"can't run policy '{POLICY}'" in n["reason"]]
    # one item per DaemonSet (not one "stack" item naming both), each at the line that built it
    assert sorted((n["resource"].rsplit("::", 1)[-1], n["type"], n["location"]["line"]) for n in items) == [
        ("probe-a", "kubernetes:apps/v1:DaemonSet", lines["probe-a"]),
        ("probe-b", "kubernetes:apps/v1:DaemonSet", lines["probe-b"])]
    assert all(n["location"]["file"] == "__main__.py" for n in items)
    assert "probe-b" not in next(n["reason"] for n in items if n["resource"].endswith("::probe-a"))
    notes = [v for v in doc["violations"] if v["policy"] == POLICY and v["message"].startswith("can't run")]
    assert sorted((v["resource"], v["location"]["line"], v["enforcement"]) for v in notes) == [
        ("kubernetes:apps/v1:DaemonSet probe-a", lines["probe-a"], "advisory"),
        ("kubernetes:apps/v1:DaemonSet probe-b", lines["probe-b"], "advisory")]
    assert all(v["urn"].endswith(("DaemonSet::probe-a", "DaemonSet::probe-b")) for v in notes)


def test_the_text_lists_each_undecided_daemonset_once_at_its_line(capsys, tmp_path):
    project, lines = probes_project(tmp_path)
    assert cli.main(["check", "--project-dir", str(project), "--stack", "ci"]) == 1
    out = capsys.readouterr().out
    head = f"can't run policy '{POLICY}' during preview: kubernetes:apps/v1:DaemonSet probe-a:"
    # once, under "not judged", at the DaemonSet's line; the findings list counts it and points there
    assert out.count(head) == 1 and f"  __main__.py:{lines['probe-a']}:1: {head}" in out
    assert "stack (stack)" not in out
    findings = out[out.index("policy pack gpu-node-pools:"):]
    assert "probe-a" not in findings
    assert "finding(s) on what no policy could judge" in findings and 'under "not judged" above' in findings
