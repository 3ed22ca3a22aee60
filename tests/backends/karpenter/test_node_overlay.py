"""Karpenter pools with gpuSharing or mig declare their capacity through NodeOverlays (``nodeOverlay``).

The rendered NodeOverlays are checked against the pinned NodeOverlay CRD (aws/karpenter-provider-aws v1.14.1,
tests/data/karpenter-crds/, schema and CEL); the config rules (version, feature gate, limits, knowable types)
against the paths a user reads; the plan against what the node advertises.
"""

from __future__ import annotations

import shutil
from typing import Any

import jsonschema
import pytest
from builders import config_issues
from conftest import ROOT
from karpenter_crd import crd_errors

from gpu_node_pool.backends.karpenter import node_overlay
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.config.warnings import stack_warnings

EKS = {"name": "ml", "nodeRoleArn": "arn:aws:iam::123456789012:role/n"}
SLICED = {"strategy": "timeSlicing", "replicas": 4}


def pool(**extra: Any) -> dict[str, Any]:
    return {"name": "burst", "backend": "karpenter", "instanceFamilies": ["g6e"], "nodeClass": {},
            "limits": {"nvidia.com/gpu": 64}, "gpuSharing": SLICED, "nodeOverlay": {"enabled": True}} | extra


def mig_pool(strategy: str = "single", **extra: Any) -> dict[str, Any]:
    return pool(instanceFamilies=None, instanceTypes=["p4d.24xlarge"], gpuSharing=None,
                mig={"strategy": strategy, "profile": "1g.5gb"}, **extra)


def raw(*pools: dict[str, Any], cluster: dict[str, Any] | None = None, operator: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"cluster": cluster or EKS, "pools": list(pools)}
    if operator:
        out["devicePlugin"] = {"provider": "gpu-operator"}
    return out


def overlays(cfg: dict[str, Any]) -> list[dict[str, Any]]:
    return node_overlay.manifests(validate_stack_config(cfg).pools[0])


def warnings_of(cfg: dict[str, Any]) -> dict[str, str]:
    return {w.path: w.message for w in stack_warnings(validate_stack_config(cfg))}


# --- the rendered objects ---------------------------------------------------------------------


def test_time_slicing_renders_one_overlay_per_gpu_count_with_gpus_times_replicas():
    found = overlays(raw(pool()))
    by_name = {o["metadata"]["name"]: o for o in found}
    assert {n: o["spec"]["capacity"] for n, o in by_name.items()} == {
        "burst-1gpu": {"nvidia.com/gpu": "4"}, "burst-4gpu": {"nvidia.com/gpu": "16"}, "burst-8gpu": {"nvidia.com/gpu": "32"}}
    requirements = by_name["burst-4gpu"]["spec"]["requirements"]
    assert requirements == [
        {"key": "karpenter.sh/nodepool", "operator": "In", "values": ["burst"]},
        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6e.12xlarge", "g6e.24xlarge"]},
    ]


@pytest.mark.parametrize("cfg", [
    raw(pool()),
    raw(pool(nodeOverlay={"enabled": True, "weight": 50})),
    raw(mig_pool("single"), operator=True),
    raw(mig_pool("mixed"), operator=True),
], ids=["time-slicing", "weight", "mig-single", "mig-mixed"])
def test_rendered_overlays_pass_the_pinned_nodeoverlay_crd(cfg):
    found = overlays(cfg)
    assert found
    for obj in found:
        assert crd_errors(obj) == [], obj


def test_the_crd_copy_refuses_what_karpenter_refuses():
    (obj,) = overlays(raw(mig_pool("single"), operator=True))
    obj["spec"]["capacity"]["cpu"] = "4"
    obj["spec"]["weight"] = 0
    errors = crd_errors(obj)
    assert any("invalid resource restricted" in e for e in errors), errors
    assert any("weight" in e for e in errors), errors


def test_the_overlays_cover_exactly_the_gpu_types_the_nodepool_can_launch():
    from gpu_node_pool.backends.karpenter.feasibility import evaluation

    p = validate_stack_config(raw(pool())).pools[0]
    covered = sorted(t for o in node_overlay.manifests(p) for t in o["spec"]["requirements"][1]["values"])
    assert covered == sorted(t.name for t in evaluation(p.requirement_list, p.limits).gpu_candidates)


