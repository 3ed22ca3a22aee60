"""The pack (and so ``gpupool check`` and the plan) on pod templates it cannot judge before deploy:

* a DaemonSet whose template sets ``spec.nodeName``: the DaemonSet controller runs it only on the node of
  that name, and a pool's nodes are named only when they launch, so whether it should run on them is not
  known: a "can't run" note naming the node, never a finding (and never a pass);
* placement fields of a shape the API server refuses (``tolerations`` no list, a ``nodeSelector`` value no
  string, ``In`` without values, no ``nodeSelectorTerms``): such an object is never created, so no verdict
  is true of it: a "can't run" note naming the field and why, never a finding, also when the DaemonSet
  tolerates every taint;
* a toleration the API server refuses (``ValidateTolerations``: ``operator: exists``, ``Exists`` with a value,
  ``effect: noschedule``, an empty key without ``Exists``, ``tolerationSeconds`` without ``NoExecute``): the same
  note naming the toleration's index, value, rule, source and fix, never "will not run on GPU nodes".
"""

from __future__ import annotations

import pytest
from builders import EXISTS_GPU, daemonset, deployment, node_group, plugin
from google.protobuf import struct_pb2
from pulumi.runtime.proto import analyzer_pb2
from pulumi_policy import EnforcementLevel
from pulumi_policy.policy import _PolicyAnalyzerServicer
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

from gpu_node_pool.policies import PACK_NAME, POLICIES, evaluate
from gpu_node_pool.policies import rules as d

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
REFUSED = "the API server refuses this pod spec"


def with_pod(resource, **pod):
    resource.inputs["spec"]["template"]["spec"].update(pod)
    return resource


def verdicts(policy, *resources) -> tuple[list[str], list[str]]:
    """(the findings' messages, the "can't run" notes) of ``policy`` on a tainted GPU node group and ``resources``."""
    found = evaluate([node_group(), *resources], policies=[policy])
    notes = [f["message"] for f in found if "can't run policy" in f["message"]]
    return [f["message"] for f in found if "can't run policy" not in f["message"]], notes


def test_a_daemonset_pinned_by_node_name_is_not_judged_on_a_pool_s_unnamed_nodes():
    findings, notes = verdicts(d.daemonsets_tolerate_gpu_taints.POLICY, with_pod(daemonset("pinned", "ops"), nodeName="other-node"))
    assert findings == []
    (note,) = notes
    assert "DaemonSet ops/pinned" in note and "not judged: its nodeName pins it to the node named 'other-node'" in note
    assert "whether that node is one of them is not known before deploy" in note


def test_a_device_plugin_pinned_by_node_name_is_neither_a_gap_nor_coverage():
    pinned = with_pod(plugin([EXISTS_GPU]), nodeName="gpu-node-7")
    findings, notes = verdicts(d.device_plugin_covers_gpu_pools.POLICY, pinned)
    assert findings == []
    assert any("nodeName pins it to the node named 'gpu-node-7'" in n for n in notes)


def test_tolerations_of_the_wrong_shape_are_not_judged():
    findings, notes = verdicts(d.daemonsets_tolerate_gpu_taints.POLICY,
                               with_pod(daemonset("odd", "ops"), tolerations={"operator": "Exists"}))
    assert findings == []
    (note,) = notes
    assert f"spec.template.spec.tolerations is an object, not a list: {REFUSED}" in note


@pytest.mark.parametrize(("value", "shown"), [
    (True, "true (a boolean)"), (False, "false (a boolean)"), (1, "1 (a number)"), (None, "null"),
    (["true"], "a list"), ({}, "an object"),
])
@pytest.mark.parametrize("tolerations", [[], [{"operator": "Exists"}]], ids=["tolerates-nothing", "tolerates-all"])
def test_a_node_selector_value_that_is_no_string_is_not_judged(value, shown, tolerations):
    ds = with_pod(daemonset("odd", "ops"), nodeSelector={"nvidia.com/gpu.present": value}, tolerations=tolerations)
    findings, notes = verdicts(d.daemonsets_tolerate_gpu_taints.POLICY, ds)
    assert findings == []
    (note,) = notes
    assert f"spec.template.spec.nodeSelector['nvidia.com/gpu.present'] is {shown}, not a string" in note


TERMS = f"affinity.nodeAffinity.{REQUIRED}.nodeSelectorTerms"


