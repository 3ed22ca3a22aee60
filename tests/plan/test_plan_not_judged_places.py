"""``gpupool plan`` places each item it could not judge where ``gpupool check`` does: at the program line that
constructed its resource, in ``--json`` ``notJudged[].location``, the text report's "not judged" section and the
SARIF result of its ``resources-judged`` finding; a stack policy's "can't run" note is one item per resource."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
from conftest import ROOT
from stack_texts import PROBES

from gpu_node_pool.cli.commands import main
from gpu_node_pool.cli.contract import report_schema

VIOLATING = ROOT / "examples" / "violating"
POLICY = "daemonsets-tolerate-gpu-taints"
#: A remote manifest (never fetched) and two DaemonSets whose tolerations are unknown at preview.
EXTRA = '\nk8s.yaml.ConfigFile("remote", file="https://example.invalid/agent.yaml")' + PROBES


def project(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    """The shipped project and stack ``dev`` with :data:`EXTRA` in its program; ``{resource name: its line}``."""
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "Pulumi.dev.yaml", tmp_path / "stacks" / "Pulumi.dev.yaml")
    program = ("import pulumi\nimport pulumi_aws as aws\nimport pulumi_kubernetes as k8s\n"
               "from gpu_node_pool.component.program import main\n\nmain()\n" + EXTRA)
    (tmp_path / "__main__.py").write_text(program)
    lines = program.splitlines()
    return tmp_path, {name: next(i for i, text in enumerate(lines, 1) if f'("{name}"' in text)
                      for name in ("remote", "probe-a", "probe-b")}


def plan(directory: Path, capsys, stack: str, *args: str) -> tuple[int, str]:
    code = main(["plan", "--stack", stack, "--project-dir", str(directory), *args])
    return code, capsys.readouterr().out


def test_each_not_judged_item_of_the_plan_is_at_the_line_that_constructed_its_resource(capsys, tmp_path):
    directory, lines = project(tmp_path)
    _, out = plan(directory, capsys, "dev", "--json")
    doc = json.loads(out)
    jsonschema.validate(doc, report_schema())
    at = {item["resource"].rsplit("::", 1)[-1]: item.get("location") for item in doc["notJudged"]}
    # the stack policy's note on two DaemonSets is one item each (not one "stack" item), each at its own line
    assert at == {name: {"file": "__main__.py", "line": line, "column": 1} for name, line in lines.items()}, at
    assert not [item for item in doc["notJudged"] if item["type"] == "stack"]


def test_the_text_report_names_each_items_line(capsys, tmp_path):
    directory, lines = project(tmp_path)
    _, out = plan(directory, capsys, "dev")
    section = out[out.index("no policy could judge, each with why:"):]
    assert f"  __main__.py:{lines['remote']}:1: kubernetes:yaml:ConfigFile remote: manifest" in section, section
    assert f"  __main__.py:{lines['probe-a']}:1: can't run policy '{POLICY}'" in section, section


def test_sarif_places_each_items_finding_where_the_json_places_the_item(capsys, tmp_path):
    directory, lines = project(tmp_path)
    _, out = plan(directory, capsys, "dev", "--format", "sarif")
    results = json.loads(out)["runs"][0]["results"]
    placed = {}
    for r in results:
        if r["ruleId"] == "resources-judged" or r["message"]["text"].split(": ", 1)[1].startswith("can't run policy"):
            [location] = r["locations"]
            name = location["logicalLocations"][0]["fullyQualifiedName"].rsplit("::", 1)[-1]
            placed[name] = (location["physicalLocation"]["artifactLocation"]["uri"],
                            location["physicalLocation"]["region"]["startLine"])
    assert placed == {name: ("__main__.py", line) for name, line in lines.items()}, placed
    assert not [r for r in results if "approximate place" in r["message"]["text"]]


def test_plan_and_check_place_the_example_items_alike(capsys):
    _, out = plan(VIOLATING, capsys, "demo", "--json")
    planned = {item["resource"]: item.get("location") for item in json.loads(out)["notJudged"]}
    main(["check", "--stack", "demo", "--project-dir", str(VIOLATING), "--json"])
    checked = {item["resource"]: item.get("location") for item in json.loads(capsys.readouterr().out)["notJudged"]}
    assert planned and all(planned.values()), planned
    assert planned == checked