@pytest.mark.parametrize(("strategy", "capacity"), [
    ("single", {"nvidia.com/gpu": "56"}), ("mixed", {"nvidia.com/mig-1g.5gb": "56"})])
def test_mig_overlays_count_instances_per_gpu_times_gpus(strategy, capacity):
    (obj,) = overlays(raw(mig_pool(strategy), operator=True))
    assert obj["spec"]["capacity"] == capacity  # A100 40GB: 7 x 1g.5gb per GPU, 8 GPUs (NVIDIA MIG User Guide)


# --- the config rules ---------------------------------------------------------------------------


def test_with_the_overlay_the_time_slicing_warning_goes_away():
    without = warnings_of(raw(pool(nodeOverlay=None)))
    assert "never triggers a node" in without["pools[0].gpuSharing"]
    assert "pools[0].gpuSharing" not in warnings_of(raw(pool()))


def test_with_the_overlay_mig_on_karpenter_is_accepted_with_the_gpu_operator():
    validate_stack_config(raw(mig_pool(), operator=True))
    ((path, message),) = [i for i in config_issues(raw(mig_pool(nodeOverlay=None), operator=True)) if i[0].endswith("mig")]
    assert "kubernetes-sigs/karpenter#729" in message and "nodeOverlay: {enabled: true}" in message


def test_mig_with_the_overlay_still_needs_a_partitioner():
    issues = config_issues(raw(mig_pool()))
    assert any(path == "pools[0].mig" and "nothing partitions" in message for path, message in issues)


def test_an_unstated_version_warns_naming_the_feature_gate_and_the_helm_value():
    message = warnings_of(raw(pool()))["pools[0].nodeOverlay"]
    assert "NodeOverlay" in message and "settings.featureGates.nodeOverlay: true" in message
    assert "gpu-node-pools:cluster.karpenterVersion" in message


def test_a_version_without_nodeoverlay_is_refused():
    ((path, message),) = config_issues(raw(pool(), cluster=EKS | {"karpenterVersion": "1.6"}))
    assert path == "pools[0].nodeOverlay" and ">= v1.7" in message and "settings.featureGates.nodeOverlay" in message


def test_a_version_with_thousands_of_digits_is_a_config_error_not_an_internal_error():
    huge = "1" + "0" * 5000 + ".1"  # int() of it raises: Python caps integer strings at 4300 digits
    ((path, message),) = config_issues(raw(pool(), cluster=EKS | {"karpenterVersion": huge}))
    assert path == "cluster.karpenterVersion" and "e.g. '1.11' or 'v1.11.2'" in message


def test_a_version_with_nodeoverlay_still_warns_that_the_gate_is_off_by_default():
    message = warnings_of(raw(pool(), cluster=EKS | {"karpenterVersion": "v1.14.1"}))["pools[0].nodeOverlay"]
    assert "default false" in message and "cluster.karpenterVersion" not in message


def test_limits_below_the_overlaid_capacity_are_refused():
    ((path, message),) = config_issues(raw(pool(limits={"nvidia.com/gpu": 16})))
    assert path == "pools[0]"
    assert "limits.nvidia.com/gpu is 16" in message and "at least 32" in message and "filterByRemainingResources" in message


def test_an_overlay_without_sharing_or_mig_is_refused():
    ((path, message),) = config_issues(raw(pool(gpuSharing=None)))
    assert "nodeOverlay" in message and "neither gpuSharing nor mig" in message


def test_types_the_catalog_lacks_make_the_overlay_unknowable_and_refused():
    cfg = raw(pool(instanceFamilies=None, instanceTypes=["g6e.xlarge", "g6.3xlarge"], allowUnknownInstanceTypes=True))
    ((_, message),) = config_issues(cfg)
    assert "nodeOverlay" in message and "allowUnknownInstanceTypes" in message