@pytest.mark.parametrize(("terms", "why"), [
    ([{"matchExpressions": [{"key": "a", "operator": "In"}]}], f"{TERMS}[0].matchExpressions[0]: operator In needs at least one value, got 0"),
    ([{"matchExpressions": [{"key": "a", "operator": "NotIn", "values": []}]}],
     f"{TERMS}[0].matchExpressions[0]: operator NotIn needs at least one value, got 0"),
    ([{"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]}],
     f"{TERMS}[0].matchExpressions[0]: operator Exists takes no values, got 1"),
    ([{"matchExpressions": [{"key": "a", "operator": "Sometimes", "values": ["x"]}]}],
     f"{TERMS}[0].matchExpressions[0]: operator 'Sometimes' is not one of"),
    ([], f"{TERMS} is empty"),
])
def test_a_required_node_affinity_the_api_server_refuses_is_not_judged(terms, why):
    ds = with_pod(daemonset("odd", "ops"), affinity={"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": terms}}})
    findings, notes = verdicts(d.daemonsets_tolerate_gpu_taints.POLICY, ds)
    assert findings == []
    (note,) = notes
    assert f"spec.template.spec.{why}" in note and REFUSED in note


def test_a_device_plugin_whose_selection_is_refused_is_not_called_a_gap():
    refused = with_pod(plugin([EXISTS_GPU]), nodeSelector={"nvidia.com/gpu.present": True})
    findings, notes = verdicts(d.device_plugin_covers_gpu_pools.POLICY, refused)
    assert findings == []
    assert any("not judged: its pod template's nodeSelector['nvidia.com/gpu.present'] is true (a boolean)" in n
               for n in notes)


def test_a_gpu_workload_whose_selection_is_refused_is_not_said_to_stay_pending():
    web = deployment("train", "ml", node_selector={"nvidia.com/gpu.present": True},
                     resources={"limits": {"nvidia.com/gpu": "1"}})
    findings, notes = verdicts(d.gpu_workloads_tolerate_their_pool.POLICY, web)
    assert findings == []
    (note,) = notes
    assert "spec.template.spec.nodeSelector['nvidia.com/gpu.present'] is true (a boolean), not a string" in note


def test_a_valid_selection_is_still_judged():
    """The same DaemonSet with the value quoted is judged: kept off a pool labelled otherwise, a finding on this one."""
    ds = with_pod(daemonset("quoted", "ops"), nodeSelector={"nvidia.com/gpu.present": "true"})
    findings, notes = verdicts(d.daemonsets_tolerate_gpu_taints.POLICY, ds)
    assert notes == [] and len(findings) == 1 and "nvidia.com/gpu=present:NoSchedule not tolerated" in findings[0]


# --- a toleration the API server refuses (ValidateTolerations): the object is never created -------------------------

TOLERATIONS_SOURCE = "(ValidateTolerations, kubernetes pkg/apis/core/validation/validation.go)"
LOWER_EXISTS = {"key": "nvidia.com/gpu", "operator": "exists"}


@pytest.mark.parametrize(("toleration", "why"), [
    (LOWER_EXISTS, "tolerations[0].operator 'exists': must be Equal or Exists"),
    ({"key": "nvidia.com/gpu", "operator": "Exists", "value": "present"},
     "tolerations[0].value 'present': must be empty when operator is Exists"),
    ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "noschedule"},
     "tolerations[0].effect 'noschedule': must be empty (every effect) or one of NoSchedule, PreferNoSchedule, NoExecute"),
    ({"operator": "Equal", "value": "present"}, "tolerations[0].operator 'Equal': must be Exists when key is empty"),
    ({"key": "nvidia.com/gpu", "operator": "Sometimes"}, "tolerations[0].operator 'Sometimes': must be Equal or Exists"),
    ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 60},
     "tolerations[0].tolerationSeconds 60: needs the effect NoExecute"),
])
def test_a_daemonset_with_a_toleration_the_api_server_refuses_is_not_judged_never_said_not_to_run(toleration, why):
    findings, notes = verdicts(d.daemonsets_tolerate_gpu_taints.POLICY, with_pod(daemonset("agent", "ops"), tolerations=[toleration]))
    assert findings == []  # before: "DaemonSet ops/agent will not run on GPU nodes" (mandatory), the toleration "ignored"
    (note,) = notes
    assert f"DaemonSet ops/agent: not judged: spec.template.spec.{why}" in note
    assert f"{REFUSED} {TOLERATIONS_SOURCE}; fix: " in note


def test_the_note_names_the_fix():
    _, (note,) = verdicts(d.daemonsets_tolerate_gpu_taints.POLICY, with_pod(daemonset("agent", "ops"), tolerations=[LOWER_EXISTS]))
    assert note.endswith("fix: write Exists")


def test_one_refused_toleration_among_good_ones_leaves_the_daemonset_not_judged_by_its_index():
    ds = with_pod(daemonset("agent", "ops"), tolerations=[EXISTS_GPU, {"key": "example.com/team", "operator": "exists"}])
    findings, notes = verdicts(d.daemonsets_tolerate_gpu_taints.POLICY, ds)
    assert findings == []
    (note,) = notes
    assert "not judged: spec.template.spec.tolerations[1].operator 'exists'" in note


