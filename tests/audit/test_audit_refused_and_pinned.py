"""``gpupool audit`` on DaemonSets the DaemonSet controller or the API server treats apart:

* a template's ``spec.nodeName`` keeps the daemon pod off every node of another name, whatever it
  tolerates (kubernetes ``pkg/controller/daemon/daemon_controller.go`` ``NodeShouldRunDaemonPod``);
* a placement field of a shape the API server refuses (``tolerations`` no list, a ``nodeSelector``
  value no string, ``In`` without values, no ``nodeSelectorTerms``) is never judged: the row says
  "not judged" naming the field, the not-judged list says why and the fix, and no finding is made of it.
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from audit_cluster import as_list, eks_node

from gpu_node_pool.cli.commands import main

POOL = "GpuNodePool inference"
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


def node() -> dict:
    return eks_node("gpu-1", pool="inference", nodegroup="inference-ng", instance="g6e.2xlarge", gpus=1, taints=[GPU_TAINT])


def daemonset(name: str, **pod) -> dict:
    spec = {"containers": [{"name": "agent", "image": "registry.example.com/agent:1"}], **pod}
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": "ops"},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}


def audit(tmp_path, *daemonsets) -> tuple[dict, str]:
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps(as_list([node(), *daemonsets])))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["audit", "--cluster-dump", str(dump), "--json", "--fail-on", "none"])
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        main(["audit", "--cluster-dump", str(dump), "--fail-on", "none"])
    return json.loads(out.getvalue()), text.getvalue()


def cell(report: dict, name: str) -> dict:
    return next(row for row in report["daemonSets"] if row["name"] == name)["pools"][POOL]


def reasons(report: dict, name: str) -> list[str]:
    """The not-judged reasons given for DaemonSet ops/<name> itself."""
    return [n["reason"] for n in report["notJudged"] if n["subject"] == f"DaemonSet ops/{name}"]


def refuses(field: str) -> str:
    """A cell's summary for a DaemonSet whose pod spec the API server refuses at ``field`` alone."""
    return f"not judged: the API server refuses this pod spec ({field}; why and fix under Not judged)"


def findings_on(report: dict, name: str) -> list[dict]:
    return [f for f in report["findings"] if f"ops/{name}" in json.dumps(f)]


def test_a_daemonset_pinned_by_node_name_to_another_node_is_kept_off_whatever_it_tolerates(tmp_path):
    report, text = audit(tmp_path, daemonset("pinned", nodeName="other-node", tolerations=[{"operator": "Exists"}]))
    pinned = cell(report, "pinned")
    assert pinned["status"] == "keptOff"
    assert "nodeName 'other-node' names another node" in pinned["summary"]
    assert "runs on all" not in text and "nodeName 'other-node' names another node" in text
    row = next(row for row in report["daemonSets"] if row["name"] == "pinned")
    assert row["nodesByRules"] == 0  # on no node of the cluster


def test_a_daemonset_pinned_to_the_node_itself_is_judged_on_its_taints(tmp_path):
    report, _ = audit(tmp_path, daemonset("here", nodeName="gpu-1"))
    assert cell(report, "here")["status"] == "doesNotRun"
    assert findings_on(report, "here")


def test_tolerations_of_the_wrong_shape_are_not_judged_and_say_why(tmp_path):
    report, text = audit(tmp_path, daemonset("odd", tolerations={"operator": "Exists"}))
    odd = cell(report, "odd")
    assert odd["status"] == "notJudged"
    assert odd["summary"] == refuses("spec.template.spec.tolerations")
    [why] = reasons(report, "odd")
    assert why.startswith("spec.template.spec.tolerations is an object, not a list: the API server refuses this pod spec")
    assert findings_on(report, "odd") == []
    assert "DaemonSet ops/odd: in" not in text  # no finding line


@pytest.mark.parametrize(("value", "shown"), [
    (True, "true (a boolean), not a string"), (False, "false (a boolean), not a string"),
    (1, "1 (a number), not a string"), (None, "null, not a string"), (["true"], "a list, not a string"),
    ({}, "an object, not a string"),
])
def test_a_node_selector_value_that_is_no_string_is_not_judged(tmp_path, value, shown):
    ds = daemonset("odd", nodeSelector={"nvidia.com/gpu.present": value}, tolerations=[{"operator": "Exists"}])
    report, _ = audit(tmp_path, ds)
    odd = cell(report, "odd")
    assert odd["status"] == "notJudged", odd
    assert odd["summary"] == refuses("spec.template.spec.nodeSelector['nvidia.com/gpu.present']")
    [why] = reasons(report, "odd")
    assert why.startswith(f"spec.template.spec.nodeSelector['nvidia.com/gpu.present'] is {shown}")
    assert findings_on(report, "odd") == []


TERMS = f"spec.template.spec.affinity.nodeAffinity.{REQUIRED}.nodeSelectorTerms"


