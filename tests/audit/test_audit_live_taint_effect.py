"""A taint on a live Node whose effect Kubernetes does not have (``NO_SCHEDULE``, GKE's and EKS's API spelling; a
typo; an unknown word) is a finding worded for the live object: what the node carries, that a Node's taint takes
NoSchedule, PreferNoSchedule or NoExecute only (``validateNodeTaints``, kubernetes
pkg/apis/core/validation/validation.go) and that the scheduler honours no other (its TaintToleration plugin), and where
to fix it. No word of a stack file ("the component translates it"): nobody wrote one."""

from __future__ import annotations

import json

import jsonschema
import pytest
from audit_cluster import audit_dump, eks_node
from conftest import ROOT

from gpu_node_pool.k8s.taints import k8s_taint_problems

SCHEMA = json.loads((ROOT / "components/gpu_node_pool/audit/report.schema.json").read_text())


def audit_node(tmp_path, taint: dict) -> tuple[int, dict, str]:
    node = eks_node("gpu-1", pool="inference", nodegroup="inference", instance="g6.xlarge", gpus=1, taints=[taint])
    return audit_dump(tmp_path, [node])


def malformed(report: dict) -> dict:
    [found] = [f for f in report["findings"] if f["code"] == "malformed-taint"]
    return found


def test_the_gke_spelling_on_a_node_is_said_of_the_node_with_the_rule_the_scheduler_and_the_fix(tmp_path):
    code, report, text = audit_node(tmp_path, {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"})
    jsonschema.validate(report, SCHEMA)
    found = malformed(report)
    assert found["level"] == "mandatory" and found["subject"] == "Node gpu-1"
    assert found["message"].startswith(
        'spec.taints[0] {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}: effect \'NO_SCHEDULE\' '
        "is the EKS/GKE API spelling of NoSchedule")
    assert ("a Node's taint takes NoSchedule, PreferNoSchedule, NoExecute only (the API server refuses any other on a "
            "Node it creates or updates: validateNodeTaints, kubernetes pkg/apis/core/validation/validation.go)"
            in found["message"])
    assert "so this taint keeps no pod off the node; it was left out of every verdict" in found["message"]
    assert "TaintToleration" in found["message"]
    assert "the component translates it" not in found["message"] + found["fix"]
    assert found["fix"].startswith("an API server serves no Node with this effect, so a dump that shows one was "
                                   "edited or written by a tool: take it again (kubectl get nodes -o json)")
    assert ("write NO_SCHEDULE in an EKS node group's or GKE node pool's taints (the platform writes NoSchedule on the "
            "node), and NoSchedule in a Karpenter NodePool's taints") in found["fix"]
    [node] = report["gpuPools"][0]["nodes"]
    assert node["taints"] == [] and node["malformedTaints"] == [found["message"].removesuffix(
        "; it was left out of every verdict")]
    assert code == 1
    assert f"[mandatory] Node gpu-1: {found['message']} -> {found['fix']}" in " ".join(text.split())


@pytest.mark.parametrize(("effect", "said"), [
    ("noschedule", "effect 'noschedule' is no taint effect (did you mean NoSchedule?)"),
    ("Never", "effect 'Never' is no taint effect;"),
])
def test_a_typo_or_an_unknown_effect_on_a_node_is_said_alike(tmp_path, effect, said):
    _, report, _ = audit_node(tmp_path, {"key": "nvidia.com/gpu", "value": "present", "effect": effect})
    found = malformed(report)
    assert said in found["message"] and "validateNodeTaints" in found["message"]
    assert "take it again (kubectl get nodes -o json)" in found["fix"]
    if effect == "Never":
        assert "write one of NoSchedule, PreferNoSchedule, NoExecute" in found["fix"]


def test_a_bad_key_beside_a_bad_effect_is_named_too(tmp_path):
    _, report, _ = audit_node(tmp_path, {"key": "bad key!", "effect": "NO_EXECUTE"})
    found = malformed(report)
    assert "EKS/GKE API spelling of NoExecute" in found["message"]
    assert "; and its taint key 'bad key!'" in found["message"]


def test_a_bad_key_alone_keeps_the_shape_fix(tmp_path):
    _, report, _ = audit_node(tmp_path, {"key": "bad key!", "effect": "NoSchedule"})
    found = malformed(report)
    assert found["message"].startswith('spec.taints[0] {"key": "bad key!", "effect": "NoSchedule"}: taint key \'bad key!\'')
    assert found["fix"] == "fix or remove the taint (kubectl taint nodes NODE KEY:EFFECT-)"


@pytest.mark.parametrize(("value", "written"), [(0, "0"), (False, "false")])
def test_a_value_that_is_no_string_beside_a_bad_effect_is_named_not_read_as_empty(tmp_path, value, written):
    _, report, _ = audit_node(tmp_path, {"key": "nvidia.com/gpu", "value": value, "effect": "NO_SCHEDULE"})
    found = malformed(report)
    assert "EKS/GKE API spelling of NoSchedule" in found["message"]
    assert f"; and its taint value {value!r} is not a string" in found["message"], found["message"]
    assert f'quote it: value: "{written}"' in found["message"], found["message"]


@pytest.mark.parametrize("taint", [
    {"effect": "NO_SCHEDULE"},
    {"key": 7, "effect": "NO_SCHEDULE"},
    {"key": "nvidia.com/gpu", "value": {"a": 1}, "effect": "Never"},
    {"key": "bad key!", "value": "a b", "effect": "NO_EXECUTE"},
])
def test_the_other_faults_beside_a_bad_effect_are_the_taint_readers_own_words(tmp_path, taint):
    """A taint's key and value are judged once, by the one reader (``Taint.from_k8s``, ``k8s_taint_problems``): the
    finding says each of its other problems as the reader words them, with the reader's fix, after the effect's."""
    _, report, _ = audit_node(tmp_path, taint)
    found = malformed(report)
    others = [p for p in k8s_taint_problems(taint, "a core/v1 Taint") if not p.startswith((".effect", " has no effect"))]
    assert others
    said = found["message"].split("; and its ", 1)[1]
    assert said == "; ".join(f"taint {p[1:]}" for p in others) + "; it was left out of every verdict", said
