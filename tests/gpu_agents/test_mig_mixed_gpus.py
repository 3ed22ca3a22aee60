"""A MIG pool whose instance types carry different GPUs: a profile and its device count belong to one GPU model."""

from __future__ import annotations

from builders import config_issues

CLUSTER = {"name": "ml", "nodeRoleArn": "arn:aws:iam::111122223333:role/n", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}


def raw(types: list[str], profile: str) -> dict:
    return {"cluster": CLUSTER, "devicePlugin": {"provider": "gpu-operator"},
            "pools": [{"name": "m", "backend": "eks-managed", "instanceTypes": types, "scaling": {"minSize": 0, "maxSize": 2},
                       "mig": {"strategy": "single", "profile": profile}}]}


def test_two_gpu_models_in_one_mig_pool_are_refused_naming_them():
    ((path, message),) = config_issues(raw(["p4d.24xlarge", "p5.48xlarge"], "1g.10gb"))
    assert path == "pools[0].mig"
    assert message.startswith("the pool's instance types carry different GPUs (NVIDIA A100 40GB, NVIDIA H100)")
    assert "declare one pool per GPU model" in message and "not in the component's tables" not in message


def test_a_gpu_whose_memory_the_catalog_lacks_for_one_type_is_one_gpu_not_two():
    # p3.2xlarge's V100 memory is not sourced (None), p3dn.24xlarge's is 32768 MiB: both carry the V100
    issues = config_issues(raw(["p3.2xlarge", "p3dn.24xlarge"], "1g.10gb"))
    mig = [message for path, message in issues if path == "pools[0].mig"]
    assert mig == ["the GPU of this pool (NVIDIA V100) does not support MIG (NVIDIA MIG User Guide, Supported GPUs: "
                   "A30, A100, H100, H200, B200 and later); remove mig or use a MIG-capable GPU"]


def test_two_gpus_of_one_name_are_told_apart_by_their_memory():
    # g6f.large and g6f.4xlarge carry fractions of one L4 of different memory: never one name as "different GPUs"
    issues = config_issues(raw(["g6f.large", "g6f.4xlarge"], "1g.10gb"))
    (message,) = [message for path, message in issues if path == "pools[0].mig"]
    assert message.startswith("the pool's instance types carry different GPUs (NVIDIA L4 (fraction) 2861 MiB, "
                              "NVIDIA L4 (fraction) 11444 MiB)")
