"""Policy daemonsets-tolerate-exactly (advisory): a DaemonSet outside the allowed namespaces tolerates the GPU pool
taints by key, not with a catch-all toleration."""

from __future__ import annotations

from builders import EXISTS_GPU, daemonset, deployment, node_group, run

from gpu_node_pool.policies import StackResource
from gpu_node_pool.policies import rules as d

POLICY = d.daemonsets_tolerate_exactly.POLICY
CATCH_ALL = {"operator": "Exists"}


def test_a_catch_all_daemonset_outside_the_allowed_namespaces_is_advised_to_tolerate_the_pool_taints():
    stack = [node_group(taints=("dedicated=gpu:NoSchedule",)), daemonset("fluent-bit", "logging", tolerations=[CATCH_ALL])]
    (found,) = run(POLICY, stack)
    assert found["enforcement"] == "advisory"
    assert "DaemonSet logging/fluent-bit" in found["message"]
    assert "{key: dedicated, operator: Exists, effect: NoSchedule}" in found["message"]


def test_exact_tolerations_allowed_namespaces_agent_namespaces_and_workloads_are_not_its_business():
    assert run(POLICY, [daemonset("fluent-bit", "logging", tolerations=[EXISTS_GPU])]) == []
    assert run(POLICY, [daemonset("fluent-bit", "kube-system", tolerations=[CATCH_ALL])]) == []
    assert run(POLICY, [deployment(tolerations=[CATCH_ALL])]) == []  # gpu-toleration-allowlist judges workloads
    agent = StackResource("gpu-node-pools:index:EfaDevicePlugin", "efa", {"agentNamespace": "logging"})
    assert run(POLICY, [agent, daemonset("fluent-bit", "logging", tolerations=[CATCH_ALL])]) == []
    config = {"daemonsets-tolerate-exactly": {"allowedNamespaces": ["logging"]}}
    assert run(POLICY, [daemonset("fluent-bit", "logging", tolerations=[CATCH_ALL])], config) == []


def test_a_catch_all_with_an_effect_is_said_to_tolerate_that_effect_only():
    stack = [node_group(taints=("dedicated=gpu:NoSchedule",)),
             daemonset("fluent-bit", "logging", tolerations=[{"operator": "Exists", "effect": "NoSchedule"}])]
    (found,) = run(POLICY, stack)
    assert "which tolerates every taint with effect NoSchedule" in found["message"]
    assert "eviction" not in found["message"]  # it does not tolerate the NoExecute eviction taints
    (found,) = run(POLICY, [stack[0], daemonset("fluent-bit", "logging", tolerations=[CATCH_ALL])])
    assert "every taint (also the NoExecute eviction taints" in found["message"]
