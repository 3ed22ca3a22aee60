"""``gpupool plan`` places a finding about a resource the program constructed at that program line (as ``gpupool
check`` does), and a finding about a declared pool at the pool's item in the stack file: in ``--json``
``violations[].location``, the text report and SARIF alike."""

from __future__ import annotations

import json

from conftest import ROOT

from gpu_node_pool.cli.commands import main

VIOLATING = ROOT / "examples" / "violating"
PROGRAM = (VIOLATING / "__main__.py").read_text().splitlines()


def _run(capsys, command: str, *argv: str) -> dict:
    main([command, "--stack", "demo", "--project-dir", str(VIOLATING), *argv])
    return json.loads(capsys.readouterr().out)


def _constructor_line(name: str) -> int:
    """The 1-based line of the program's call that constructs resource ``name``: the line of its name as the first
    argument, or the line above when the call's ``(`` ends that line."""
    [line] = [i for i, text in enumerate(PROGRAM, 1) if text.strip() == f'"{name}",' or f'("{name}"' in text]
    return line - 1 if PROGRAM[line - 1].strip() == f'"{name}",' and PROGRAM[line - 2].endswith("(") else line


def test_a_finding_about_a_program_resource_names_the_line_that_constructed_it(capsys):
    plan = _run(capsys, "plan", "--json")
    legacy = [v for v in plan["violations"] if v["resource"] == "aws:eks/nodeGroup:NodeGroup legacy-gpu"]
    assert legacy
    for v in legacy:
        assert v["location"] == {"file": "__main__.py", "line": _constructor_line("legacy-gpu"), "column": 1}


def test_a_finding_about_a_declared_pool_keeps_its_stack_file_line(capsys):
    plan = _run(capsys, "plan", "--json")
    pool = [v for v in plan["violations"] if "GpuNodePool$" in v.get("urn", "")]
    assert pool
    for v in pool:
        assert v["location"]["file"] == "Pulumi.demo.yaml" and v["location"]["line"] > 1


def test_plan_and_check_place_every_other_finding_at_the_same_program_line(capsys):
    plan = _run(capsys, "plan", "--json")
    check = _run(capsys, "check", "--json")
    at = {(v["policy"], v["urn"]): v.get("location") for v in check["violations"]}
    program = [v for v in plan["violations"] if "GpuNodePool$" not in v.get("urn", "")]
    assert program
    for v in program:
        assert v["location"] == at[(v["policy"], v["urn"])], v["policy"]


def test_no_sarif_result_of_the_plan_is_approximate_where_its_resource_has_a_program_line(capsys):
    results = _run(capsys, "plan", "--format", "sarif")["runs"][0]["results"]
    assert results
    approximate = [r["message"]["text"] for r in results if "approximate place" in r["message"]["text"]]
    assert approximate == []
    files = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert files == {"__main__.py", "Pulumi.demo.yaml"}
    legacy = [r for r in results if r["message"]["text"].startswith("aws:eks/nodeGroup:NodeGroup legacy-gpu:")]
    assert legacy and {r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in legacy} == {
        _constructor_line("legacy-gpu")}


def test_the_text_report_names_the_program_line(capsys):
    main(["plan", "--stack", "demo", "--project-dir", str(VIOLATING)])
    out = capsys.readouterr().out
    assert f"__main__.py:{_constructor_line('legacy-gpu')}:1: [" in out
    assert "Pulumi.demo.yaml:" in out