def test_an_overlay_on_a_type_whose_gpu_has_no_confirmed_profile_table_is_refused():
    cfg = raw(pool(instanceFamilies=None, instanceTypes=["p6-b300.48xlarge"], gpuSharing=None,
                   mig={"strategy": "single", "profile": "1g.34gb"}, limits={"nvidia.com/gpu": 64}), operator=True)
    issues = config_issues(cfg)
    assert any("nodeOverlay" in m and "p6-b300.48xlarge" in m and "no MIG profile table is known for NVIDIA B300" in m for _, m in issues), issues


def test_a_requirement_on_an_instance_label_the_catalog_does_not_model_is_refused():
    extra = [{"key": "karpenter.k8s.aws/instance-hypervisor", "operator": "In", "values": ["nitro"]}]
    ((_, message),) = config_issues(raw(pool(requirements=extra)))
    assert "nodeOverlay" in message and "karpenter.k8s.aws/instance-hypervisor" in message


def test_a_requirement_on_a_custom_node_label_keeps_the_types_knowable():
    extra = [{"key": "example.com/team", "operator": "In", "values": ["ml"]}]
    assert overlays(raw(pool(requirements=extra)))


def test_the_bad_weight_is_refused_with_its_path():
    issues = dict(config_issues(raw(pool(nodeOverlay={"enabled": True, "weight": 0}))))
    assert "pools[0].nodeOverlay.weight" in issues


# --- what the plan reads back -------------------------------------------------------------------


