"""gpupool plan: the offline plan of the shipped stacks and of broken ones, through the CLI."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main

STACKS = sorted(p.name[len("Pulumi."):-len(".yaml")] for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))


def plan(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["plan", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_dev_plan_shows_one_taint_in_every_form(capsys):
    code, out, _ = plan(capsys, "--stack", "dev", "--project-dir", str(ROOT))
    assert code == 0, out
    assert "no cloud API was called" in out
    assert "taints          nvidia.com/gpu=present:NoSchedule" in out
    assert "aws.eks.NodeGroup.taints nvidia.com/gpu=present:NO_SCHEDULE" in out
    assert "k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu = present:NoSchedule" in out
    assert "key: nvidia.com/gpu, operator: Exists, effect: NoSchedule" in out
    assert "ok   inference: nvidia.com/gpu=present:NoSchedule" in out
    assert out.rstrip().endswith("exit 0: clean")


def test_prod_plan_json_lists_both_eks_pools_and_full_coverage(capsys):
    code, out, _ = plan(capsys, "--stack", "prod", "--json", "--project-dir", str(ROOT))
    doc = json.loads(out)
    assert code == 0 and doc["exitCode"] == 0
    assert doc["cloudApiCalled"] is False
    pools = {p["name"]: p for p in doc["pools"]}
    assert pools["training"]["taints"] == ["nvidia.com/gpu=present:NoSchedule", "workload=training:NoSchedule"]
    assert pools["training"]["providerTaints"][1] == {"key": "workload", "value": "training", "effect": "NO_SCHEDULE"}
    assert pools["training"]["scaleFromZeroMatches"] is True
    assert all(c["tolerated"] for c in doc["devicePlugin"]["coverage"])
    assert {"key": "workload", "operator": "Exists", "effect": "NoSchedule"} in doc["devicePlugin"]["tolerations"]


@pytest.mark.parametrize("stack", STACKS)
def test_every_shipped_stack_plans_clean(capsys, stack):
    code, out, err = plan(capsys, "--stack", stack, "--project-dir", str(ROOT))
    assert code == 0, out + err


BAD = """config:
  gpu-node-pools:cluster:
    name: ml-dev
    nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node
    subnetIds: [subnet-0a1b2c3d4e5f60718]
  gpu-node-pools:pools:
    - name: inference
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      scaling: {minSize: 3, maxSize: 2}
      taints:
        - nvidia.com/gpu=present:NO_SCHEDULE
        - a/b/c=v:NoSchedule
      labels:
        node-role.kubernetes.io/gpu: "true"
    - name: many
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      scaling: {minSize: 1, maxSize: 2}
      taints: [%s]
"""


def test_a_broken_stack_exits_2_with_one_line_per_mistake(capsys, temp_project):
    many = ", ".join(f"k{i}=v:NoSchedule" for i in range(51))
    project = temp_project("bad", BAD % many)
    code, out, err = plan(capsys, "--stack", "bad", "--project-dir", str(project))
    assert code == 2 and out == ""  # a config error is on stderr, as under validate
    lines = [line.strip() for line in err.splitlines()]
    assert "5 errors in Pulumi.bad.yaml; no resource was registered:" in lines
    expected = [
        "pools[0].taints[0].effect: 'NO_SCHEDULE' is the EKS/GKE API spelling; write NoSchedule (the component translates it; Kubernetes core/v1 TaintEffect",
        "pools[0].taints[1].key: 'a/b/c' must be a qualified name with at most one '/'",
        "pools[0].labels['node-role.kubernetes.io/gpu']: label 'node-role.kubernetes.io/gpu' is in the kubernetes.io domain",
        "pools[0].scaling: minSize 3 is above maxSize 2; raise maxSize or lower minSize",
        "pools[1].taints: 51 taints; an EKS managed node group takes at most 50",
    ]
    for fragment in expected:  # each line starts with the stack file's place: stacks/Pulumi.bad.yaml:L:C:
        assert any(re.match(r"stacks/Pulumi\.bad\.yaml:\d+:\d+: " + re.escape(fragment), line) for line in lines), fragment
    assert "Traceback" not in err


def test_the_console_script_prints_no_traceback_and_exits_2(temp_project):
    project = temp_project("bad", BAD % "k=v:NoSchedule")
    gpupool = Path(sys.executable).parent / "gpupool"
    proc = subprocess.run([str(gpupool), "plan", "--stack", "bad"], cwd=project, capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "pools[0].scaling: minSize 3 is above maxSize 2" in proc.stderr and proc.stdout == ""


def test_a_missing_stack_names_the_stacks_that_exist(capsys):
    code, _, err = plan(capsys, "--stack", "nope", "--project-dir", str(ROOT))
    assert code == 2
    assert "no stack file" in err and "dev" in err


def test_invalid_yaml_is_one_line_naming_the_file_line_and_column(capsys, temp_project):
    project = temp_project("bad", "config:\n  gpu-node-pools:cluster:\n    name: a\n   nodeRoleArn: b\n")
    code, _, err = plan(capsys, "--stack", "bad", "--project-dir", str(project))
    assert code == 2
    [line] = [line.strip() for line in err.splitlines() if "is not valid YAML" in line]
    # line 4 column 4: the mis-indented key, 1-based as editors count
    assert line.startswith("stacks/Pulumi.bad.yaml:4:4: is not valid YAML: expected <block end>, but found")
    assert "(while parsing a block mapping on line 2)" in line
    assert "<unicode string>" not in err


def test_an_unclosed_flow_sequence_names_where_it_was_opened(capsys, temp_project):
    project = temp_project("bad", "config:\n  gpu-node-pools:pools: [unclosed\n")
    code, _, err = plan(capsys, "--stack", "bad", "--project-dir", str(project))
    assert code == 2
    assert "Pulumi.bad.yaml:3:1: is not valid YAML: expected ',' or ']'" in err
    assert "(while parsing a flow sequence on line 2)" in err


def test_validate_command(capsys):
    assert main(["validate", "--stack", "dev", "--project-dir", str(ROOT)]) == 0
    assert "config is valid" in capsys.readouterr().out


def test_a_directory_named_as_a_stack_file_is_said_to_be_one_and_not_listed_as_a_stack(tmp_path, capsys):
    (tmp_path / "Pulumi.yaml").write_text("name: gpu-node-pools\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    (tmp_path / "Pulumi.odd.yaml").mkdir()
    code = main(["validate", "--stack", "odd", "--project-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "is a directory, not a stack file" in err and "stacks here: dev" in err, err
