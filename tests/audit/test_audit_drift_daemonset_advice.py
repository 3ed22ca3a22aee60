"""With ``--stack``, a taint that drift reports on live GPU nodes (``imperative-taint``: not declared, remove it or
declare it; ``taint-value-drift``: set the declared value back) is not one a DaemonSet finding of the same report tells
the user to tolerate: the DaemonSet's fix (``daemonset-does-not-run``, and a starved node's device plugin) names the
drift finding and says the same two ways out, so the two findings agree."""

from __future__ import annotations

from audit_cluster import corpus_ds, eks_node

from gpu_node_pool.audit.declared import Declared, DeclaredPool
from gpu_node_pool.audit.report import run_audit
from gpu_node_pool.audit.snapshot import Snapshot
from gpu_node_pool.k8s.taints import Taint

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
MAINTENANCE = {"key": "maintenance", "value": "true", "effect": "NoSchedule"}
TOLERATES_GPU = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def agent(name: str, tolerations: list[dict], image: str = "registry.example.com/agent:1") -> dict:
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": "ops"},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": name, "image": image}], "tolerations": tolerations}}}}


def audit(node_taints: list[dict], daemonsets: list[dict], *, stack: bool = True, gpus: int | None = 1):
    """One node of pool ``inference`` carrying ``node_taints``; with ``stack``, the pool declares only
    ``nvidia.com/gpu=present:NoSchedule``."""
    snapshot = Snapshot("dump")
    snapshot.add("Node", eks_node("gpu-1", pool="inference", nodegroup="inference", instance="g6.xlarge", gpus=gpus,
                                  taints=node_taints))
    for ds in daemonsets:
        snapshot.add("DaemonSet", ds)
    declared = Declared("s", [DeclaredPool(0, "inference", "eks-managed", [Taint.parse("nvidia.com/gpu=present:NoSchedule")],
                                           {})], []) if stack else None
    return run_audit(snapshot, declared=declared)


def one(report, code: str, subject: str):
    [found] = [f for f in report.findings if f.code == code and f.subject == subject]
    return found


def test_a_daemonset_stopped_by_an_undeclared_taint_is_told_what_drift_says_not_to_tolerate_it():
    report = audit([GPU_TAINT, MAINTENANCE], [agent("collector", TOLERATES_GPU)])
    drift = one(report, "imperative-taint", "Node gpu-1")
    assert drift.fix.startswith("declare it in pools[0] 'inference'.taints, or remove it")
    ds = one(report, "daemonset-does-not-run", "DaemonSet ops/collector")
    assert ds.fix == ("for maintenance=true:NoSchedule, which drift reports (pool inference does not declare it: see "
                      "the finding on Node gpu-1 about maintenance=true:NoSchedule): remove it from the node, or, if the pool is to declare it, "
                      "tolerate it with {key: maintenance, operator: Exists, effect: NoSchedule}")
    assert not ds.fix.startswith("tolerate")  # the first advice is drift's, and no "keep it off": it is meant for GPU nodes


def test_a_daemonset_stopped_by_a_declared_and_a_drifted_taint_gets_its_own_fix_first_then_drifts():
    report = audit([GPU_TAINT, MAINTENANCE], [agent("logs", [])])
    ds = one(report, "daemonset-does-not-run", "DaemonSet ops/logs")
    assert ds.fix.startswith("tolerate nvidia.com/gpu=present:NoSchedule with {key: nvidia.com/gpu, operator: Exists, "
                             "effect: NoSchedule}, or keep it off GPU nodes explicitly")
    assert "; for maintenance=true:NoSchedule, which drift reports (pool inference does not declare it" in ds.fix
    assert "tolerate maintenance=true:NoSchedule" not in ds.fix


def test_a_starved_nodes_device_plugin_fix_agrees_with_drift_too():
    plugin = corpus_ds("nvidia-device-plugin-static")  # tolerates nvidia.com/gpu only
    report = audit([GPU_TAINT, MAINTENANCE], [plugin], gpus=None)
    starved = one(report, "gpu-node-starved", "Node gpu-1")
    assert "tolerate maintenance=true:NoSchedule" not in starved.fix
    assert ("which drift reports (pool inference does not declare it: see the finding on Node gpu-1 about "
            "maintenance=true:NoSchedule)") in starved.fix


def test_a_taint_whose_value_drifted_is_set_back_and_the_declared_one_tolerated_if_need_be():
    drifted = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
    equal_present = [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}]
    report = audit([drifted], [agent("exact", equal_present), agent("none", [])])
    one(report, "taint-value-drift", "Node gpu-1")
    exact = one(report, "daemonset-does-not-run", "DaemonSet ops/exact")
    assert exact.fix == ("for nvidia.com/gpu=true:NoSchedule, which drift reports (pool inference declares "
                         "nvidia.com/gpu=present:NoSchedule: see the finding on Node gpu-1 about "
                         "nvidia.com/gpu=true:NoSchedule): set the declared value "
                         "back on the node")
    none = one(report, "daemonset-does-not-run", "DaemonSet ops/none")
    assert none.fix.endswith("set the declared value back on the node, and tolerate that taint with "
                             "{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}")


def test_without_the_stack_there_is_no_drift_and_the_fix_is_to_tolerate():
    report = audit([GPU_TAINT, MAINTENANCE], [agent("collector", TOLERATES_GPU)], stack=False)
    assert not [f for f in report.findings if f.code == "imperative-taint"]
    ds = one(report, "daemonset-does-not-run", "DaemonSet ops/collector")
    assert ds.fix.startswith("tolerate maintenance=true:NoSchedule with {key: maintenance, operator: Exists, effect: NoSchedule}")
