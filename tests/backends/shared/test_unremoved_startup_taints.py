"""A declared NodePool ``startupTaints`` entry that no known agent removes is warned about (not refused) in both
backends that write a NodePool: Karpenter waits for something else to remove a startup taint (karpenter.sh_nodepools.yaml
``startupTaints``), so the node would stay tainted and the GPU pods Pending."""

from __future__ import annotations

from typing import Any

import pytest
from nodepool_stacks import BACKENDS, CLUSTER
from nodepool_stacks import LIMITED as POOLS

from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.config.warnings import stack_warnings
from gpu_node_pool.k8s.startup_taints import AGENTS, unremoved_startup_taint_warning
from gpu_node_pool.k8s.taints import Taint, TaintEffect

BOOT = {"key": "example.com/boot", "value": "0", "effect": "NoSchedule"}


def startup_warnings(backend: str, **fields: Any) -> list[tuple[str, str]]:
    stack = validate_stack_config({"cluster": CLUSTER, "pools": [{**POOLS[backend], **fields}]})
    return [(w.path, w.message) for w in stack_warnings(stack) if ".startupTaints" in w.path]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_startup_taint_no_agent_removes_is_warned_at_its_entry(backend):
    cilium = {"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"}
    warnings = startup_warnings(backend, startupTaints=[cilium, BOOT])
    assert len(warnings) == 1, warnings
    path, message = warnings[0]
    assert path == "pools[0].startupTaints[1]"
    assert "example.com/boot:NoSchedule is removed by no agent" in message
    assert "Karpenter waits for something else to remove a startup taint" in message
    assert "karpenter.sh_nodepools.yaml" in message and "https://karpenter.sh/docs/concepts/nodepools/" in message
    assert "stay Pending" in message and "startupTaintsFor" in message and "belongs in taints" in message


@pytest.mark.parametrize("backend", BACKENDS)
def test_startup_taints_of_known_agents_are_not_warned(backend):
    assert startup_warnings(backend, startupTaintsFor=[a.name for a in AGENTS]) == []
    assert startup_warnings(backend, startupTaints=[a.entry.to_k8s() for a in AGENTS]) == []


@pytest.mark.parametrize("taint", [
    Taint("node.cloudprovider.kubernetes.io/uninitialized", "true", TaintEffect.NO_SCHEDULE),
    Taint("readiness.k8s.io/network", "", TaintEffect.NO_SCHEDULE),
])
def test_a_taint_a_controller_removes_is_not_warned(taint):
    assert unremoved_startup_taint_warning(taint) is None


def test_a_prefer_no_schedule_startup_taint_does_not_claim_pending_pods():
    message = unremoved_startup_taint_warning(Taint("example.com/boot", "", TaintEffect.PREFER_NO_SCHEDULE))
    assert message and "not initialized" in message and "Pending" not in message
