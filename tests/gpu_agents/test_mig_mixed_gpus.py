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
