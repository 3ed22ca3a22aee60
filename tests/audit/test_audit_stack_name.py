"""``gpupool audit --stack`` applies the Pulumi stack-name rule ``gpupool plan --stack`` applies
(pulumi/pulumi@v3.259.0 sdk/go/common/tokens/stack_name.go): a value that is no stack name (a path such as ``../etc``) is a
usage error, exit 64, with plan's message, before any dump or stack file is read; a name qualified by its org and
project reads the stack file of its last part, as under plan."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import ROOT

from gpu_node_pool.cli.commands import main

NODE = {"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "ip-10-0-1-10.us-west-2.compute.internal",
                     "labels": {"kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": "g6.xlarge",
                                "eks.amazonaws.com/nodegroup": "inference", "gpu-node-pools/pool": "inference"}},
        "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
        "status": {"capacity": {"nvidia.com/gpu": "1"}, "allocatable": {"nvidia.com/gpu": "1"}}}


def _error_line(err: str) -> str:
    """The ``argument --stack: ...`` part of argparse's last line (``gpupool <command>: error: ...``)."""
    (line,) = [line for line in err.splitlines() if ": error: " in line]
    return line.split(": error: ", 1)[1]


@pytest.mark.parametrize("stack", ["../etc", "./dev", "a b", "dev;id", "o/p/s/dev", "x/../dev", ""])
def test_a_stack_that_is_no_pulumi_stack_name_is_refused_as_plan_refuses_it(capsys, stack):
    code = main(["audit", "--cluster-dump", "x.json", "--stack", stack])
    captured = capsys.readouterr()
    assert code == 64, captured.err
    assert captured.out == ""
    assert "argument --stack:" in captured.err and "no such file" not in captured.err.lower()
    plan_code = main(["plan", "--stack", stack, "--project-dir", str(ROOT)])
    plan = capsys.readouterr()
    assert plan_code == code
    assert _error_line(captured.err) == _error_line(plan.err)


def test_the_refusal_names_the_rule_its_source_and_the_fix(capsys):
    assert main(["audit", "--cluster-dump", "x.json", "--stack", "../etc", "--json"]) == 64
    err = capsys.readouterr().err
    assert "argument --stack: '../etc' is not a stack name" in err
    assert "pulumi/pulumi@v3.259.0 sdk/go/common/tokens/stack_name.go" in err and "e.g. --stack dev" in err


@pytest.mark.parametrize("stack", ["acme/dev", "acme/gpu-node-pools/dev"])
def test_a_qualified_stack_name_reads_the_stack_file_of_its_last_part(capsys, tmp_path, stack):
    dump = tmp_path / "nodes.yaml"
    dump.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [NODE]}))

    def audit(name: str) -> tuple[int, dict]:
        code = main(["audit", "--cluster-dump", str(dump), "--stack", name, "--project-dir", str(ROOT), "--json"])
        return code, json.loads(capsys.readouterr().out)

    plain_code, plain = audit("dev")
    code, qualified = audit(stack)
    assert code == plain_code and code in (0, 1)
    assert qualified["stack"] == "dev"
    assert qualified == plain
