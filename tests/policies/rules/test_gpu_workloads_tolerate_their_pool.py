"""Policy gpu-workloads-tolerate-their-pool: effective tolerations (what admission and the DaemonSet controller add), and
workloads that target GPU nodes but cannot land on them."""

from __future__ import annotations

import pytest
from builders import deployment, gke_pool, node_group, run

from gpu_node_pool.k8s.taints import (
    Taint,
    effective_tolerations,
    implied_tolerations,
    requested_extended_resources,
    tolerates,
)
from gpu_node_pool.policies import rules as d


def added_tolerations(spec, platform, kind):
    return [t for t, _ in implied_tolerations(spec, platform, kind)]

POOL_LABEL = {"gpu-node-pools/pool": "inference"}
GPU_REQUEST = {"limits": {"nvidia.com/gpu": 1}}


def inference_pool(*taints: str):
    return node_group("inference", taints=taints, labels={"nvidia.com/gpu.present": "true", **POOL_LABEL})


# --- effective tolerations ---------------------------------------------------------------------


def test_extended_resource_toleration_on_eks_and_gke_only_or_when_the_stack_says_so():
    spec = {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 1, "cpu": "1"}}}],
            "initContainers": [{"name": "i", "resources": {"requests": {"vpc.amazonaws.com/efa": 1}}}]}
    assert requested_extended_resources(spec) == ["nvidia.com/gpu", "vpc.amazonaws.com/efa"]
    gpu = Taint.parse("nvidia.com/gpu=present:NoSchedule")
    for platform in ("eks", "gke"):
        assert any(tolerates(t, gpu) for t in effective_tolerations(spec, platform, "Deployment"))
    assert not any(tolerates(t, gpu) for t in effective_tolerations(spec, "self-managed", "Deployment"))
    assert any(tolerates(t, gpu) for t in effective_tolerations(spec, "self-managed", "Deployment",
                                                                 admission_plugins=["ExtendedResourceToleration"]))
    with pytest.raises(ValueError):
        added_tolerations(spec, "aks", "Pod")


def test_the_daemonset_controller_tolerations():
    added = added_tolerations({"hostNetwork": True, "containers": []}, "eks", "DaemonSet")
    assert sorted((t.key, t.effect) for t in added) == sorted(
        [("node.kubernetes.io/not-ready", "NoExecute"), ("node.kubernetes.io/unreachable", "NoExecute")]
        + [(f"node.kubernetes.io/{k}", "NoSchedule") for k in
           ("disk-pressure", "memory-pressure", "pid-pressure", "unschedulable", "network-unavailable")])
    not_ready = Taint.parse("node.kubernetes.io/not-ready:NoExecute")
    assert any(tolerates(t, not_ready) for t in added_tolerations({}, "eks", "DaemonSet"))
    assert not any(tolerates(t, not_ready) for t in added_tolerations({}, "eks", "Deployment"))
    network = Taint.parse("node.kubernetes.io/network-unavailable:NoSchedule")
    assert any(tolerates(t, network) for t in added_tolerations({"hostNetwork": True}, "eks", "DaemonSet"))
    assert not any(tolerates(t, network) for t in added_tolerations({}, "eks", "DaemonSet"))


# --- gpu-workloads-tolerate-their-pool --------------------------------------------------------


def test_vllm_with_an_equal_toleration_of_the_wrong_value_is_pending_forever():
    pool = inference_pool("nvidia.com/gpu=present:NoSchedule", "workload=inference:NoSchedule")
    vllm = deployment("vllm", "ml", node_selector=POOL_LABEL, resources=GPU_REQUEST,
                      tolerations=[{"key": "workload", "operator": "Equal", "value": "infer", "effect": "NoSchedule"}])
    (found,) = run(d.gpu_workloads_tolerate_their_pool.POLICY, [pool, vllm])
    assert "workload=inference:NoSchedule not tolerated" in found["message"]
    assert "nvidia.com/gpu" not in found["message"].split("not tolerated")[0].split(":", 2)[-1]  # admission covers it
    assert "workload=inference:NoSchedule" in found["message"] and found["enforcement"] == "advisory"


def test_a_gke_helper_selecting_the_accelerator_without_requesting_a_gpu_is_reported():
    pool = gke_pool(taints=("nvidia.com/gpu=present:NoSchedule",), labels={})
    helper = deployment("aibrix-helper", "aibrix", node_selector={"cloud.google.com/gke-accelerator": "nvidia-l4"})
    (found,) = run(d.gpu_workloads_tolerate_their_pool.POLICY, [pool, helper])
    assert "nvidia.com/gpu=present:NoSchedule not tolerated" in found["message"]


def test_the_counter_case_stays_clean_because_admission_adds_the_gpu_toleration():
    pool = inference_pool("nvidia.com/gpu=present:NoSchedule")
    vllm = deployment("vllm", "ml", node_selector=POOL_LABEL, resources=GPU_REQUEST,
                      tolerations=[{"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}])
    assert run(d.gpu_workloads_tolerate_their_pool.POLICY, [pool, vllm]) == []


def test_one_of_several_selected_pools_suffices_and_non_gpu_targets_are_ignored():
    a = inference_pool("nvidia.com/gpu=present:NoSchedule", "workload=inference:NoSchedule")
    b = node_group("other", taints=("nvidia.com/gpu=present:NoSchedule",), labels={"nvidia.com/gpu.present": "true"})
    app = deployment("app", "ml", node_selector={"nvidia.com/gpu.present": "true"}, resources=GPU_REQUEST)
    assert run(d.gpu_workloads_tolerate_their_pool.POLICY, [a, b, app]) == []
    web = deployment("web", "web", node_selector={"tier": "web"})
    assert run(d.gpu_workloads_tolerate_their_pool.POLICY, [a, web]) == []


# --- a GPU workload whose selection no pool of the stack meets ------------------------------------


def test_a_pool_label_typo_is_named_with_the_values_the_pools_carry():
    burst = node_group("burst", labels={"nvidia.com/gpu.present": "true", "gpu-node-pools/pool": "burst"})
    typo = deployment(node_selector={"gpu-node-pools/pool": "inferense"}, resources=GPU_REQUEST,
                      tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists"}])
    (found,) = run(d.gpu_workloads_tolerate_their_pool.POLICY, [inference_pool("nvidia.com/gpu=present:NoSchedule"), burst, typo])
    assert found["enforcement"] == "advisory"
    assert found["message"].startswith("Deployment web/web requests GPUs but its node selection matches no GPU pool of this stack")
    assert "gpu-node-pools/pool in ['burst', 'inference']" in found["message"]


def test_selections_the_pools_labels_cannot_decide_or_workloads_without_gpus_are_not_flagged():
    pool = inference_pool("nvidia.com/gpu=present:NoSchedule")
    by_type = deployment(node_selector={"node.kubernetes.io/instance-type": "p5.48xlarge"}, resources=GPU_REQUEST)
    no_gpu = deployment(node_selector={"gpu-node-pools/pool": "inferense"})
    assert run(d.gpu_workloads_tolerate_their_pool.POLICY, [pool, by_type]) == []
    assert run(d.gpu_workloads_tolerate_their_pool.POLICY, [pool, no_gpu]) == []