def _nodepool(cfg: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    from gpu_node_pool.backends.karpenter.render import nodepool_manifest

    s = validate_stack_config(cfg)
    return s.pools[0], nodepool_manifest(s.pools[0], s.cluster)


def test_karpenters_view_agrees_with_the_node_with_the_rendered_overlays():
    p, np = _nodepool(raw(pool()))
    view = node_overlay.karpenter_view(p, np, [(o["metadata"]["name"], o) for o in node_overlay.manifests(p)])
    assert view["agrees"] is True and view["differs"] == []
    assert {g["node"]["nvidia.com/gpu"] for g in view["groups"]} == {4, 16, 32}


def test_without_an_overlay_karpenters_view_differs_from_a_time_sliced_node():
    p, np = _nodepool(raw(pool(nodeOverlay=None)))
    view = node_overlay.karpenter_view(p, np, [])
    assert view["agrees"] is False
    assert any("assumes nvidia.com/gpu: 1" in d and "advertises nvidia.com/gpu: 4" in d for d in view["differs"])


def test_a_hand_written_overlay_with_the_wrong_capacity_is_reported():
    p, np = _nodepool(raw(pool(nodeOverlay=None, instanceFamilies=None, instanceTypes=["g6e.xlarge"])))
    mine = {"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": {"name": "slices"},
            "spec": {"requirements": [{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "In", "values": ["1"]}],
                     "capacity": {"nvidia.com/gpu": "2"}}}
    view = node_overlay.karpenter_view(p, np, [("slices", mine)])
    assert view["overlays"][0]["name"] == "slices" and view["overlays"][0]["created"] is False
    assert view["agrees"] is False and "assumes nvidia.com/gpu: 2" in view["differs"][0]
    mine["spec"]["capacity"] = {"nvidia.com/gpu": "4"}
    assert node_overlay.karpenter_view(p, np, [("slices", mine)])["agrees"] is True


def test_an_overlay_for_another_nodepool_does_not_apply():
    p, np = _nodepool(raw(pool(nodeOverlay=None, instanceFamilies=None, instanceTypes=["g6e.xlarge"])))
    other = {"metadata": {"name": "other"}, "spec": {
        "requirements": [{"key": "karpenter.sh/nodepool", "operator": "In", "values": ["other"]}],
        "capacity": {"nvidia.com/gpu": "4"}}}
    view = node_overlay.karpenter_view(p, np, [("other", other)])
    assert view["overlays"] == [] and view["agrees"] is False


def test_the_higher_weight_overlay_wins_as_in_karpenter():
    p, np = _nodepool(raw(pool(nodeOverlay=None, instanceFamilies=None, instanceTypes=["g6e.xlarge"])))
    low = {"metadata": {"name": "z-low"}, "spec": {"requirements": [], "capacity": {"nvidia.com/gpu": "2"}, "weight": 1}}
    high = {"metadata": {"name": "a-high"}, "spec": {"requirements": [], "capacity": {"nvidia.com/gpu": "4"}, "weight": 9}}
    assert node_overlay.karpenter_view(p, np, [("z-low", low), ("a-high", high)])["agrees"] is True


STACK = """
config:
  aws:region: us-west-2
  gpu-node-pools:cluster:
    name: ml-dev
    nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node
    karpenterVersion: "1.14"
  gpu-node-pools:pools:
    - name: sliced
      backend: karpenter
      instanceTypes: [g6e.xlarge, g6e.12xlarge]
      nodeClass: {}
      limits: {nvidia.com/gpu: 64}
      gpuSharing: {strategy: timeSlicing, replicas: 4}
      nodeOverlay: {enabled: true}
"""


@pytest.fixture(scope="module")
def planned(tmp_path_factory):
    from gpu_node_pool.plan import plan_stack

    project = tmp_path_factory.mktemp("proj")
    shutil.copy(ROOT / "Pulumi.yaml", project / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", project / "__main__.py")
    (project / "stacks").mkdir()
    (project / "stacks" / "Pulumi.overlay.yaml").write_text(STACK)
    return plan_stack("overlay", project)


def test_the_plan_registers_the_overlays_as_children_of_the_pool(planned):
    assert not planned.config_issues, planned.config_issues
    found = {r.name: r for r in planned.resources if r.type == "kubernetes:karpenter.sh/v1alpha1:NodeOverlay"}
    assert sorted(found) == ["sliced-nodeoverlay-1gpu", "sliced-nodeoverlay-4gpu"]
    assert all("GpuNodePool" in (r.parent or "") for r in found.values())
    for r in found.values():
        obj = {"apiVersion": r.inputs["apiVersion"], "kind": r.inputs["kind"], "metadata": r.inputs["metadata"],
               "spec": r.inputs["spec"]}
        assert crd_errors(obj) == []


def test_the_plan_shows_the_overlays_as_karpenters_view(planned):
    from gpu_node_pool.cli.contract import report_schema
    from gpu_node_pool.plan.report import render_text, to_json

    report = to_json(planned)
    jsonschema.validate(report, report_schema())
    (entry,) = report["pools"]
    assert [o["name"] for o in entry["nodeOverlays"]] == ["sliced-1gpu", "sliced-4gpu"]
    scaler = entry["gpus"]["autoscaler"]
    assert scaler["name"] == "karpenter" and scaler["agrees"] is True and "NodeOverlay" in scaler["note"]
    text = render_text(planned)
    assert "node overlay    sliced-4gpu (rendered): nvidia.com/gpu: 16 on g6e.12xlarge" in text


def test_an_overlay_on_h100_declares_the_mig_devices_of_its_sourced_table():
    cfg = raw(pool(instanceFamilies=None, instanceTypes=["p5.48xlarge"], gpuSharing=None,
                   mig={"strategy": "single", "profile": "1g.10gb"}, limits={"nvidia.com/gpu": 64}), operator=True)
    ((obj,),) = [overlays(cfg)]
    assert obj["spec"]["capacity"] == {"nvidia.com/gpu": "56"}  # 8 GPUs x 7 1g.10gb instances


def test_a_pool_whose_types_advertise_different_counts_is_not_called_unknown_in_the_text(planned):
    from gpu_node_pool.plan.report import render_text

    # g6e.xlarge (1 GPU) and g6e.12xlarge (4 GPUs) x 4 replicas: 4 and 16, judged per group of types
    lines = [line for line in render_text(planned).splitlines() if line.startswith(("  advertises", "  autoscaler"))]
    assert not any("not known" in line for line in lines), lines
    advertises, autoscaler = lines
    assert "varies by instance type" in advertises
    assert autoscaler.startswith("  autoscaler      karpenter: per group of candidate types (matches;")
    assert "nvidia.com/gpu: 4 on 1 type(s); nvidia.com/gpu: 16 on 1 type(s)" in autoscaler
