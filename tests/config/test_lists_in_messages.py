"""Config messages name several values as the product writes lists (``a, b``; ``name: count``), never a Python
list or dict."""

from __future__ import annotations

import pytest

from gpu_node_pool.backends._shared.cluster_autoscaler import several_effects_problem
from gpu_node_pool.config import ConfigError, validate_stack_config
from gpu_node_pool.k8s.taints import Taint

CLUSTER = {"name": "ml-dev", "kubernetesVersion": "1.33", "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-dev-gpu-node",
           "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}


def _messages(raw: dict) -> dict[str, str]:
    with pytest.raises(ConfigError) as err:
        validate_stack_config(raw)
    return {i.path: i.message for i in err.value.issues}


def test_instance_types_of_different_gpu_counts_are_listed_with_their_counts():
    said = _messages({"cluster": CLUSTER, "pools": [{"name": "a", "backend": "eks-managed",
                                                     "instanceTypes": ["g6.xlarge", "p5.48xlarge"],
                                                     "scaling": {"minSize": 0, "maxSize": 2}}]})
    assert said["pools[0]"].startswith("minSize 0 with instanceTypes g6.xlarge, p5.48xlarge of different GPU counts "
                                       "(g6.xlarge: 1, p5.48xlarge: 8): Cluster Autoscaler"), said


def test_bad_ids_and_hashes_are_listed_quoted():
    cluster = {**CLUSTER, "subnetIds": ["subnet-xyz", "10.0.0.0/24"]}
    said = _messages({"cluster": cluster, "pools": [{"name": "a", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"],
                                                     "scaling": {"minSize": 1, "maxSize": 2}}]})
    assert said["cluster.subnetIds"].startswith("'subnet-xyz', '10.0.0.0/24' are not subnet ids"), said


def test_keys_with_several_effects_are_listed():
    taints = [Taint.parse(t) for t in ("nvidia.com/gpu=present:NoSchedule", "nvidia.com/gpu=present:NoExecute",
                                       "team=a:NoSchedule", "team=a:NoExecute")]
    assert several_effects_problem(taints, "fix it").startswith(
        "taint key(s) nvidia.com/gpu, team carry several effects")
