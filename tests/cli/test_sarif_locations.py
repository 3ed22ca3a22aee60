"""``--format sarif``: every result has a physical location, which GitHub code scanning requires of each result
(github/codeql-action issues 1738, 2456, 2459: "locationFromSarifResult: expected at least one location",
"expected artifact location"; the SARIF validator's GitHub rule GH1001, microsoft/sarif-sdk issue 2694)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
from conftest import DATA, ROOT

from gpu_node_pool.cli import sarif
from gpu_node_pool.cli.commands import main

MINIMAL = ROOT / "tests" / "data" / "sarif" / "sarif-2.1.0-minimal.schema.json"
VIOLATING = ROOT / "examples" / "violating"


def _log(capsys, *argv: str) -> tuple[int, list[dict]]:
    code = main([*argv, "--format", "sarif"])
    log = json.loads(capsys.readouterr().out)
    jsonschema.Draft202012Validator(json.loads(MINIMAL.read_text())).validate(log)
    return code, log["runs"][0]["results"]


def _place(result: dict) -> tuple[str, int]:
    """``(uri, startLine)`` of the result's first location; fails as GitHub's upload does when there is none."""
    physical = result["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"] and physical["region"]["startLine"] >= 1
    return physical["artifactLocation"]["uri"], physical["region"]["startLine"]


def _foreign(tmp_path: Path, extra: str) -> Path:
    project = tmp_path / "p"
    shutil.copytree(DATA / "foreign_project", project)
    (project / "__main__.py").write_text((project / "__main__.py").read_text() + extra)
    return project


def test_every_result_of_the_violating_example_has_a_file_and_line(capsys):
    for command, stack in (("check", "demo"), ("plan", "demo")):
        _, results = _log(capsys, command, "--stack", stack, "--project-dir", str(VIOLATING))
        assert results
        for result in results:
            _place(result)


def test_a_program_that_raises_is_one_result_at_the_raising_line(capsys, tmp_path):
    project = _foreign(tmp_path, '\nraise ValueError("quota exceeded")\n')
    line = len((project / "__main__.py").read_text().splitlines())
    code, results = _log(capsys, "check", "--stack", "ci", "--project-dir", str(project))
    assert code == 2
    [result] = results
    assert result["ruleId"] == "config-error" and _place(result) == ("__main__.py", line)
    assert "ValueError: quota exceeded" in result["message"]["text"]


def test_an_undecided_daemonset_is_a_result_at_its_line_not_only_a_logical_location(capsys, tmp_path):
    project = _foreign(tmp_path, """
tolerations = aws.iam.Role("probe-role", assume_role_policy="{}").arn.apply(
    lambda _: [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}])
k8s.apps.v1.DaemonSet("gpu-probe", metadata={"name": "gpu-probe", "namespace": "monitoring"}, spec={
    "selector": {"matchLabels": {"app": "p"}}, "template": {"metadata": {"labels": {"app": "p"}}, "spec": {
        "tolerations": tolerations, "containers": [{"name": "p", "image": "busybox"}]}}})
""")
    line = next(i for i, text in enumerate((project / "__main__.py").read_text().splitlines(), 1)
                if text.startswith('k8s.apps.v1.DaemonSet("gpu-probe"'))
    _, results = _log(capsys, "check", "--stack", "ci", "--project-dir", str(project))
    for result in results:
        _place(result)
    undecided = [r for r in results if "can't run policy" in r["message"]["text"]]
    assert undecided and all(_place(r) == ("__main__.py", line) for r in undecided)
    assert all(r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"].endswith("DaemonSet::gpu-probe")
               for r in undecided)


def test_a_result_without_a_place_is_at_line_1_of_the_program_and_says_so(capsys, tmp_path):
    code, results = _log(capsys, "check", "--stack", "nosuch", "--project-dir", str(VIOLATING))
    [result] = results
    assert code == 2 and _place(result)[1] == 1 and "approximate place" in result["message"]["text"]
    stack_wide = {"policy": "p", "enforcement": "advisory", "resource": "", "message": "m",
                  "urn": "urn:pulumi:dev::x::pulumi:pulumi:Stack::x-dev"}
    [result] = sarif.sarif_log(1, (), [stack_wide], VIOLATING)["runs"][0]["results"]
    assert _place(result) == ("__main__.py", 1) and "approximate place: __main__.py line 1" in result["message"]["text"]
    (tmp_path / "Pulumi.yaml").write_text("name: x\nruntime: nodejs\n")
    [result] = sarif.sarif_log(1, (), [stack_wide], tmp_path)["runs"][0]["results"]
    assert _place(result) == ("Pulumi.yaml", 1)
