"""``gpupool check``: the pack on a platform team's own program (tests/data/foreign_project)."""

from __future__ import annotations

import json
import shutil

import jsonschema
from conftest import DATA, ROOT

from gpu_node_pool.cli import commands as cli
from gpu_node_pool.cli.contract import report_schema

FOREIGN = DATA / "foreign_project"
VALIDATOR = jsonschema.Draft202012Validator(report_schema())


def run_json(capsys, *argv: str) -> tuple[int, dict]:
    code = cli.main([*argv, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert not [e.message for e in VALIDATOR.iter_errors(doc)]
    assert doc["exitCode"] == code
    return code, doc


def test_check_finds_hand_written_and_component_pools_in_a_foreign_program(capsys):
    code, doc = run_json(capsys, "check", "--project-dir", str(FOREIGN), "--stack", "ci")
    pools = {p["name"]: p for p in doc["pools"]}
    assert doc["project"] == "platform-gpu"
    assert pools["training-gpu"]["component"] is None
    assert pools["training-gpu"]["resourceType"] == "aws:eks/nodeGroup:NodeGroup"
    assert pools["training-gpu"]["taints"] == ["dedicated=training:NoSchedule"]
    # Our component's node group is reported under the component's name, with the program's cluster.
    assert pools["inference"]["component"] == "inference"
    assert pools["inference"]["resource"] == "inference-node-group"
    assert pools["inference"]["taints"] == ["nvidia.com/gpu=present:NoSchedule"]
    assert {(c["pool"], c["taint"], c["tolerated"]) for c in doc["coverage"]} == {
        ("training-gpu", "dedicated=training:NoSchedule", False),
        ("inference", "nvidia.com/gpu=present:NoSchedule", True),
    }
    judged = {(v["policy"], v["resource"]) for v in doc["violations"]}
    assert ("daemonsets-tolerate-gpu-taints", "kubernetes:apps/v1:DaemonSet fluent-bit") in judged
    assert ("device-plugin-covers-gpu-pools", "aws:eks/nodeGroup:NodeGroup training-gpu") in judged
    assert code == 1


def test_check_reads_the_programs_own_config_namespace(capsys):
    _, doc = run_json(capsys, "check", "--project-dir", str(FOREIGN), "--stack", "ci")
    node_groups = [r for r in doc["resources"] if r["type"] == "aws:eks/nodeGroup:NodeGroup"]
    assert [r["name"] for r in node_groups] == ["training-gpu", "inference-node-group"]


def test_plan_refuses_the_foreign_program_for_lack_of_our_keys_while_check_runs_it(capsys):
    code = cli.main(["plan", "--project-dir", str(FOREIGN), "--stack", "ci"])
    capsys.readouterr()
    assert code == 2
    assert cli.main(["check", "--project-dir", str(FOREIGN), "--stack", "ci", "--fail-on", "none"]) == 0
    assert "2 GPU pool(s) found" in capsys.readouterr().out


def test_check_of_a_program_that_raises_is_invalid_input_with_one_line(capsys, tmp_path):
    shutil.copytree(FOREIGN, tmp_path / "p")
    main = tmp_path / "p" / "__main__.py"
    main.write_text(main.read_text().replace('config.require("clusterName")', 'config.require("clusterNme")'))
    code, doc = run_json(capsys, "check", "--project-dir", str(tmp_path / "p"), "--stack", "ci")
    assert code == 2
    [error] = doc["configErrors"]
    assert "the program raised" in error["message"] and "clusterNme" in error["message"]
    assert "(at __main__.py:" in error["message"]


def test_check_refuses_a_non_python_project(capsys, tmp_path):
    (tmp_path / "Pulumi.yaml").write_text("name: web\nruntime: nodejs\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    code, doc = run_json(capsys, "check", "--project-dir", str(tmp_path), "--stack", "dev")
    assert code == 2 and "runs Pulumi Python programs only" in doc["configErrors"][0]["message"]


def test_check_of_this_projects_own_stack_finds_the_same_pools_as_plan(capsys):
    _, checked = run_json(capsys, "check", "--project-dir", str(ROOT), "--stack", "dev")
    _, planned = run_json(capsys, "plan", "--project-dir", str(ROOT), "--stack", "dev")
    assert sorted(p["name"] for p in checked["pools"]) == sorted(p["name"] for p in planned["pools"])
    assert checked["violations"] == planned["violations"]
