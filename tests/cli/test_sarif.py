"""``--format sarif`` and the stack-file locations: what a code-scanning tool and an editor read.

The log is validated against ``tests/data/sarif/sarif-2.1.0-minimal.schema.json`` (written for
these tests; see the README beside it) and, when ``GPUPOOL_SARIF_SCHEMA`` names a copy of OASIS's
``sarif-schema-2.1.0.json``, against that too.
"""

from __future__ import annotations

import json
import os
from email.message import Message
from pathlib import Path

import jsonschema
import pytest
from conftest import ROOT

from gpu_node_pool.cli import sarif
from gpu_node_pool.cli.commands import main
from gpu_node_pool.cli.contract import report_schema

MINIMAL = ROOT / "tests" / "data" / "sarif" / "sarif-2.1.0-minimal.schema.json"

#: Three mistakes, each on its own line (numbers from 1, as editors show them).
BAD = """\
config:
  aws:region: us-west-2
  gpu-node-pools:cluster:
    name: ml-dev
    kubernetesVersion: banana
    nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node
    subnetIds: [subnet-0a1b2c3d4e5f60718]
  gpu-node-pools:pools:
    - name: inference
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      amiType: AL2023_x86_64_NVIDIA
      capacityTyp: ON_DEMAND
      scaling: {minSize: 0, maxSize: 4}
      taints:
        - nvidia.com/gpu=present:NoScheduel
"""
#: config path -> (line, column) of the offending key in BAD.
WANT = {
    "cluster.kubernetesVersion": (5, 5),
    "pools[0].capacityTyp": (13, 7),
    "pools[0].taints[0].effect": (16, 11),  # a taint string: its list item
}


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _place(result: dict) -> tuple[str, int, int]:
    physical = result["locations"][0]["physicalLocation"]
    return physical["artifactLocation"]["uri"], physical["region"]["startLine"], physical["region"]["startColumn"]


def test_plan_sarif_puts_each_mistake_on_its_line(temp_project, capsys):
    project = temp_project("bad", BAD)
    code, out, _ = _run(capsys, "plan", "--stack", "bad", "--project-dir", str(project), "--format", "sarif")
    assert code == 2
    log = json.loads(out)
    jsonschema.Draft202012Validator(json.loads(MINIMAL.read_text())).validate(log)
    results = log["runs"][0]["results"]
    assert len(results) == 3
    got = {r["message"]["text"].split(":", 1)[0]: _place(r) for r in results}
    assert got == {path: ("stacks/Pulumi.bad.yaml", *where) for path, where in WANT.items()}
    assert {r["level"] for r in results} == {"error"} and {r["ruleId"] for r in results} == {"config-error"}
    assert log["runs"][0]["invocations"] == [{"executionSuccessful": False, "exitCode": 2}]
    # artifact URIs are relative to the project directory, which originalUriBaseIds names
    assert log["runs"][0]["originalUriBaseIds"]["PROJECTROOT"]["uri"] == project.resolve().as_uri() + "/"


def test_config_errors_carry_file_line_column_in_text_and_json(temp_project, capsys):
    project = temp_project("bad", BAD)
    code, out, err = _run(capsys, "validate", "--stack", "bad", "--project-dir", str(project))
    assert code == 2 and out == ""
    for path, (line, column) in WANT.items():
        assert f"  stacks/Pulumi.bad.yaml:{line}:{column}: {path}: " in err
    code, out, _ = _run(capsys, "validate", "--stack", "bad", "--project-dir", str(project), "--json")
    doc = json.loads(out)
    jsonschema.Draft202012Validator(report_schema()).validate(doc)
    assert {e["path"]: (e["location"]["line"], e["location"]["column"]) for e in doc["configErrors"]} == WANT
    assert {e["location"]["file"] for e in doc["configErrors"]} == {"stacks/Pulumi.bad.yaml"}


