"""A negative or fractional GPU count, which the API server refuses for an extended resource, is not read as 0 or
rounded down: it is named under Not judged with the rule and its source, and a node whose labels make it a GPU node
stays one (not called starved)."""

from __future__ import annotations

import pytest
from audit_cluster import audit_dump, corpus_ds, eks_node, finished_pod

TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
RULE = ("the API server refuses it in a Node's status.capacity and status.allocatable (a quantity there is not "
        "negative, and an extended resource's is a whole number: ValidateResourceQuantityValue, kubernetes/kubernetes "
        "pkg/apis/core/validation/validation.go; extended resources: https://kubernetes.io/docs/concepts/configuration/"
        "manage-resources-containers/#extended-resources); a kubelet never reports it: the dump was edited or is not a "
        "Node's status as the API serves it; this resource was left out of the GPU-starved verdict")


def labelled_gpu_node(**counts: str) -> dict:
    """A node of a GpuNodePool labelled nvidia.com/gpu.present=true, with the given GPU counts."""
    node = eks_node("gpu-1", pool="inference", nodegroup="gpu", instance="g6e.2xlarge", gpus=1, taints=[TAINT])
    for part, count in counts.items():
        node["status"][part]["nvidia.com/gpu"] = count
    return node


@pytest.mark.parametrize(("count", "what"), [
    ("-1", "a negative number of devices"),
    ("1.5", "not a whole number of devices"),
    ("500m", "not a whole number of devices"),
    (-2, "a negative number of devices"),
])
def test_a_refused_allocatable_count_is_not_judged_with_the_rule(tmp_path, count, what):
    cluster = [labelled_gpu_node(allocatable=count), corpus_ds("kube-proxy-eks"), finished_pod("gpu-1")]
    code, report, text = audit_dump(tmp_path, cluster)
    [node] = report["gpuPools"][0]["nodes"]
    assert node["gpuEvidence"] == "capacity nvidia.com/gpu=1"
    assert node["gpuAllocatable"] == {} and node["starved"] is False
    assert report["starvedNodes"] == []
    shown = repr(count)
    assert {"subject": "Node gpu-1", "reason": f"status.allocatable.nvidia.com/gpu {shown}: {what}, {RULE}"} \
        in report["notJudged"]
    assert f"Node gpu-1: status.allocatable.nvidia.com/gpu {shown}: {what}" in text
    # a count left out of the starved verdict is a part not judged: never a clean exit
    assert f"\nPARTIAL: Node gpu-1: status.allocatable.nvidia.com/gpu {shown}: {what}" in text
    assert report["partial"] is True
    assert text.endswith("0 mandatory, 0 advisory, 0 info; PARTIAL verdict: 1 other part(s) not judged; exit 1 "
                         "(--fail-on mandatory)\n")
    assert code == 1


@pytest.mark.parametrize("count", ["-1", "0.5"])
def test_a_refused_capacity_leaves_a_labelled_gpu_node_a_gpu_node(tmp_path, count):
    _, report, _ = audit_dump(tmp_path, [labelled_gpu_node(capacity=count, allocatable=count)])
    [pool] = report["gpuPools"]
    [node] = pool["nodes"]
    assert node["gpuEvidence"] == "label nvidia.com/gpu.present=true"
    assert node["gpuAllocatable"] == {} and node["starved"] is False
    reasons = [n["reason"] for n in report["notJudged"] if n["subject"] == "Node gpu-1"]
    assert [r.split(":")[0] for r in reasons] == [f"status.capacity.nvidia.com/gpu {count!r}",
                                                  f"status.allocatable.nvidia.com/gpu {count!r}"]


def test_whole_counts_written_otherwise_are_read(tmp_path):
    _, report, _ = audit_dump(tmp_path, [labelled_gpu_node(capacity="2000m", allocatable="0")])
    [node] = report["gpuPools"][0]["nodes"]
    assert node["gpuEvidence"] == "capacity nvidia.com/gpu=2" and node["gpuAllocatable"] == {"nvidia.com/gpu": 0}
    assert node["starved"] is True
    assert not [n for n in report["notJudged"] if n["subject"] == "Node gpu-1" and "devices" in n["reason"]]
