"""The pack (and so ``gpupool check`` and the plan) on pod templates it cannot judge before deploy:

* a DaemonSet whose template sets ``spec.nodeName``: the DaemonSet controller runs it only on the node of
  that name, and a pool's nodes are named only when they launch, so whether it should run on them is not
  known: a "can't run" note naming the node, never a finding (and never a pass);
* placement fields of a shape the API server refuses (``tolerations`` no list, a ``nodeSelector`` value no
  string, ``In`` without values, no ``nodeSelectorTerms``): such an object is never created, so no verdict
  is true of it: a "can't run" note naming the field and why, never a finding, also when the DaemonSet
  tolerates every taint.
"""

from __future__ import annotations

import pytest
from builders import EXISTS_GPU, daemonset, deployment, node_group, plugin

from gpu_node_pool.policies import evaluate
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
