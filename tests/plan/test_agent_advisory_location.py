"""``gpu-workloads-select-gpu-nodes``' advisory about a GPU agent that selects no GPU nodes names the agent's own
resource: its URN in ``--json``, a location in ``--format sarif`` (the URN as a logical location; under
``gpupool check`` also the program line that constructed it), and its ``urn:`` line in the text, as every other
finding. Before, it named no resource and fell to the stack."""

from __future__ import annotations

import json
import shutil
import textwrap

from builders import node_group, run
from conftest import DATA, ROOT

from gpu_node_pool.cli.commands import main
from gpu_node_pool.policies import StackResource
from gpu_node_pool.policies import rules as d

POLICY = "gpu-workloads-select-gpu-nodes"
#: A DCGM exporter that tolerates everything and selects nothing: it lands on every CPU node too.
DCGM = """
k8s.apps.v1.DaemonSet(
    "dcgm-exporter",
    metadata={"name": "dcgm-exporter", "namespace": "monitoring"},
    spec={
        "selector": {"matchLabels": {"app": "dcgm-exporter"}},
        "template": {
            "metadata": {"labels": {"app": "dcgm-exporter"}},
            "spec": {
                "containers": [{"name": "exporter", "image": "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.3-ubuntu22.04"}],
                "tolerations": [{"operator": "Exists"}],
            },
        },
    },
)
"""


def _project(tmp_path):
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "Pulumi.dev.yaml", tmp_path / "stacks" / "Pulumi.dev.yaml")
    (tmp_path / "__main__.py").write_text("import pulumi_kubernetes as k8s\n"
                                          "from gpu_node_pool.component.program import main\n\nmain()\n" + textwrap.dedent(DCGM))
    return tmp_path


def _advisory(violations):
    return [v for v in violations if v["policy"] == POLICY and "selects no GPU nodes" in v["message"]]


def test_plan_names_the_dcgm_exporter_in_json_sarif_and_text(capsys, tmp_path):
    project = str(_project(tmp_path))
    main(["plan", "--stack", "dev", "--project-dir", project, "--json"])
    [finding] = _advisory(json.loads(capsys.readouterr().out)["violations"])
    assert finding["urn"].endswith("$kubernetes:apps/v1:DaemonSet::dcgm-exporter")
    assert finding["resource"] == "kubernetes:apps/v1:DaemonSet dcgm-exporter"

    main(["plan", "--stack", "dev", "--project-dir", project, "--format", "sarif"])
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    [result] = [r for r in results if r["ruleId"] == POLICY and "selects no GPU nodes" in r["message"]["text"]]
    [location] = result["locations"]
    assert location["logicalLocations"] == [{"fullyQualifiedName": finding["urn"], "kind": "resource"}]

    main(["plan", "--stack", "dev", "--project-dir", project])
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if f"] {POLICY} kubernetes:apps/v1:DaemonSet dcgm-exporter:" in line)
    urn_line = next(line for line in lines[start + 1:] if line.lstrip().startswith("urn:"))
    assert urn_line.strip() == f"urn: {finding['urn']}"


def test_check_places_the_advisory_on_the_program_line_of_the_daemonset(capsys, tmp_path):
    project = tmp_path / "p"
    shutil.copytree(DATA / "foreign_project", project)
    program = project / "__main__.py"
    source = program.read_text()
    line = source.count("\n") + 2  # the DaemonSet( line of DCGM, appended after a blank line
    program.write_text(source + textwrap.dedent(DCGM))
    main(["check", "--project-dir", str(project), "--stack", "ci", "--format", "sarif"])
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    [result] = [r for r in results if r["ruleId"] == POLICY and "selects no GPU nodes" in r["message"]["text"]]
    physical = result["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == "__main__.py"
    assert physical["region"]["startLine"] == line


def test_a_dcgm_exporter_chart_read_by_its_values_is_named_by_the_chart():
    release = StackResource("kubernetes:helm.sh/v3:Release", "dcgm",
                            {"chart": "dcgm-exporter", "namespace": "monitoring",
                             "values": {"tolerations": [{"operator": "Exists"}]}})
    [finding] = _advisory(run(d.gpu_workloads_select_gpu_nodes.POLICY, [node_group(), release]))
    assert finding["resource"] == "kubernetes:helm.sh/v3:Release dcgm"
    assert "DCGM exporter chart dcgm-exporter 'dcgm'" in finding["message"]
