"""A Karpenter MIG pool on GPUs without MIG (L4, L40S): one refusal at ``mig``, in the words eks-managed uses, with or
without ``nodeOverlay``; the MIG-capable GPUs it offers are the ones README.md's MIG table lists."""

from __future__ import annotations

import re
from typing import Any

from builders import config_issues
from conftest import ROOT

from gpu_node_pool.gpu_agents.mig import MIG_GUIDE_GPUS, tabled_aws_gpus

EKS = {"name": "ml", "nodeRoleArn": "arn:aws:iam::123456789012:role/n", "karpenterVersion": "1.14"}


def karpenter(overlay: bool = True, **extra: Any) -> dict[str, Any]:
    pool = {"name": "mig", "backend": "karpenter", "instanceFamilies": ["g6e", "g6"], "gpuCounts": [1], "nodeClass": {},
            "limits": {"nvidia.com/gpu": 32}, "mig": {"strategy": "single", "profile": "1g.10gb"}} | extra
    if overlay:
        pool["nodeOverlay"] = {"enabled": True}
    return {"cluster": EKS, "devicePlugin": {"provider": "gpu-operator"}, "pools": [pool]}


def eks_managed(types: list[str]) -> dict[str, Any]:
    cluster = {"name": "ml", "nodeRoleArn": "arn:aws:iam::111122223333:role/n", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}
    return {"cluster": cluster, "devicePlugin": {"provider": "gpu-operator"},
            "pools": [{"name": "m", "backend": "eks-managed", "instanceTypes": types, "scaling": {"minSize": 0, "maxSize": 2},
                       "mig": {"strategy": "single", "profile": "1g.10gb"}}]}


G6 = "g6.16xlarge, g6.2xlarge, g6.4xlarge, g6.8xlarge, g6.xlarge"
G6E = "g6e.16xlarge, g6e.2xlarge, g6e.4xlarge, g6e.8xlarge, g6e.xlarge"


def test_l4_and_l40s_are_refused_once_as_gpus_without_mig_naming_every_type():
    ((path, message),) = config_issues(karpenter())
    assert path == "pools[0].mig"
    assert message.startswith(f"the GPUs of this pool (NVIDIA L4 on {G6}; NVIDIA L40S on {G6E}) do not support MIG "
                              f"({MIG_GUIDE_GPUS}); remove mig or use a MIG-capable GPU")
    assert "no MIG profile table" not in message and "remove nodeOverlay" not in message


def test_without_the_overlay_the_refusal_is_the_same_fact_not_karpenters_missing_mig_resources():
    ((path, message),) = config_issues(karpenter(overlay=False, instanceFamilies=["g6e"]))
    assert path == "pools[0].mig"
    assert message.startswith(f"the GPU of this pool (NVIDIA L40S on {G6E}) does not support MIG ({MIG_GUIDE_GPUS})")
    assert "nodeOverlay" not in message and "kubernetes-sigs/karpenter#729" not in message


def test_karpenter_and_eks_managed_state_one_fact_from_one_source():
    ((_, eks),) = config_issues(eks_managed(["g6e.xlarge"]))
    ((_, mine),) = config_issues(karpenter(instanceFamilies=["g6e"]))
    fact = f"does not support MIG ({MIG_GUIDE_GPUS}); remove mig or use a MIG-capable GPU"
    assert fact in eks and fact in mine


def test_a_pool_that_mixes_a_mig_gpu_with_one_without_is_told_to_leave_those_types_out():
    ((path, message),) = config_issues(karpenter(instanceFamilies=None, gpuCounts=None,
                                                 instanceTypes=["p4de.24xlarge", "g6e.12xlarge"]))
    assert path == "pools[0].mig"
    assert message.startswith("the GPU of this pool (NVIDIA L40S on g6e.12xlarge) does not support MIG")
    assert message.endswith("leave those types out, keeping the types of one MIG-capable GPU")


def _readme_mig_families() -> dict[str, set[str]]:
    """README.md's MIG table: {GPU as written: EC2 families of its types}."""
    text = (ROOT / "README.md").read_text()
    table = text[text.index("| GPU (EC2 types; GKE accelerator types) |"):]
    out = {}
    for row in re.findall(r"^\| ([^|]+?) \(([^;)]+)[;)]", table.split("\n\n")[0], re.M)[1:]:
        gpu, types = row
        out[gpu] = {t.strip().split(".")[0] for t in types.split(",")}
    return out


def test_the_mig_capable_gpus_a_message_offers_are_the_rows_of_the_readme_mig_table():
    offered = {m.group(1): set(m.group(2).split(", ")) for m in re.finditer(r"(\S+) \(([^)]+)\)", tabled_aws_gpus())}
    readme = _readme_mig_families()
    assert sorted(map(sorted, offered.values())) == sorted(map(sorted, readme.values())), (offered, readme)
    assert len(offered) == len(readme) and not any(gpu.startswith("A30") for gpu in offered)
    ((_, message),) = config_issues(karpenter())
    assert message.endswith(f"(with a MIG profile table: {tabled_aws_gpus()})")
