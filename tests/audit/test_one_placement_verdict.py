"""One placement verdict everywhere: the same DaemonSet (a DCGM exporter pinned to an instance type the pool
does not use) and the same pool (`dev`'s g6.xlarge pool) give the same verdict in the plan, the policy pack,
the `gpupool plan --html` page and the audit (the audit on a live node carrying the pool's labels)."""

from __future__ import annotations

import json
import shutil

import yaml
from audit_cluster import as_list, eks_node
from conftest import ROOT

from gpu_node_pool.audit.report import run_audit
from gpu_node_pool.audit.sources import load_dump
from gpu_node_pool.plan import plan_stack
from gpu_node_pool.plan.page import plan_matrix
from gpu_node_pool.policies import evaluate
from gpu_node_pool.policies import rules as d

TOLERATIONS = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
DCGM = {
    "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "dcgm-exporter", "namespace": "gpu-monitoring"},
    "spec": {"selector": {"matchLabels": {"app": "dcgm"}}, "template": {
        "metadata": {"labels": {"app": "dcgm"}},
        "spec": {"tolerations": TOLERATIONS, "nodeSelector": {"node.kubernetes.io/instance-type": "g5.xlarge"},
                 "containers": [{"name": "exporter", "image": "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.1-ubuntu22.04"}]}}},
}
PROGRAM = f'''from gpu_node_pool.program import main
import pulumi_kubernetes as k8s

main()
k8s.yaml.v2.ConfigGroup("extra", objs=[{DCGM!r}])
'''
WHY = "its node selection excludes 1 of the pool's 1 kind(s) of node: instance type g6.xlarge (by node.kubernetes.io/instance-type)"


def test_plan_pack_page_and_audit_give_the_same_verdict(tmp_path):
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "__main__.py").write_text(PROGRAM)
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "Pulumi.dev.yaml", tmp_path / "stacks" / "Pulumi.dev.yaml")
    result = plan_stack("dev", tmp_path)
    assert not result.config_issues

    # the plan: its findings
    (planned,) = [v for v in result.violations if v["policy"] == "gpu-agents-cover-gpu-pools"]
    assert 'The DCGM exporter does not cover GPU pool pools[0] "inference"' in planned["message"] and WHY in planned["message"]

    # the pack, on the plan's resources
    (packed,) = evaluate(result.resources, policies=[d.gpu_agents_cover_gpu_pools.POLICY])
    assert WHY in packed["message"]

    # the page
    matrix = plan_matrix(result)
    (row,) = [r for r in matrix.rows if r.label.startswith("gpu-monitoring/dcgm-exporter")]
    (column,) = [i for i, c in enumerate(matrix.columns) if c.id == "inference"]
    assert row.cells[column].status == "keptOff" and WHY in row.cells[column].summary

    # the audit, on a node with the labels the pool's nodes carry
    pool = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())["config"]["gpu-node-pools:pools"][0]
    node = eks_node("ip-10-0-1-7", pool="inference", nodegroup="inference", instance="g6.xlarge", gpus=1,
                    taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
                    extra_labels=pool["labels"])
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps(as_list([node, DCGM])))
    report = run_audit(load_dump(dump))
    (audited,) = [r for r in report.rows if r.ds.display == "gpu-monitoring/dcgm-exporter"]
    assert [c.status for c in audited.cells.values()] == ["keptOff"]

    # and without the pin, all four say it runs
    del DCGM["spec"]["template"]["spec"]["nodeSelector"]
    dump.write_text(json.dumps(as_list([node, DCGM])))
    assert [c.status for c in run_audit(load_dump(dump)).rows[0].cells.values()] == ["runs"]
