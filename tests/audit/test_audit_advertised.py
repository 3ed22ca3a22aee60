"""gpupool audit compares a node's advertised GPU resources with what its pool promises (the plan's
pools[].gpus.advertised): a MIG pool whose node shows whole GPUs is a finding naming the missing label."""

from __future__ import annotations

from gpu_node_pool.audit.advertised import CODE
from gpu_node_pool.audit.cluster import read_node
from gpu_node_pool.audit.declared import Declared, DeclaredPool, drift
from gpu_node_pool.k8s.taints import Taint

TAINT = Taint.parse("nvidia.com/gpu=true:NoSchedule")
MIG_LABELS = {"gpu-node-pools/pool": "a100", "nvidia.com/mig.config": "all-1g.10gb",
              "nvidia.com/device-plugin.config": "mig-mixed"}


def node(name, labels, capacity):
    return read_node({"kind": "Node", "metadata": {"name": name, "labels": labels},
                      "spec": {"taints": [TAINT.to_k8s()]},
                      "status": {"capacity": capacity, "allocatable": capacity}}, ["a100"])


def declared(advertised, mechanism="mig-mixed"):
    pool = DeclaredPool(0, "a100", "eks-managed", [TAINT], dict(MIG_LABELS), mechanism=mechanism, advertised=advertised)
    return Declared("s", [pool], [])


def test_a_mig_node_showing_whole_gpus_is_a_finding_naming_the_missing_label():
    labels = {k: v for k, v in MIG_LABELS.items() if k != "nvidia.com/mig.config"}
    findings, _ = drift(declared({"nvidia.com/mig-1g.10gb": 32}), [node("n1", labels, {"nvidia.com/gpu": "8"})])
    (f,) = [f for f in findings if f.code == CODE]
    assert f.level == "mandatory" and f.pool == "a100" and f.subject == "Node n1"
    assert "advertises nvidia.com/gpu: 8" in f.message and "promises nvidia.com/mig-1g.10gb: 32" in f.message
    assert "nvidia.com/mig.config=all-1g.10gb is missing" in f.message
    assert f.fix.startswith("kubectl label node n1 nvidia.com/mig.config=all-1g.10gb")


def test_a_node_advertising_what_its_pool_promises_is_no_finding():
    findings, _ = drift(declared({"nvidia.com/mig-1g.10gb": 32}),
                        [node("n1", MIG_LABELS, {"nvidia.com/mig-1g.10gb": "32"})])
    assert [f for f in findings if f.code == CODE] == []


def test_labels_as_declared_but_wrong_resources_points_at_the_partitioner():
    findings, _ = drift(declared({"nvidia.com/mig-1g.10gb": 32}), [node("n1", MIG_LABELS, {"nvidia.com/gpu": "8"})])
    (f,) = [f for f in findings if f.code == CODE]
    assert "selecting labels are as declared" in f.message and "nvidia.com/mig.config.state" in f.fix


def test_an_unknown_promise_is_reported_as_not_judged():
    findings, notes = drift(declared({}), [node("n1", MIG_LABELS, {"nvidia.com/gpu": "8"})])
    assert [f for f in findings if f.code == CODE] == []
    assert any("not judged" in n and "n1" in n for n in notes)
