"""A correct GPU workload never fails ``gpu-toleration-allowlist`` by default.

A pod that requests a GPU resource (``nvidia.com/gpu``, ``nvidia.com/gpu.shared``,
``nvidia.com/mig-*``) is a GPU workload wherever it lives; the namespace allow-list stays for pods
that tolerate GPU taints without requesting GPUs.
"""

from __future__ import annotations

import pytest
from builders import EXISTS_GPU, deployment, node_group, run

from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.policies import rules as d

VLLM_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}


@pytest.mark.parametrize("resource", ["nvidia.com/gpu", "nvidia.com/gpu.shared", "nvidia.com/mig-1g.10gb"])
def test_a_gpu_requesting_deployment_in_any_namespace_passes(resource):
    vllm = deployment("vllm", "ml", tolerations=[VLLM_TOLERATION], resources={"limits": {resource: 1}})
    assert run(d.gpu_toleration_allowlist.POLICY, [node_group(), vllm]) == []


def test_the_components_own_workload_tolerations_pass():
    stack = validate_stack_config({
        "cluster": {"name": "ml", "nodeRoleArn": "arn:aws:iam::111122223333:role/n", "subnetIds": ["subnet-0a1b2c3d"]},
        "pools": [{"name": "inference", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"],
                   "scaling": {"minSize": 0, "maxSize": 2},
                   "taints": ["nvidia.com/gpu=present:NoSchedule", "workload=inference:NoSchedule"]}],
    })
    pool = stack.pools[0]
    from gpu_node_pool.k8s.taints import Toleration

    tolerations = [Toleration.for_taint(t).to_k8s() for t in pool.taint_list if t.effect.repels]
    app = deployment("infer", "ml", tolerations=tolerations, node_selector=pool.node_labels,
                     resources={"limits": {"nvidia.com/gpu": 1}})
    assert run(d.gpu_toleration_allowlist.POLICY, [node_group(taints=[str(t) for t in pool.taint_list]), app]) == []


def test_a_pod_tolerating_gpu_taints_without_requesting_gpus_still_fails():
    (found,) = run(d.gpu_toleration_allowlist.POLICY, [node_group(), deployment("sidecar", "ml", tolerations=[EXISTS_GPU])])
    assert "namespace 'ml' is not allowed" in found["message"] and found["enforcement"] == "mandatory"


def test_zero_gpus_is_not_a_gpu_request_and_catch_all_is_still_flagged():
    zero = deployment("zero", "ml", tolerations=[EXISTS_GPU], resources={"limits": {"nvidia.com/gpu": 0}})
    assert len(run(d.gpu_toleration_allowlist.POLICY, [node_group(), zero])) == 1
    catch_all = deployment("greedy", "ml", tolerations=[{"operator": "Exists"}], resources={"limits": {"nvidia.com/gpu": 1}})
    (found,) = run(d.gpu_toleration_allowlist.POLICY, [node_group(), catch_all])
    assert "catch-all toleration" in found["message"]