def test_a_device_plugin_with_a_refused_toleration_is_neither_a_gap_nor_coverage():
    findings, notes = verdicts(d.device_plugin_covers_gpu_pools.POLICY, plugin([LOWER_EXISTS]))
    assert findings == []  # before: "The NVIDIA device plugin does not cover GPU pool 'gpu' ... not tolerated"
    assert any("not judged: its pod template's tolerations[0].operator 'exists': must be Equal or Exists" in n
               and TOLERATIONS_SOURCE in n and "fix: write Exists" in n for n in notes)


def test_a_workload_with_a_refused_toleration_is_not_said_to_land_on_any_node():
    web = deployment("web", "web", tolerations=[EXISTS_GPU, {"key": "example.com/team", "operator": "Exists", "value": "a"}])
    findings, notes = verdicts(d.gpu_workloads_select_gpu_nodes.POLICY, web)
    assert findings == []  # before: "tolerates GPU taint(s) ... may land on any node"
    (note,) = notes
    assert "Deployment web/web: not judged: its pod template's tolerations[1].value 'a': must be empty when operator is Exists" in note


@pytest.mark.parametrize("toleration", [
    {"key": "nvidia.com/gpu", "value": "present"},  # empty operator: Equal
    {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": ""},  # empty effect: every effect
    {"key": "nvidia.com/gpu", "operator": "Exists"},
])
def test_exact_matches_kubernetes_accepts_are_still_judged(toleration):
    findings, notes = verdicts(d.daemonsets_tolerate_gpu_taints.POLICY, with_pod(daemonset("agent", "ops"), tolerations=[toleration]))
    assert findings == [] and notes == []  # tolerated: it runs


def test_an_equal_toleration_of_another_value_is_still_a_finding():
    ds = with_pod(daemonset("agent", "ops"), tolerations=[{"key": "nvidia.com/gpu", "value": "absent"}])
    findings, notes = verdicts(d.daemonsets_tolerate_gpu_taints.POLICY, ds)
    assert notes == [] and len(findings) == 1
    assert "will not run on GPU nodes" in findings[0] and "nvidia.com/gpu=present:NoSchedule not tolerated" in findings[0]


def _struct(value: dict) -> struct_pb2.Struct:
    out = struct_pb2.Struct()
    out.update(value)
    return out


def test_the_pack_through_the_sdk_analyzer_says_not_judged_also_past_a_toleration_unknown_at_preview():
    """As ``pulumi preview --policy-pack`` runs it: pulumi-policy's own servicer and proxies. A toleration unknown at
    preview before the refused one does not hide the refusal."""
    servicer = _PolicyAnalyzerServicer(PACK_NAME, "0.1.0", POLICIES, EnforcementLevel.ADVISORY)
    pool = node_group()
    pool_resource = analyzer_pb2.AnalyzerResource(type=pool.type, name=pool.name, urn=pool.urn,
                                                  properties=_struct(pool.inputs))
    ds = daemonset("agent", "ops", tolerations=[{"key": "example.com/team", "operator": "Exists", "effect": UNKNOWN_STRING_VALUE},
                                                LOWER_EXISTS])
    ds_resource = analyzer_pb2.AnalyzerResource(type=ds.type, name=ds.name, urn="urn:agent", properties=_struct(ds.inputs))
    response = servicer.AnalyzeStack(analyzer_pb2.AnalyzeStackRequest(resources=[pool_resource, ds_resource]), None)
    [note] = [x for x in response.diagnostics if x.policyName == "daemonsets-tolerate-gpu-taints"]
    assert note.enforcementLevel == analyzer_pb2.ADVISORY
    assert "DaemonSet ops/agent: not judged: spec.template.spec.tolerations[1].operator 'exists'" in note.message
    assert TOLERATIONS_SOURCE in note.message and note.message.endswith("fix: write Exists")


def test_the_allowlist_and_exactly_rules_do_not_judge_a_pod_spec_the_api_server_refuses():
    # before: the refused item was skipped and the others judged, so a catch-all beside it was a finding
    catch_all = {"operator": "Exists"}
    web = deployment("web", "web", tolerations=[catch_all, LOWER_EXISTS])
    findings, notes = verdicts(d.gpu_toleration_allowlist.POLICY, web)
    assert findings == []
    (note,) = notes
    assert "Deployment web/web: not judged: tolerations[1].operator 'exists': must be Equal or Exists" in note
    ds = with_pod(daemonset("agent", "ops"), tolerations=[catch_all, LOWER_EXISTS])
    findings, notes = verdicts(d.daemonsets_tolerate_exactly.POLICY, ds)
    assert findings == [] and "DaemonSet ops/agent: not judged: tolerations[1].operator 'exists'" in notes[0]
    # the same objects without the refused item are findings of both rules
    assert verdicts(d.gpu_toleration_allowlist.POLICY, deployment("web", "web", tolerations=[catch_all]))[0]
    assert verdicts(d.daemonsets_tolerate_exactly.POLICY, with_pod(daemonset("agent", "ops"), tolerations=[catch_all]))[0]
