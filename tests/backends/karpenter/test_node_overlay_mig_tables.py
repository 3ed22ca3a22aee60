"""A MIG pool's NodeOverlay with a profile the GPU has no figure for: one message, consistent with the MIG
profile tables an EC2 GPU has (A100, H100, H200, B200; gpu_agents/mig_profiles.py, README.md's MIG table)."""

from __future__ import annotations

from typing import Any

from builders import config_issues

from gpu_node_pool.config import validate_stack_config

EKS = {"name": "ml", "nodeRoleArn": "arn:aws:iam::123456789012:role/n", "karpenterVersion": "1.14"}


def raw(types: list[str], profile: str) -> dict[str, Any]:
    pool = {"name": "mig", "backend": "karpenter", "instanceTypes": types, "nodeClass": {}, "limits": {"nvidia.com/gpu": 99},
            "mig": {"strategy": "mixed", "profile": profile}, "nodeOverlay": {"enabled": True}}
    return {"cluster": EKS, "devicePlugin": {"provider": "gpu-operator"}, "pools": [pool]}


def test_a_profile_the_h100_lacks_is_refused_once_at_mig_profile():
    issues = config_issues(raw(["p5.48xlarge"], "1g.5gb"))
    assert [path for path, _ in issues] == ["pools[0].mig.profile"]
    assert "'1g.5gb' is not a MIG profile of this GPU (H100-80GB)" in issues[0][1]
    assert not any("confirmed for A30 and A100 only" in message for _, message in issues)


def test_the_h100_table_serves_the_overlay():
    validate_stack_config(raw(["p5.48xlarge"], "1g.10gb"))  # raises nothing


def test_a_gpu_without_a_table_is_named_with_the_tables_there_are():
    messages = dict(config_issues(raw(["p6-b300.48xlarge"], "1g.23gb")))
    overlay = messages["pools[0]"]
    assert "no MIG profile table is known for NVIDIA B300 (p6-b300.48xlarge" in overlay
    assert ("the EC2 GPUs with one: A100-40GB (p4d), A100-80GB (p4de), H100-80GB (p5), H200-141GB (p5e, p5en), "
            "B200-180GB (p6-b200))") in overlay
    assert "A30" not in overlay  # a table no EC2 type reaches


def test_mixed_gpus_say_which_table_lacks_the_profile():
    messages = dict(config_issues(raw(["p4d.24xlarge", "p5.48xlarge"], "1g.5gb")))
    assert "'1g.5gb' is not in the MIG profile table of H100-80GB (p5.48xlarge), which has 1g.10gb" in messages["pools[0]"]
