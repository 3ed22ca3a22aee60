"""A pool may not declare a taint a controller owns (the node lifecycle controller's ``node.kubernetes.io/*``, the cloud
controller manager's, Karpenter's, Cluster Autoscaler's): the controller removes it from a Ready, schedulable node or
reads it as a node being deleted, so the pool is not kept for GPU work. The stack config refuses it at the taint's
line, ``gpu-pool-declares-taint`` does not count it as the pool's taint, and the audit still leaves such taints on a
live node out of its drift."""

from __future__ import annotations

import pytest
from builders import node_group, run
from conftest import base, plan_stack_text

from gpu_node_pool.config import ConfigError, validate_stack_config
from gpu_node_pool.k8s.controller_taints import CONTROLLER_TAINTS, controller_taint_problem, is_transient
from gpu_node_pool.policies import rules as d

OWNED = [key for owner in CONTROLLER_TAINTS for key in owner.keys]


@pytest.mark.parametrize("key", OWNED)
def test_every_controller_taint_is_refused_in_a_stack_with_its_owner_and_source(key):
    cfg = base()
    cfg["pools"][0]["taints"] = [f"{key}:NoSchedule"]
    with pytest.raises(ConfigError) as caught:
        validate_stack_config(cfg)
    [issue] = caught.value.issues
    assert issue.path == "pools[0].taints[0]"
    assert issue.message.startswith(f"taint key {key!r} belongs to ")
    assert "https://" in issue.message or ".go" in issue.message  # its public source
    assert issue.message.endswith("use a key of your own, e.g. nvidia.com/gpu=present:NoSchedule")


def test_the_node_lifecycle_controllers_unschedulable_taint_says_why_it_does_not_hold():
    why = controller_taint_problem("node.kubernetes.io/unschedulable")
    assert "node lifecycle controller" in why and "removes it when it ends" in why
    assert "taint-nodes-by-condition" in why and "the DaemonSet controller makes daemon pods tolerate it" in why


@pytest.mark.parametrize("key", ["nvidia.com/gpu", "example.com/dedicated", "node.kubernetes.io/gpu-tier",
                                 "karpenter.sh/nodepool", "ToBeDeleted"])
def test_a_key_no_controller_owns_is_not_refused(key):
    assert controller_taint_problem(key) is None
    cfg = base()
    cfg["pools"][0]["taints"] = [f"{key}=x:NoSchedule"]
    validate_stack_config(cfg)


def test_a_plan_points_at_the_taints_line(capsys, temp_project):
    text = (_dev_stack().replace("- nvidia.com/gpu=present:NoSchedule", "- node.kubernetes.io/unschedulable:NoSchedule"))
    code, out = plan_stack_text(capsys, temp_project, text)
    assert code == 2
    line = next(i for i, s in enumerate(text.splitlines(), 1) if "node.kubernetes.io/unschedulable" in s)
    assert f"Pulumi.mine.yaml:{line}:" in out and "pools[0].taints[0]: taint key 'node.kubernetes.io/unschedulable'" in out


def test_the_policy_does_not_count_a_controller_taint_as_the_pools_taint():
    (found,) = run(d.gpu_pool_declares_taint.POLICY, [node_group(taints=("node.kubernetes.io/unschedulable:NoSchedule",))])
    assert found["enforcement"] == "mandatory"
    assert "declares no taint of its own: taint key 'node.kubernetes.io/unschedulable' belongs to" in found["message"]
    assert found["message"].count("use a key of your own, e.g. nvidia.com/gpu=present:NoSchedule") == 1


def test_the_policy_refuses_a_controller_taint_beside_the_pools_own_as_the_stack_config_does():
    taints = ("node.kubernetes.io/unschedulable:NoSchedule", "nvidia.com/gpu=present:NoSchedule")
    (found,) = run(d.gpu_pool_declares_taint.POLICY, [node_group(taints=taints)])
    assert found["enforcement"] == "mandatory"
    assert "declares a taint a controller owns: taint key 'node.kubernetes.io/unschedulable' belongs to" in found["message"]
    assert ("remove it: the pool's own taint nvidia.com/gpu=present:NoSchedule already keeps other pods off"
            in found["message"])
    assert "use a key of your own" not in found["message"]
    cfg = base()
    cfg["pools"][0]["taints"] = list(taints)
    with pytest.raises(ConfigError) as caught:
        validate_stack_config(cfg)
    [issue] = caught.value.issues
    assert issue.path == "pools[0].taints[0]"
    assert issue.message.endswith("remove it: the pool's own taint nvidia.com/gpu=present:NoSchedule already keeps "
                                  "other pods off")


def test_a_soft_taint_is_not_the_pools_own_in_the_fix():
    cfg = base()
    cfg["pools"][0]["taints"] = ["example.com/prefer=x:PreferNoSchedule", "karpenter.sh/disrupted:NoSchedule"]
    with pytest.raises(ConfigError) as caught:
        validate_stack_config(cfg)
    [issue] = caught.value.issues
    assert issue.message.endswith("use a key of your own, e.g. nvidia.com/gpu=present:NoSchedule")


@pytest.mark.parametrize(("key", "transient"), [
    *((k, True) for k in OWNED), ("node.kubernetes.io/anything", True), ("node.cloudprovider.kubernetes.io/x", True),
    ("nvidia.com/gpu", False), ("karpenter.sh/nodepool", False)])
def test_the_audit_leaves_controller_taints_out_of_drift(key, transient):
    assert is_transient(key) is transient


def _dev_stack() -> str:
    from conftest import ROOT

    return (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()


def test_every_controller_taint_of_a_pool_is_its_own_error_at_its_line():
    cfg = base()
    cfg["pools"][0]["taints"] = ["nvidia.com/gpu=present:NoSchedule", "node.kubernetes.io/unschedulable:NoSchedule",
                                 "ToBeDeletedByClusterAutoscaler:NoSchedule", "karpenter.sh/disrupted:NoSchedule"]
    with pytest.raises(ConfigError) as caught:
        validate_stack_config(cfg)
    assert [i.path for i in caught.value.issues] == ["pools[0].taints[1]", "pools[0].taints[2]", "pools[0].taints[3]"]


@pytest.mark.parametrize(("key", "removed"), [
    ("node.kubernetes.io/not-ready", True), ("node.kubernetes.io/unschedulable", True),
    ("node.cloudprovider.kubernetes.io/uninitialized", True), ("karpenter.sh/unregistered", True),
    ("node.kubernetes.io/gpu-warmup", False), ("ToBeDeletedByClusterAutoscaler", False),
    ("karpenter.sh/disrupted", False), ("node.kubernetes.io/out-of-service", False)])
def test_only_the_taints_a_controller_takes_off_a_healthy_node_need_no_agent(key, removed):
    from gpu_node_pool.k8s.controller_taints import removed_on_its_own
    from gpu_node_pool.k8s.startup_taints import unremoved_startup_taint_warning
    from gpu_node_pool.k8s.taints import Taint

    assert removed_on_its_own(key) is removed
    assert (unremoved_startup_taint_warning(Taint(key=key)) is None) is removed
