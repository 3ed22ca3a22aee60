"""A DaemonSet that tolerates a GPU node's NoExecute taint with ``tolerationSeconds``: the DaemonSet controller creates
its pod there (it matches tolerations without their seconds), the taint manager evicts it after N s and the controller
creates it again. The audit says so (not "not tolerated"), counts the node as one the DaemonSet is scheduled on (as
``status.desiredNumberScheduled`` does), and gives the fix: remove ``tolerationSeconds``. The finding stays mandatory,
as the pack's ``daemonsets-tolerate-gpu-taints`` fails the same DaemonSet."""

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
TIMED = {"key": "workload", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
TIMED_TEXT = "{key: workload, operator: Exists, effect: NoExecute, tolerationSeconds: 300}"
NO_EXECUTE = {"key": "workload", "value": "training", "effect": "NoExecute"}


def node(name: str, taints: list[dict[str, str]], *, gpu: bool = True, allocatable: str = "8") -> dict[str, Any]:
    labels = {"kubernetes.io/hostname": name, **({"nvidia.com/gpu.present": "true", "gpu-node-pools/pool": "train"}
                                                 if gpu else {})}
    status = {"capacity": {"nvidia.com/gpu": "8"}, "allocatable": {"nvidia.com/gpu": allocatable}} if gpu else {}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "spec": {"taints": taints}, "status": status}


def daemonset(tolerations: list[dict[str, Any]], desired: int, name: str = "nvdp") -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": "kube-system"},
            "spec": {"selector": {"matchLabels": {"app": name}}, "template": {
                "metadata": {"labels": {"app": name}}, "spec": {"tolerations": tolerations, "containers": [
                {"name": "plugin", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}]}}},
            "status": {"desiredNumberScheduled": desired}}


def dump(tmp_path: Path, objects: list[dict[str, Any]]) -> str:
    path = tmp_path / "cluster.json"
    items = [*objects, finished_pod(objects[0]["metadata"]["name"])]  # a cluster's pods: the verdict is whole
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


def audit(capsys, path: str, *extra: str) -> tuple[int, str]:
    code = main(["audit", "--cluster-dump", path, *extra])
    return code, capsys.readouterr().out


def test_a_noexecute_toleration_with_seconds_runs_then_is_evicted_and_the_fix_removes_the_seconds(capsys, tmp_path):
    path = dump(tmp_path, [node("gpu-1", [NO_EXECUTE]), node("cpu-1", [], gpu=False), daemonset([TIMED], 2)])
    code, text = audit(capsys, path)
    cell = ("runs for 300 s, then is evicted and recreated: workload=training:NoExecute tolerated for 300 s only "
            "(tolerationSeconds)")
    assert f"    GpuNodePool train: {cell}\n" in text
    assert (f"  [mandatory] DaemonSet kube-system/nvdp: in GpuNodePool train: {cell}. -> remove tolerationSeconds from its "
            f"toleration {TIMED_TEXT} (workload=training:NoExecute evicts its pod after 300 s), or keep it off GPU nodes "
            "explicitly (nodeSelector/required node affinity)\n") in text
    assert "not tolerated" not in text
    assert "desiredNumberScheduled" not in text  # 2: gpu-1 and cpu-1, as the rules now say
    assert code == 1 and text.endswith("1 mandatory, 0 advisory, 0 info; exit 1 (--fail-on mandatory)\n")

    code, out = audit(capsys, path, "--json")
    report = json.loads(out)
    jsonschema.validate(report, SCHEMA)
    [row] = report["daemonSets"]
    assert (row["desiredNumberScheduled"], row["nodesByRules"]) == (2, 2)
    pool = row["pools"]["GpuNodePool train"]
    assert pool["status"] == "doesNotRun"  # it does not stay: not a pass, as the pack says
    assert pool["details"] == ["runs for 300 s on gpu-1, then is evicted and recreated: workload=training:NoExecute "
                               "tolerated for 300 s, then evicted; remove tolerationSeconds from its toleration"]
    assert pool["missingTolerations"] == [{
        "taint": "workload=training:NoExecute", "addToleration": {"key": "workload", "operator": "Exists", "effect": "NoExecute"},
        "why": "tolerated for 300 s only (tolerationSeconds): the pod is evicted, then recreated; remove tolerationSeconds "
               "from the toleration"}]
    assert [f["code"] for f in report["findings"]] == ["daemonset-does-not-run"]


def test_a_pool_where_it_is_evicted_from_some_nodes_names_the_eviction_and_counts_those_nodes(capsys, tmp_path):
    path = dump(tmp_path, [node("gpu-1", [NO_EXECUTE]), node("gpu-2", []), daemonset([TIMED], 2)])
    code, text = audit(capsys, path)
    assert ("    GpuNodePool train: runs on 1 of 2 node(s); stopped by workload=training:NoExecute (tolerated for 300 s "
            "only, then evicted and recreated)\n") in text
    assert "desiredNumberScheduled" not in text
    assert code == 1


def test_a_node_with_a_taint_not_tolerated_too_is_not_counted_and_each_taint_gets_its_fix(capsys, tmp_path):
    taints = [NO_EXECUTE, {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    path = dump(tmp_path, [node("gpu-1", taints), daemonset([TIMED], 1)])
    code, text = audit(capsys, path)
    assert ("    GpuNodePool train: does not run: workload=training:NoExecute tolerated for 300 s only (tolerationSeconds), "
            "nvidia.com/gpu=present:NoSchedule not tolerated\n") in text
    assert (f"-> remove tolerationSeconds from its toleration {TIMED_TEXT} (workload=training:NoExecute evicts its pod "
            "after 300 s); tolerate nvidia.com/gpu=present:NoSchedule with {key: nvidia.com/gpu, operator: Exists, "
            "effect: NoSchedule}, or keep it off") in text
    # the controller creates no pod: 0 by the rules, against the 1 the status claims
    assert "status.desiredNumberScheduled is 1 but the taint and selection rules say 0 node(s)" in text
    assert code == 1


def test_a_starved_node_whose_device_plugin_is_evicted_is_told_to_remove_the_seconds(capsys, tmp_path):
    path = dump(tmp_path, [node("gpu-1", [NO_EXECUTE], allocatable="0"), daemonset([TIMED], 1)])
    _, out = audit(capsys, path, "--json")
    [starved] = json.loads(out)["starvedNodes"]
    assert starved["reason"] == ("no device plugin covers the node: kube-system/nvdp does not run here "
                                 "(workload=training:NoExecute tolerated for 300 s, then evicted)")
    # the fix every finding gives for a toleration with seconds (daemonset-does-not-run's, above)
    assert starved["fix"] == (f"kube-system/nvdp: remove tolerationSeconds from its toleration {TIMED_TEXT} "
                              "(workload=training:NoExecute evicts its pod after 300 s)")


def test_the_what_if_on_a_pool_with_no_node_yet_says_it_would_be_evicted():
    snapshot = Snapshot("dump")
    snapshot.add("Node", node("gpu-1", []))
    snapshot.add("DaemonSet", daemonset([TIMED], 1))
    pool = DeclaredPool(0, "batch", "eks-managed", [Taint.parse("workload=training:NoExecute")], {"gpu-node-pools/pool": "batch"})
    report = run_audit(snapshot, declared=Declared("s", [pool], []))
    [cell] = report.to_json()["daemonSets"][0]["whatIf"].values()
    assert (cell["status"], cell["summary"]) == ("doesNotRun", (
        "would run on its new nodes for 300 s, then be evicted and recreated: it tolerates workload=training:NoExecute "
        "for 300 s only (tolerationSeconds)"))
