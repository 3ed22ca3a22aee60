"""A GPU count beyond what Kubernetes can count (an int64) is named with the rule, never printed as hundreds of
digits, and the node still counts as a GPU node."""

from __future__ import annotations

from audit_cluster import audit_dump, eks_node

TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}


def node_with(count: str) -> dict:
    node = eks_node("n0", pool=None, nodegroup="gpu", instance="m6i.large", gpus=1, taints=[TAINT])
    node["status"]["capacity"]["nvidia.com/gpu"] = node["status"]["allocatable"]["nvidia.com/gpu"] = count
    return node


def test_a_count_past_int64_is_not_judged_with_the_rule_and_never_printed_whole(tmp_path):
    code, report, text = audit_dump(tmp_path, [node_with("1e400")])
    assert "0" * 30 not in text and "0" * 30 not in str(report)
    [pool] = report["gpuPools"]
    assert pool["nodes"][0]["gpuEvidence"] == "capacity nvidia.com/gpu (more than an int64 count)"
    assert pool["nodes"][0]["gpuAllocatable"] == {} and pool["nodes"][0]["starved"] is False
    reasons = [n["reason"] for n in report["notJudged"] if n["subject"] == "Node n0"]
    assert reasons[1].startswith("status.allocatable.nvidia.com/gpu '1e400': more devices than Kubernetes can count "
                                 "(a device count is an int64, at most 9223372036854775807: apimachinery "
                                 "resource.Quantity Value/AsInt64")
    assert "Node n0: status.capacity.nvidia.com/gpu '1e400': more devices than Kubernetes can count" in text


def test_the_largest_int64_count_is_read(tmp_path):
    _, report, _ = audit_dump(tmp_path, [node_with("9223372036854775807")])
    assert report["gpuPools"][0]["nodes"][0]["gpuAllocatable"] == {"nvidia.com/gpu": 2**63 - 1}
    assert not [n for n in report["notJudged"] if n["subject"] == "Node n0"]
