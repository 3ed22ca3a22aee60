"""A DaemonSet the stack deploys that the what-if cannot read (a pod spec the API server refuses) is never passed
silently: it is listed once as not judged, with the refusal, its fix, and that the fix belongs in the stack, and the
verdict is partial."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from conftest import ROOT

from gpu_node_pool.audit.declared import Declared, DeclaredPool
from gpu_node_pool.audit.report import run_audit
from gpu_node_pool.audit.snapshot import Snapshot
from gpu_node_pool.k8s.taints import Taint

SCHEMA = json.loads((ROOT / "components/gpu_node_pool/audit/report.schema.json").read_text())
TAINT = "nvidia.com/gpu=true:NoSchedule"


def gpu_node(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"gpu-node-pools/pool": "gpu", "nvidia.com/gpu.present": "true"}},
            "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]},
            "status": {"capacity": {"nvidia.com/gpu": "1"}, "allocatable": {"nvidia.com/gpu": "1"}}}


def stack_plugin(tolerations: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "plugin", "namespace": "kube-system"},
            "spec": {"template": {"spec": {"tolerations": tolerations,
                                           "containers": [{"name": "plugin", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}]}}}}


def audit(tolerations: list[dict[str, Any]]):
    snapshot = Snapshot("dump")
    snapshot.add("Node", gpu_node("gpu-1"))
    pools = [DeclaredPool(0, "gpu", "eks-managed", [Taint.parse(TAINT)], {"gpu-node-pools/pool": "gpu"}),
             DeclaredPool(1, "batch", "eks-managed", [Taint.parse(TAINT)], {"gpu-node-pools/pool": "batch"})]
    return run_audit(snapshot, declared=Declared("s", pools, [stack_plugin(tolerations)]))


def test_a_stack_daemonset_the_api_server_refuses_is_not_judged_with_the_refusal_and_its_fix():
    # tolerationSeconds on a NoSchedule toleration: ValidateTolerations refuses the pod spec
    report = audit([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 60}])
    data = report.to_json()
    jsonschema.validate(data, SCHEMA)
    [item] = [n for n in data["notJudged"] if n["subject"] == "DaemonSet kube-system/plugin (stack)"]  # once, not per pool
    assert item["reason"].startswith("as the stack would deploy it, spec.template.spec.tolerations[0].tolerationSeconds 60: "
                                     "needs the effect NoExecute")
    assert "the API server refuses this pod spec" in item["reason"]
    assert "fix: set effect NoExecute, or drop tolerationSeconds" in item["reason"]
    assert item["reason"].endswith("the what-if judges it on no declared pool (gpu, batch) until that is fixed in the stack")
    text = report.to_text()
    assert "DaemonSet kube-system/plugin (stack): as the stack would deploy it, spec.template.spec.tolerations[0]" in text
    assert not [n for n in data["notJudged"] if n["subject"].startswith("DaemonSet kube-system/plugin on ")]
    # the what-if judged it on no pool: never clean
    assert data["partial"] is True and report.exit_code == 1
    assert any(line.startswith("DaemonSet kube-system/plugin (stack): the what-if judges it on no declared pool")
               for line in data["objectsSkipped"])


def test_a_stack_daemonset_read_whole_gets_no_such_item():
    report = audit([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}])
    assert not [n for n in report.to_json()["notJudged"] if n["subject"].startswith("DaemonSet kube-system/plugin")]
    cells = report.to_json()["daemonSets"][0]["whatIf"]
    assert {k: c["status"] for k, c in cells.items()} == {"pool gpu as declared": "runs", "pool batch as declared": "runs"}