def test_a_duplicate_key_is_located_where_it_repeats(temp_project, capsys):
    project = temp_project("dup", "config:\n  gpu-node-pools:pools: []\n  gpu-node-pools:pools: []\n")
    code, out, _ = _run(capsys, "validate", "--stack", "dup", "--project-dir", str(project), "--json")
    assert code == 2
    dup = [e for e in json.loads(out)["configErrors"] if "appears again" in e["message"]]
    assert [e["location"] for e in dup] == [{"file": "stacks/Pulumi.dup.yaml", "line": 3, "column": 3}]


NOEXECUTE = """\
config:
  aws:region: us-west-2
  gpu-node-pools:cluster:
    name: ml-dev
    kubernetesVersion: "1.33"
    nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node
    subnetIds: [subnet-0a1b2c3d4e5f60718]
  gpu-node-pools:pools:
    - name: inference
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      amiType: AL2023_x86_64_NVIDIA
      scaling: {minSize: 1, maxSize: 4}
    - name: training
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      amiType: AL2023_x86_64_NVIDIA
      scaling: {minSize: 1, maxSize: 4}
      taints:
        - nvidia.com/gpu=present:NoExecute
"""


def test_a_finding_about_a_pool_names_its_stack_file_line_and_urn(temp_project, capsys):
    project = temp_project("noexec", NOEXECUTE)
    code, out, _ = _run(capsys, "plan", "--stack", "noexec", "--project-dir", str(project), "--json")
    assert code == 0, out
    doc = json.loads(out)
    jsonschema.Draft202012Validator(report_schema()).validate(doc)
    found = [v for v in doc["violations"] if v["policy"] == "noexecute-gpu-taint"]
    assert found, doc["violations"]
    assert {json.dumps(v.get("location"), sort_keys=True) for v in found} == {
        json.dumps({"file": "stacks/Pulumi.noexec.yaml", "line": 14, "column": 7}, sort_keys=True)}
    assert all(v["urn"].startswith("urn:pulumi:noexec::gpu-node-pools::") for v in doc["violations"])
    code, out, _ = _run(capsys, "plan", "--stack", "noexec", "--project-dir", str(project))
    assert "stacks/Pulumi.noexec.yaml:14:7: [advisory] noexecute-gpu-taint " in out
    assert f"      urn: {found[0]['urn']}" in out
    code, out, _ = _run(capsys, "plan", "--stack", "noexec", "--project-dir", str(project), "--format", "sarif")
    result = next(r for r in json.loads(out)["runs"][0]["results"] if r["ruleId"] == "noexecute-gpu-taint")
    assert result["level"] == "warning" and _place(result) == ("stacks/Pulumi.noexec.yaml", 14, 7)
    assert result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == found[0]["urn"]


def _metadata(*urls: str, home_page: str | None = None) -> Message:
    meta = Message()
    meta["Name"] = "gpu-node-pool"
    for url in urls:
        meta["Project-URL"] = url  # a Message keeps every value of a repeated field
    if home_page:
        meta["Home-page"] = home_page
    return meta


def _rules(capsys) -> list[dict]:
    code, out, _ = _run(capsys, "validate", "--stack", "dev", "--project-dir", str(ROOT), "--format", "sarif")
    assert code == 0
    log = json.loads(out)
    jsonschema.Draft202012Validator(json.loads(MINIMAL.read_text())).validate(log)
    return log["runs"][0]["tool"]["driver"]["rules"]


def test_every_rule_links_its_readme_anchor_on_the_projects_homepage(capsys, monkeypatch):
    home = "https://git.example.com/gpu-node-pools"
    monkeypatch.setattr(sarif, "_installed_metadata", lambda: _metadata(f"Homepage, {home}"))
    readme = (ROOT / "README.md").read_text()
    rules = _rules(capsys)
    assert len(rules) > 10
    for rule in rules:
        assert rule["helpUri"].startswith(f"{home}#"), rule
        anchor = rule["helpUri"].removeprefix(f"{home}#")
        assert f'id="{anchor}"' in readme or f"## {anchor.replace('-', ' ').capitalize()}" in readme, rule["id"]
    assert rules[0]["helpUri"] == f"{home}#stack-config"
    levels = {r["id"]: r["defaultConfiguration"]["level"] for r in rules}
    assert levels["no-imperative-taints"] == "error" and levels["noexecute-gpu-taint"] == "warning"


