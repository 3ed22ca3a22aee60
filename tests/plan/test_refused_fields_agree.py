"""A pod spec with more than one field the API server refuses is named the same way by every output of
``gpupool plan``: ``--json`` (``notJudged``), the text report, ``--format sarif`` and the ``--html`` page (its
cells and its "Not judged" list) all say the same first refusal, then count and name the other refused fields. The
first is the first in ``pod_spec_refusals``' one order: each nodeSelector entry, nodeName, the required node affinity,
then each toleration; so a refused nodeSelector value comes before a refused toleration in every output."""

from __future__ import annotations

import json
import shutil
import textwrap
from html import unescape
from html.parser import HTMLParser

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main
from gpu_node_pool.policies.workloads import REFUSALS_NAMED, NodeSelection, pod_spec_refusals, refusals_text

#: A refused nodeSelector value and a refused toleration; then two refused tolerations around a catch-all one
#: (which daemonsets-tolerate-exactly, a rule that reads tolerations only, would judge).
POD_SPECS = {
    "nodeSelector-and-toleration": {
        "containers": [{"name": "agent", "image": "example.com/agent:1.0"}],
        "nodeSelector": {"gpu": "bad value!"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "exists"}],
    },
    "two-tolerations": {
        "containers": [{"name": "agent", "image": "example.com/agent:1.0"}],
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "exists"}, {"operator": "Exists"},
                        {"key": "x", "operator": "Equal", "value": "a", "effect": "NoSchedul"}],
    },
}
FIELDS = {
    "nodeSelector-and-toleration": ["nodeSelector['gpu']", "tolerations[0]"],
    "two-tolerations": ["tolerations[0]", "tolerations[2]"],
}


def _project(tmp_path, pod_spec):
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "Pulumi.dev.yaml", tmp_path / "stacks" / "Pulumi.dev.yaml")
    agent = f"""
    k8s.apps.v1.DaemonSet(
        "node-agent",
        metadata={{"name": "node-agent", "namespace": "monitoring"}},
        spec={{
            "selector": {{"matchLabels": {{"app": "node-agent"}}}},
            "template": {{"metadata": {{"labels": {{"app": "node-agent"}}}}, "spec": {pod_spec!r}}},
        }},
    )
    """
    (tmp_path / "__main__.py").write_text("import pulumi_kubernetes as k8s\nfrom gpu_node_pool.component.program import "
                                          "main\n\nmain()\n" + textwrap.dedent(agent))
    return str(tmp_path)


class _Cells(HTMLParser):
    """The ``title`` of every matrix cell of a row, and the items of the "Not judged" list."""

    def __init__(self, text: str, row: str):
        super().__init__()
        self.row, self.in_row, self.in_list, self.cells, self.items, self.head = row, False, False, [], [], None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr":
            self.in_row = False
        if tag == "td" and self.in_row and "data-status" in attrs:
            self.cells.append((attrs["data-status"], attrs["title"]))
        if tag == "ul":
            self.in_list = attrs.get("data-list") == "Not judged"

    def handle_data(self, data):
        if data == self.row:
            self.in_row = True
        if self.in_list:
            self.items.append(data)


@pytest.mark.parametrize("case", list(POD_SPECS))
def test_json_text_sarif_and_page_name_the_same_refused_fields(capsys, tmp_path, case):
    pod_spec = POD_SPECS[case]
    refused = refusals_text(pod_spec_refusals(pod_spec))
    first, *others = FIELDS[case]
    assert refused.startswith(first) and refused.endswith(f"also refused, 1 more field(s) of this pod spec: {others[0]}")
    assert NodeSelection.of(pod_spec).refused == refused
    project = _project(tmp_path, pod_spec)

    main(["plan", "--stack", "dev", "--project-dir", project, "--json"])
    reasons = [n["reason"] for n in json.loads(capsys.readouterr().out)["notJudged"] if "node-agent" in n["reason"]]
    assert reasons and all(refused in r for r in reasons), reasons

    main(["plan", "--stack", "dev", "--project-dir", project, "--format", "sarif"])
    results = [r["message"]["text"] for r in json.loads(capsys.readouterr().out)["runs"][0]["results"]
               if "node-agent" in r["message"]["text"]]
    assert results and all(refused in r for r in results), results

    page = tmp_path / "page.html"
    main(["plan", "--stack", "dev", "--project-dir", project, "--html", str(page)])
    text = capsys.readouterr().out
    said = " ".join(line.strip() for line in text.splitlines())  # wrapped findings joined back
    assert said.count(refused) == len(reasons) + len(results)  # each finding, then each item not judged
    html = _Cells(unescape(page.read_text()), "monitoring/node-agent")
    assert html.cells and set(html.cells) == {("notJudged", f"not judged: spec.template.spec.{refused}")}
    assert f"DaemonSet monitoring/node-agent: spec.template.spec.{refused}" in html.items


def test_the_other_refused_fields_are_counted_and_named_up_to_a_limit():
    tolerations = [{"key": f"k{i}", "operator": "exists"} for i in range(REFUSALS_NAMED + 3)]
    refused = refusals_text(pod_spec_refusals({"tolerations": tolerations}))
    assert refused.startswith("tolerations[0].operator 'exists': must be Equal or Exists")
    named = ", ".join(f"tolerations[{i}]" for i in range(1, REFUSALS_NAMED + 1))
    assert refused.endswith(f"also refused, {REFUSALS_NAMED + 2} more field(s) of this pod spec: {named} and 2 more")


def test_one_refused_field_reads_as_before():
    pod_spec = {"nodeSelector": {"gpu": "ok", "b": "bad value!"}, "nodeName": "node-1"}
    assert pod_spec_refusals(pod_spec) == [("nodeSelector['b']", NodeSelection.of(pod_spec).refused)]
    assert "also refused" not in NodeSelection.of(pod_spec).refused
    assert pod_spec_refusals({"nodeSelector": {"gpu": "ok"}, "tolerations": [{"operator": "Exists"}]}) == []