@pytest.mark.parametrize(("terms", "why"), [
    ([{"matchExpressions": [{"key": "a", "operator": "In"}]}],
     f"{TERMS}[0].matchExpressions[0]: operator In needs at least one value, got 0: the API server refuses this pod spec"),
    ([{"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]}],
     f"{TERMS}[0].matchExpressions[0]: operator Exists takes no values, got 1: the API server refuses this pod spec"),
    ([{"matchExpressions": [{"key": "a", "operator": "DoesNotExist", "values": ["x"]}]}],
     f"{TERMS}[0].matchExpressions[0]: operator DoesNotExist takes no values, got 1"),
    ([{"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1", "2"]}]}],
     f"{TERMS}[0].matchExpressions[0]: operator Gt needs exactly one value, got 2"),
    ([], f"{TERMS} is empty: the API server refuses this pod spec"),
])
def test_a_required_node_affinity_the_api_server_refuses_is_not_judged(tmp_path, terms, why):
    ds = daemonset("odd", affinity={"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": terms}}})
    report, _ = audit(tmp_path, ds)
    odd = cell(report, "odd")
    assert odd["status"] == "notJudged", odd
    assert odd["summary"] == refuses(f"spec.template.spec.affinity.nodeAffinity.{REQUIRED}")
    [reason] = reasons(report, "odd")
    assert why in reason


def test_a_valid_selection_that_matches_no_node_is_still_kept_off(tmp_path):
    """An empty term and a Gt on a value that is no integer pass validation and match no node: kept off."""
    empty = daemonset("empty-term", affinity={"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": [{}]}}})
    gt = daemonset("gt-word", affinity={"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "nvidia.com/gpu.present", "operator": "Gt", "values": ["abc"]}]}]}}})
    report, _ = audit(tmp_path, empty, gt)
    assert cell(report, "empty-term")["status"] == "keptOff"
    assert cell(report, "gt-word")["status"] == "keptOff"


def test_a_pending_pod_whose_selection_is_refused_is_not_judged(tmp_path):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train", "namespace": "ml"},
           "spec": {"containers": [{"name": "c", "image": "busybox"}], "nodeSelector": {"nvidia.com/gpu.present": True}},
           "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                                          "reason": "Unschedulable", "message": "0/1 nodes are available"}]}}
    report, _ = audit(tmp_path, pod)
    assert report["pendingPods"] == []
    assert any(n["subject"] == "Pod ml/train" and "spec.nodeSelector['nvidia.com/gpu.present'] is true (a boolean)" in n["reason"]
               for n in report["notJudged"]), report["notJudged"]


TOLERATIONS_SOURCE = "(ValidateTolerations, kubernetes pkg/apis/core/validation/validation.go)"


@pytest.mark.parametrize(("toleration", "why"), [
    ({"key": "nvidia.com/gpu", "operator": "exists"},
     "spec.template.spec.tolerations[0].operator 'exists': must be Equal or Exists"),
    ({"key": "nvidia.com/gpu", "operator": "Exists", "value": "present"},
     "spec.template.spec.tolerations[0].value 'present': must be empty when operator is Exists"),
    ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "noschedule"},
     "spec.template.spec.tolerations[0].effect 'noschedule': must be empty (every effect) or one of NoSchedule"),
    ({"operator": "Equal", "value": "present"}, "spec.template.spec.tolerations[0].operator 'Equal': must be Exists when key is empty"),
])
def test_a_toleration_the_api_server_refuses_is_not_judged_and_names_rule_source_and_fix(tmp_path, toleration, why):
    report, text = audit(tmp_path, daemonset("odd", tolerations=[toleration]))
    odd = cell(report, "odd")
    assert odd["status"] == "notJudged", odd
    assert odd["summary"] == refuses("spec.template.spec.tolerations[0]")
    [reason] = reasons(report, "odd")
    assert reason.startswith(why) and f"the API server refuses this pod spec {TOLERATIONS_SOURCE}; fix: " in reason
    assert findings_on(report, "odd") == []
    assert f"{POOL}: {refuses('spec.template.spec.tolerations[0]')}" in text
    assert f"DaemonSet ops/odd: {why}" in text


def test_a_pending_pod_with_a_refused_toleration_is_not_judged(tmp_path):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train", "namespace": "ml"},
           "spec": {"containers": [{"name": "c", "image": "busybox"}],
                    "tolerations": [{"key": "nvidia.com/gpu", "operator": "exists", "effect": "NoSchedule"}]},
           "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                                          "reason": "Unschedulable", "message": "0/1 nodes are available"}]}}
    report, _ = audit(tmp_path, pod)
    assert report["pendingPods"] == []
    assert any(n["subject"] == "Pod ml/train" and "spec.tolerations[0].operator 'exists': must be Equal or Exists" in n["reason"]
               and "fix: write Exists" in n["reason"] for n in report["notJudged"]), report["notJudged"]
