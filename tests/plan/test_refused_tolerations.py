"""``gpupool plan`` and ``gpupool check`` on a DaemonSet whose toleration the API server refuses
(``ValidateTolerations``: ``operator: exists`` in lower case): the object is never created, so no verdict is true of
it. The plan lists it under ``notJudged`` with the toleration's index, value, rule, source and fix, and makes no
finding of it (before, ``daemonsets-tolerate-gpu-taints`` said it "will not run on GPU nodes", mandatory)."""

from __future__ import annotations

import json
import shutil
import textwrap

import jsonschema
from conftest import DATA, ROOT

from gpu_node_pool.cli.commands import main
from gpu_node_pool.cli.contract import report_schema

DAEMONSETS = "daemonsets-tolerate-gpu-taints"
WHY = ("tolerations[0].operator 'exists': must be Equal or Exists (Gt and Lt only on Kubernetes 1.35+ with the alpha "
       "feature gate TaintTolerationComparisonOperators on): the API server refuses this pod spec (ValidateTolerations, "
       "kubernetes pkg/apis/core/validation/validation.go); fix: write Exists")
AGENT = """
k8s.apps.v1.DaemonSet(
    "node-agent",
    metadata={"name": "node-agent", "namespace": "monitoring"},
    spec={
        "selector": {"matchLabels": {"app": "node-agent"}},
        "template": {
            "metadata": {"labels": {"app": "node-agent"}},
            "spec": {
                "containers": [{"name": "agent", "image": "example.com/agent:1.0"}],
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "exists"}],
            },
        },
    },
)
"""


def run_json(capsys, *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, report_schema())
    assert doc["exitCode"] == code
    return code, doc


def refused_items(doc: dict) -> list[dict]:
    return [n for n in doc["notJudged"] if WHY in n["reason"]]


def test_plan_lists_a_daemonset_with_a_refused_toleration_as_not_judged(capsys, tmp_path):
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "Pulumi.dev.yaml", tmp_path / "stacks" / "Pulumi.dev.yaml")
    (tmp_path / "__main__.py").write_text("import pulumi_kubernetes as k8s\n"
                                          "from gpu_node_pool.component.program import main\n\nmain()\n" + textwrap.dedent(AGENT))
    code, doc = run_json(capsys, "plan", "--stack", "dev", "--project-dir", str(tmp_path))
    # the policy's "can't run" note (advisory), never the mandatory "will not run on GPU nodes"
    assert [v["enforcement"] for v in doc["violations"] if v["policy"] == DAEMONSETS] == ["advisory"]
    assert "will not run on GPU nodes" not in json.dumps(doc["violations"])
    [item] = refused_items(doc)
    assert "DaemonSet monitoring/node-agent: not judged: spec.template.spec." + WHY in item["reason"]
    assert item["fix"].startswith("correct the field the reason names")  # not "make the values known at preview"
    assert code == 0


def test_check_lists_a_team_daemonset_with_a_refused_toleration_as_not_judged(capsys, tmp_path):
    project = tmp_path / "p"
    shutil.copytree(DATA / "foreign_project", project)
    program = project / "__main__.py"
    source = program.read_text()
    plain = '"spec": {"containers": [{"name": "fluent-bit", "image": "cr.fluentbit.io/fluent/fluent-bit:3.1"}]},'
    assert plain in source
    program.write_text(source.replace(plain, plain[:-2] + ', "tolerations": [{"key": "nvidia.com/gpu", "operator": "exists"}]},'))
    code, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "ci")
    [finding] = [v for v in doc["violations"] if (v["policy"], v["resource"]) == (DAEMONSETS, "kubernetes:apps/v1:DaemonSet fluent-bit")]
    # before: mandatory, "will not run"; now the policy's advisory "can't run" note about that DaemonSet
    assert finding["enforcement"] == "advisory" and "will not run" not in finding["message"]
    [item] = refused_items(doc)
    assert "DaemonSet logging/fluent-bit: not judged: spec.template.spec." + WHY in item["reason"]