def test_without_a_public_url_the_rules_have_no_help_uri_rather_than_a_relative_one(capsys, monkeypatch):
    # SARIF 2.1.0 section 3.49.12: helpUri is an absolute URI [RFC3986], so "README.md#..." is not allowed.
    for meta in (None, _metadata(), _metadata("Homepage, README.md", "Repository, ../gpu-node-pools")):
        monkeypatch.setattr(sarif, "_installed_metadata", lambda meta=meta: meta)
        rules = _rules(capsys)
        assert [r["id"] for r in rules if "helpUri" in r] == [], meta
        assert rules[0]["id"] == "config-error" and len(rules) > 10


@pytest.mark.parametrize(
    ("urls", "home_page", "expected"),
    [
        (["Repository, https://git.example.com/r", "Homepage, https://example.org/docs"], None, "https://example.org/docs"),
        (["Repository, https://git.example.com/r"], None, "https://git.example.com/r"),
        (["Source Code, https://git.example.com/r"], None, "https://git.example.com/r"),  # PEP 753: sourcecode
        (["Changelog, https://example.org/changes"], "https://example.org/", "https://example.org/"),
        (["Homepage, README.md", "Repository, https://git.example.com/r#readme"], None, "https://git.example.com/r"),
        (["Homepage, ftp://example.org/x", "Homepage, https://example.org/"], None, None),  # the first Homepage counts
        (["Changelog, https://example.org/changes", "Issues, https://example.org/issues"], None, None),
    ],
)
def test_the_docs_url_is_the_first_absolute_homepage_or_repository_url(urls, home_page, expected):
    assert sarif.docs_url(_metadata(*urls, home_page=home_page)) == expected


@pytest.mark.skipif(not os.environ.get("GPUPOOL_SARIF_SCHEMA"),
                    reason="GPUPOOL_SARIF_SCHEMA does not name a copy of OASIS's sarif-schema-2.1.0.json "
                           "(github.com/oasis-tcs/sarif-spec, sarif-2.1/schema/); the minimal schema was checked")
def test_the_log_is_valid_under_the_oasis_schema(temp_project, capsys):
    schema = json.loads(Path(os.environ["GPUPOOL_SARIF_SCHEMA"]).read_text())
    project = temp_project("bad", BAD)
    for argv in (["plan", "--stack", "bad"], ["validate", "--stack", "bad"]):
        _, out, _ = _run(capsys, *argv, "--project-dir", str(project), "--format", "sarif")
        jsonschema.Draft4Validator(schema).validate(json.loads(out))
    _, out, _ = _run(capsys, "plan", "--stack", "demo", "--project-dir", str(ROOT / "examples" / "violating"),
                     "--format", "sarif")
    jsonschema.Draft4Validator(schema).validate(json.loads(out))


def test_check_sarif_points_at_the_program_line_that_built_the_untolerated_daemonset(capsys):
    """``gpupool check`` on the violating example: the log agent's finding is on the line of its
    ``k8s.apps.v1.DaemonSet(`` call in the program; so is the same place in the text and JSON."""
    example = ROOT / "examples" / "violating"
    source = (example / "__main__.py").read_text().splitlines()
    line = next(i for i, text in enumerate(source, 1)
                if text.startswith("k8s.apps.v1.DaemonSet(") and '"log-agent"' in source[i])
    code, out, _ = _run(capsys, "check", "--stack", "demo", "--project-dir", str(example), "--format", "sarif")
    assert code == 1
    log = json.loads(out)
    jsonschema.Draft202012Validator(json.loads(MINIMAL.read_text())).validate(log)
    (agent,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == "daemonsets-tolerate-gpu-taints"
                and r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"].endswith("DaemonSet::log-agent")]
    assert _place(agent) == ("__main__.py", line, 1)
    code, out, _ = _run(capsys, "check", "--stack", "demo", "--project-dir", str(example), "--json")
    located = [v["location"] for v in json.loads(out)["violations"] if v.get("urn", "").endswith("DaemonSet::log-agent")]
    assert {"file": "__main__.py", "line": line, "column": 1} in located
