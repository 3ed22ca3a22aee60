"""Messages of the NodePool backends and the GPU-agent rules name several values as a person writes them:
``a, b`` (text/listing.py), or YAML flow ``[a, b]`` where the message shows what to write; never a Python list."""

from __future__ import annotations

from typing import Any

from builders import config_issues

CLUSTER = {"name": "ml-prod", "nodeRoleArn": "arn:aws:iam::444455556666:role/ml-prod-gpu-node"}


def _messages(pool: dict[str, Any]) -> str:
    return "\n".join(f"{path}: {message}" for path, message in config_issues({"cluster": CLUSTER, "pools": [pool]}))


def _karpenter(**changes: Any) -> dict[str, Any]:
    return {"name": "burst", "backend": "karpenter", "instanceFamilies": ["g6e"], "nodeClass": {},
            "limits": {"nvidia.com/gpu": 8}, **changes}


def test_families_of_the_other_architecture_are_named_not_printed_as_a_list():
    out = _messages(_karpenter(architecture="arm64", instanceFamilies=["g6e", "g6"]))
    assert "g6e, g6 are x86_64 but architecture is arm64" in out, out
    assert "['" not in out, out


def test_an_integer_operator_with_a_word_shows_the_values_as_yaml():
    out = _messages(_karpenter(requirements=[
        {"key": "karpenter.k8s.aws/instance-memory", "operator": "Gt", "values": ["abc"]}]))
    assert "needs exactly one non-negative integer value, e.g. values: [\"0\"] (got [abc])" in out, out


def test_repeated_gpu_counts_are_shown_as_yaml():
    out = _messages(_karpenter(gpuCounts=[1, 1]))
    assert "[1, 1] must be distinct GPU counts >= 1" in out, out


def test_gpu_sharing_on_types_without_a_gpu_names_them():
    out = _messages(_karpenter(instanceFamilies=None, instanceTypes=["m5.large", "c5.xlarge", "g6.xlarge"],
                               gpuSharing={"strategy": "timeSlicing", "replicas": 2}))
    assert "pools[0].gpuSharing: instance types m5.large, c5.xlarge have no NVIDIA GPU (instance catalog)" in out, out
