"""A cluster (or dump) whose nodes are all CPU nodes: no DaemonSet is judged on a GPU node, and the audit says so.
Without ``--stack`` the verdict is partial (exit 1 unless ``--fail-on none``), as for a dump without nodes; with a
stack, the what-if judges its pools on the nodes they would get, and the report still says no GPU node was read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from audit_cluster import finished_pod
from conftest import ROOT

from gpu_node_pool.audit.declared import Declared, DeclaredPool
from gpu_node_pool.audit.report import run_audit
from gpu_node_pool.audit.snapshot import Snapshot
from gpu_node_pool.cli.commands import main
from gpu_node_pool.k8s.taints import Taint

SCHEMA = json.loads((ROOT / "components/gpu_node_pool/audit/report.schema.json").read_text())
WHY = ("no GPU node among the 2 node(s) read (no nvidia.com/gpu capacity, GPU label, NVIDIA instance type or declared "
       "pool label): DaemonSet coverage of GPU nodes was not judged; ")


def cpu_node(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
        "kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": "m7i.xlarge"}}}


FLUENT_BIT = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "fluent-bit", "namespace": "logging"},
              "spec": {"selector": {"matchLabels": {"app": "fluent-bit"}},
                       "template": {"metadata": {"labels": {"app": "fluent-bit"}},
                                    "spec": {"containers": [{"name": "fluent-bit", "image": "fluent/fluent-bit:3.2"}]}}},
              "status": {"desiredNumberScheduled": 2}}


def dump(tmp_path: Path) -> str:
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                "items": [cpu_node("cpu-1"), cpu_node("cpu-2"), FLUENT_BIT, finished_pod("cpu-1")]}))
    return str(path)


def test_a_cluster_without_gpu_nodes_is_a_partial_verdict_that_says_why_and_suggests_the_what_if(capsys, tmp_path):
    path = dump(tmp_path)
    code = main(["audit", "--cluster-dump", path])
    text = capsys.readouterr().out
    why = WHY + ("pass --stack STACK for the what-if on the nodes the stack's GPU pools would get, or audit the "
                 "cluster that has the GPU nodes")
    assert f"\nPARTIAL: {why}\n" in text
    assert "\nGPU pools:\n  none: no GPU node among the 2 node(s) read\n" in text
    assert "\n  logging/fluent-bit\n    GPU nodes: not judged (no GPU node read)\n" in text
    assert "\nNot judged:\n" in text and f"\n  GPU nodes: {why}\n" in text
    assert code == 1 and text.endswith("0 mandatory, 0 advisory, 0 info; PARTIAL verdict: no GPU node judged; exit 1 "
                                       "(--fail-on mandatory)\n")

    assert main(["audit", "--cluster-dump", path, "--json", "--fail-on", "none"]) == 0
    report = json.loads(capsys.readouterr().out)
    jsonschema.validate(report, SCHEMA)
    assert report["partial"] is True and report["listsNotRead"] == [] and report["exitCode"] == 0
    assert {"subject": "GPU nodes", "reason": why} in report["notJudged"]
    for fail_on in ("info", "advisory", "mandatory"):
        assert main(["audit", "--cluster-dump", path, "--fail-on", fail_on]) == 1
        capsys.readouterr()


def test_with_a_stack_the_what_if_judges_the_pools_and_the_missing_gpu_nodes_are_still_said():
    snapshot = Snapshot("dump")
    for name in ("cpu-1", "cpu-2"):
        snapshot.add("Node", cpu_node(name))
    snapshot.add("DaemonSet", FLUENT_BIT)
    snapshot.add("Pod", finished_pod("cpu-1"))
    pool = DeclaredPool(0, "gpu", "eks-managed", [Taint.parse("nvidia.com/gpu=present:NoSchedule")],
                        {"gpu-node-pools/pool": "gpu"})
    report = run_audit(snapshot, declared=Declared("s", [pool], []))
    assert not report.partial
    # fluent-bit would not run on the pool's new nodes: a finding, so not a clean exit
    assert [(f.level, f.code) for f in report.findings] == [("mandatory", "whatif-does-not-run")]
    assert report.exit_code == 1
    why = WHY + "the what-if columns judge the stack's GPU pools on the nodes they would get"
    assert f"\n  GPU nodes: {why}\n" in report.to_text()
    assert ("    what-if pool gpu as declared: would not run on its new nodes: nvidia.com/gpu=present:NoSchedule not "
            "tolerated\n") in report.to_text()


def test_a_dump_without_nodes_says_so_once_not_also_that_no_gpu_node_was_found(capsys, tmp_path):
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [FLUENT_BIT]}))
    code = main(["audit", "--cluster-dump", str(path)])
    text = capsys.readouterr().out
    assert code == 1 and "PARTIAL: GET /api/v1/nodes: no Node was read" in text
    assert "no GPU node among" not in text and "no GPU node judged" not in text
