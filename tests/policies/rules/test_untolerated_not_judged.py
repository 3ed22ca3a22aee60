"""Policy ``gpu-workloads-tolerate-their-pool`` leaves a pod not judged only when the backend of the pool says so
through the registry (``untolerated_not_judged``): GKE for a custom ComputeClass's taint the pod's nodeSelector
selects; no backend name is compared in the rule."""

from __future__ import annotations

import dataclasses

import builders
import pytest

from gpu_node_pool import registry
from gpu_node_pool.policies.rules import gpu_workloads_tolerate_their_pool as rule

COMPUTE_CLASS = "cloud.google.com/compute-class"
TAINTS = ("nvidia.com/gpu=present:NoSchedule", f"{COMPUTE_CLASS}=gpu-l4:NoSchedule")
LABELS = {"nvidia.com/gpu.present": "true", COMPUTE_CLASS: "gpu-l4"}
GKE_REASON = "gpu_node_pool.backends.gke.compute_class:untolerated_not_judged"


@pytest.fixture
def replaced():
    """Register a changed copy of a built-in backend for one test, and put the original back after."""
    kept: list[registry.Backend] = []

    def replace(name: str, **changes: str) -> None:
        original = registry.get(name)
        kept.append(original)
        registry.register(dataclasses.replace(original, **changes))

    yield replace
    for original in kept:
        registry.register(original)


def verdicts(pool) -> tuple[list, list]:
    app = builders.deployment("vllm", "ml", node_selector={COMPUTE_CLASS: "gpu-l4"},
                              resources={"limits": {"nvidia.com/gpu": 1}})
    return builders.run(rule.POLICY, [pool, app]), builders.cannot_run(rule.POLICY, [pool, app])


def test_the_gke_backend_declares_the_compute_class_reason():
    assert registry.get("gke").untolerated_not_judged
    assert not any(b.untolerated_not_judged for b in registry.all_backends() if b.name != "gke")
    found, notes = verdicts(builders.gke_pool(taints=TAINTS, labels=LABELS))
    assert found == [] and len(notes) == 1
    assert f"its only untolerated taint is {COMPUTE_CLASS}=gpu-l4:NoSchedule" in notes[0]["message"]


def test_a_gke_backend_without_the_declaration_gets_the_finding(replaced):
    replaced("gke", untolerated_not_judged="")
    found, notes = verdicts(builders.gke_pool(taints=TAINTS, labels=LABELS))
    assert notes == []
    assert [f"{COMPUTE_CLASS}=gpu-l4:NoSchedule not tolerated" in f["message"] for f in found] == [True]


def test_another_backend_that_declares_it_is_asked_the_same_way(replaced):
    found, notes = verdicts(builders.node_group(taints=TAINTS, labels=LABELS))
    assert notes == [] and len(found) == 1  # eks-managed declares nothing: a finding
    replaced("eks-managed", untolerated_not_judged=GKE_REASON)
    found, notes = verdicts(builders.node_group(taints=TAINTS, labels=LABELS))
    assert found == [] and len(notes) == 1
    assert "(eks-managed" in notes[0]["message"]  # the pool's display names its backend
