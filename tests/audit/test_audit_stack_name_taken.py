"""A live DaemonSet of the name the stack gives one of its own, without the labels the stack writes on it (a
``kubectl apply`` of Google's driver installer): the audit says the stack did not create it and that ``pulumi up``
will not create the stack's over it (a mandatory ``stack-name-taken`` with the fix), and judges its what-if rows as
the cluster's object, never "managed by the stack"."""

from __future__ import annotations

from typing import Any

from gpu_node_pool.audit.declared import Declared, DeclaredPool
from gpu_node_pool.audit.report import run_audit
from gpu_node_pool.audit.snapshot import Snapshot

INSTALLER = "nvidia-driver-installer"


def installer(labels: dict[str, str] | None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": INSTALLER, "namespace": "kube-system"}
    if labels is not None:
        meta["labels"] = labels
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta,
            "spec": {"selector": {"matchLabels": {"k8s-app": INSTALLER}},
                     "template": {"metadata": {"labels": {"k8s-app": INSTALLER}},
                                  "spec": {"tolerations": [{"operator": "Exists"}],
                                           "initContainers": [{"name": INSTALLER, "image": "cos-nvidia-installer:fixed"}],
                                           "containers": [{"name": "pause", "image": "gke.gcr.io/pause:3.8"}]}}}}


def audit(live_labels: dict[str, str] | None):
    snapshot = Snapshot("dump")
    snapshot.add("Node", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "gke-cos-1", "labels": {
        "cloud.google.com/gke-nodepool": "cos", "gpu-node-pools/pool": "cos", "nvidia.com/gpu.present": "true"}},
        "status": {"capacity": {"nvidia.com/gpu": "1"}, "allocatable": {"nvidia.com/gpu": "1"}}})
    snapshot.add("DaemonSet", installer(live_labels))
    pools = [DeclaredPool(0, "cos", "gke", [], {"gpu-node-pools/pool": "cos"})]
    return run_audit(snapshot, declared=Declared("gk", pools, [installer({"k8s-app": INSTALLER})]))


def test_a_same_name_object_without_the_stack_s_labels_is_told_with_the_readme_fix():
    report = audit(None)
    [found] = [f for f in report.findings if f.code == "stack-name-taken"]
    assert found.level == "mandatory" and found.subject == f"DaemonSet kube-system/{INSTALLER}"
    assert "this one is not the stack's: it lacks the labels the stack writes (k8s-app=nvidia-driver-installer" in found.message
    assert "AlreadyExists" in found.message and "upsertExistingObjects" in found.message
    assert f"kubectl -n kube-system delete daemonset {INSTALLER}" in found.fix
    assert "gkeDriverInstaller: {enabled: false}" in found.fix and "stack gk" in found.fix
    text = report.to_text()
    assert "managed by the stack" not in text
    assert "stack-name-taken" in str(report.to_json())


def test_an_object_with_the_stack_s_labels_is_judged_in_the_stack_row():
    report = audit({"k8s-app": INSTALLER})
    assert not [f for f in report.findings if f.code == "stack-name-taken"]
    cluster_row = next(r for r in report.rows if r.ds.origin == "cluster" and r.ds.name == INSTALLER)
    assert {c.summary for c in cluster_row.whatif.values()} == {
        "the stack deploys one of this name: judged in its (stack) row"}
