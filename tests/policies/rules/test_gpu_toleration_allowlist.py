"""Policy gpu-toleration-allowlist: GPU-taint tolerations (including catch-alls and the stack's own
pool taints) only in the allowed namespaces, which the config can change."""

from __future__ import annotations

from builders import (
    EXISTS_GPU,
    daemonset,
    deployment,
    node_group,
    run,
)

from gpu_node_pool.policies import StackResource
from gpu_node_pool.policies import rules as d


def test_gpu_tolerations_outside_allowed_namespaces_fail():
    (found,) = run(d.gpu_toleration_allowlist.POLICY, [deployment(tolerations=[EXISTS_GPU])])
    assert "namespace 'web'" in found["message"]
    (catch_all,) = run(d.gpu_toleration_allowlist.POLICY, [deployment(tolerations=[{"operator": "Exists"}])])
    assert "catch-all" in catch_all["message"]
    (defaulted,) = run(d.gpu_toleration_allowlist.POLICY, [StackResource("kubernetes:core/v1:Pod", "p", {
        "spec": {"tolerations": [EXISTS_GPU], "containers": []}})])
    assert "namespace 'default'" in defaulted["message"]


def test_daemonsets_are_node_agents_and_never_fail_the_allow_list():
    """The allow-list judges workloads: a DaemonSet tolerating the pool taints does what the coverage rules ask."""
    assert run(d.gpu_toleration_allowlist.POLICY, [daemonset("fluent-bit", "logging", tolerations=[EXISTS_GPU])]) == []
    assert run(d.gpu_toleration_allowlist.POLICY, [daemonset("fluent-bit", "logging", tolerations=[{"operator": "Exists"}])]) == []


def test_the_namespaces_of_the_products_agents_are_allowed():
    agent = StackResource("gpu-node-pools:index:DcgmExporter", "dcgm-exporter", {"agentNamespace": "web"})
    assert run(d.gpu_toleration_allowlist.POLICY, [agent, deployment(tolerations=[EXISTS_GPU])]) == []
    other = StackResource("gpu-node-pools:index:GpuNodePool", "p", {"agentNamespace": "web"})  # only agent components count
    assert len(run(d.gpu_toleration_allowlist.POLICY, [other, deployment(tolerations=[EXISTS_GPU])])) == 1


def test_allowed_namespaces_and_non_gpu_tolerations_pass():
    assert run(d.gpu_toleration_allowlist.POLICY, [daemonset(tolerations=[{"operator": "Exists"}])]) == []
    assert run(d.gpu_toleration_allowlist.POLICY, [deployment(tolerations=[{"key": "CriticalAddonsOnly", "operator": "Exists"}])]) == []
    config = {"gpu-toleration-allowlist": {"allowedNamespaces": ["web"]}}
    assert run(d.gpu_toleration_allowlist.POLICY, [deployment(tolerations=[EXISTS_GPU])], config) == []


def test_the_stacks_own_pool_taints_count_as_gpu_taints():
    stack = [node_group(taints=("dedicated=gpu:NoSchedule",)), deployment(tolerations=[
        {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}])]
    (found,) = run(d.gpu_toleration_allowlist.POLICY, stack)
    assert "dedicated=gpu:NoSchedule" in found["message"]
