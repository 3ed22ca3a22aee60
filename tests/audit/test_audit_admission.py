"""gpupool audit on the admission guard: installed or not, its action, drift against the declared pools."""

from __future__ import annotations

import copy

from conftest import base

from gpu_node_pool.admission.render import render_stack
from gpu_node_pool.audit.admission import admission_verdicts
from gpu_node_pool.audit.declared import Declared, DeclaredPool
from gpu_node_pool.audit.snapshot import Snapshot
from gpu_node_pool.audit.sources import _add_item
from gpu_node_pool.config.loading import validate_stack_config
from gpu_node_pool.k8s.taints import Taint


def rendered(engine="validating-admission-policy", taint="nvidia.com/gpu=present:NoSchedule", action="deny"):
    raw = base()
    raw["cluster"]["kubernetesVersion"] = "1.31"
    raw["pools"][0]["taints"] = [taint]
    raw["admission"] = {"enabled": True, "engine": engine, "action": action}
    return [o.body for o in render_stack(validate_stack_config(raw))]


def declared(taint="nvidia.com/gpu=present:NoSchedule", action="deny", engine="validating-admission-policy"):
    pool = DeclaredPool(0, "inference", "eks-managed", [Taint.parse(taint)], {})
    return Declared("dev", [pool], [], {"enabled": True, "engine": engine, "action": action})


def snapshot_of(objects) -> Snapshot:
    snap = Snapshot("dump")
    for i, obj in enumerate(objects):
        _add_item(snap, obj, obj["kind"], "dump.json", i)  # as a kubectl dump hands them over
    return snap


def verdicts(objects, stack):
    snap = snapshot_of(objects)
    return admission_verdicts(snap.admission, "admission" in snap.read, stack)


def test_installed_objects_matching_the_pools_are_listed_with_their_action():
    findings, not_judged, notes = verdicts(rendered(), declared())
    assert findings == [] and not_judged == []
    assert "admission: ValidatingAdmissionPolicyBinding gpu-node-pools-no-imperative-taints installed, action Deny, Audit" in notes
    findings, _, notes = verdicts(rendered("gatekeeper"), declared(engine="gatekeeper"))
    assert findings == [] and any("GpuNodePoolsNodeTaints gpu-node-pools-no-imperative-taints installed, action deny" in n for n in notes)


def test_a_pool_taint_changed_since_the_install_is_drift():
    findings, _, _ = verdicts(rendered(), declared("dedicated=gpu:NoSchedule"))
    assert findings and {f.code for f in findings} == {"admission-stale"}
    assert "pool inference: admission has [nvidia.com/gpu=present:NoSchedule], declared [dedicated=gpu:NoSchedule]" in findings[0].message


def test_a_hand_edited_object_and_another_action_are_reported():
    objects = rendered(action="audit")
    edited = copy.deepcopy(objects[2])
    edited["spec"]["validations"] = edited["spec"]["validations"][:1]
    findings, _, _ = verdicts([*objects[:2], edited, *objects[3:]], declared())
    codes = {f.code for f in findings}
    assert "admission-hand-edited" in codes and "admission-action-drift" in codes


def test_missing_rules_and_a_dump_without_admission_lists():
    findings, _, _ = verdicts(rendered()[:2], declared())
    missing = {f.subject for f in findings if f.code == "admission-not-installed"}
    assert "admission rule gpu-node-pools-no-imperative-taints" in missing and len(missing) == 3
    findings, not_judged, _ = verdicts([], declared())
    assert findings == [] and "no admission list was read" in not_judged[0].reason
