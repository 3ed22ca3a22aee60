"""Every whole-number setting of the stack config has an upper bound: a value past it (here 10^20, which Pulumi's
YAML reader hands the program as 100000000000000000000) is refused by `gpupool validate` and `gpupool plan` with
the setting's path, never planned, advertised or written into a Cluster Autoscaler tag."""

from __future__ import annotations

import json
import typing

import annotated_types
import pytest
import yaml
from conftest import ROOT
from pydantic import BaseModel

from gpu_node_pool.cli.commands import main
from gpu_node_pool.config.stack import stack_model

BIG = 10**20


def _stack(name: str) -> dict:
    return yaml.safe_load((ROOT / "stacks" / f"Pulumi.{name}.yaml").read_text())


def _with(name: str, pool: int | None, path: tuple, value) -> dict:
    """Stack ``name`` with ``value`` set at ``path`` inside pool ``pool`` (or inside the config map when None)."""
    doc = _stack(name)
    node = doc["config"]["gpu-node-pools:pools"][pool] if pool is not None else doc["config"]
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    return doc


def _run(capsys, temp_project, doc: dict, command: str = "validate") -> tuple[int, str]:
    project = temp_project("big", json.dumps(doc, indent=1))
    code = main([command, "--stack", "big", "--project-dir", str(project)])
    out = capsys.readouterr()
    return code, out.out + out.err


#: Per whole-number setting ``(model, key)``: a stack that gives it 10^20, and the path the refusal names.
PROBES = {
    ("GpuSharingConfig", "replicas"): (("dev", 0, ("gpuSharing",), {"strategy": "timeSlicing", "replicas": BIG}),
                                       "pools[0].gpuSharing.replicas"),
    ("ScalingConfig", "minSize"): (("dev", 0, ("scaling", "minSize"), BIG), "pools[0].scaling"),
    ("ScalingConfig", "maxSize"): (("dev", 0, ("scaling", "maxSize"), BIG), "pools[0].scaling.maxSize"),
    ("ScalingConfig", "desiredSize"): (("dev", 0, ("scaling", "desiredSize"), BIG), "pools[0].scaling"),
    ("UpdateConfig", "maxUnavailable"): (("dev", 0, ("updateConfig",), {"maxUnavailable": BIG}),
                                         "pools[0].updateConfig.maxUnavailable"),
    ("UpdateConfig", "maxUnavailablePercentage"): (("dev", 0, ("updateConfig",), {"maxUnavailablePercentage": BIG}),
                                                   "pools[0].updateConfig.maxUnavailablePercentage"),
    ("EksManagedPool", "diskSize"): (("dev", 0, ("diskSize",), BIG), "pools[0].diskSize"),
    ("EksManagedPool", "gpusPerNode"): (("dev", 0, ("gpusPerNode",), BIG), "pools[0].gpusPerNode"),
    ("TolerationConfig", "tolerationSeconds"): (
        ("dev", None, ("gpu-node-pools:devicePlugin", "extraTolerations"),
         [{"key": "example.com/x", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": BIG}]),
        "devicePlugin.extraTolerations[0].tolerationSeconds"),
    ("LimitsConfig", "eksNodesPerNodeGroup"): (("dev", None, ("gpu-node-pools:limits", "eksNodesPerNodeGroup"), BIG),
                                               "limits.eksNodesPerNodeGroup"),
    ("LimitsConfig", "eksNodeGroupsPerCluster"): (
        ("dev", None, ("gpu-node-pools:limits", "eksNodeGroupsPerCluster"), BIG), "limits.eksNodeGroupsPerCluster"),
    ("GkeAccelerator", "count"): (("gke-dev", 0, ("accelerator", "count"), BIG), "pools[0].accelerator.count"),
    ("GkePool", "diskSizeGb"): (("gke-dev", 0, ("diskSizeGb",), BIG), "pools[0].diskSizeGb"),
    ("SelfManagedPool", "gpusPerNode"): (("prod", 3, ("gpusPerNode",), BIG), "pools[3].gpusPerNode"),
    ("SelfManagedPool", "diskSize"): (("prod", 3, ("diskSize",), BIG), "pools[3].diskSize"),
    ("SpotConfig", "onDemandBaseCapacity"): (("prod", 3, ("spot",), {"onDemandBaseCapacity": BIG}),
                                             "pools[3].spot.onDemandBaseCapacity"),
    ("SpotConfig", "onDemandPercentageAboveBaseCapacity"): (
        ("prod", 3, ("spot",), {"onDemandPercentageAboveBaseCapacity": BIG}),
        "pools[3].spot.onDemandPercentageAboveBaseCapacity"),
    ("KarpenterPool", "gpuCounts"): (("prod", 2, ("gpuCounts",), [BIG]), "pools[2]"),
    ("KarpenterPool", "weight"): (("prod", 2, ("weight",), BIG), "pools[2].weight"),
    ("KarpenterPool", "limits"): (("prod", 2, ("limits", "nvidia.com/gpu"), BIG), "pools[2].limits"),
    ("KarpenterRequirement", "minValues"): (
        ("prod", 2, ("requirements",), [{"key": "example.com/a", "operator": "In", "values": ["a"], "minValues": BIG}]),
        "pools[2].requirements[0]"),
    ("EbsVolume", "iops"): (("prod", 2, ("nodeClass", "blockDeviceMappings"),
                             [{"deviceName": "/dev/xvda", "ebs": {"volumeSize": "100Gi", "iops": BIG}}]),
                            "pools[2].nodeClass.blockDeviceMappings[0].ebs.iops"),
    ("EbsVolume", "throughput"): (("prod", 2, ("nodeClass", "blockDeviceMappings"),
                                   [{"deviceName": "/dev/xvda", "ebs": {"volumeSize": "100Gi", "throughput": BIG}}]),
                                  "pools[2].nodeClass.blockDeviceMappings[0].ebs.throughput"),
    **{("KarpenterKubelet", key): (("prod", 2, ("nodeClass", "kubelet", key), BIG), f"pools[2].nodeClass.kubelet.{key}")
       for key in ("maxPods", "podsPerCore", "evictionMaxPodGracePeriod", "imageGCHighThresholdPercent",
                   "imageGCLowThresholdPercent")},
    ("KarpenterNodeOverlay", "weight"): (("prod", 2, ("nodeOverlay",), {"enabled": True, "weight": BIG}),
                                         "pools[2].nodeOverlay.weight"),
    ("EksAutoPool", "gpuCounts"): (("auto", 0, ("gpuCounts",), [BIG]), "pools[0]"),
    ("EksAutoPool", "weight"): (("auto", 0, ("weight",), BIG), "pools[0].weight"),
    ("EksAutoPool", "limits"): (("auto", 0, ("limits", "nvidia.com/gpu"), BIG), "pools[0].limits"),
    ("AutoRequirement", "minValues"): (
        ("auto", 0, ("requirements",), [{"key": "example.com/a", "operator": "In", "values": ["a"], "minValues": BIG}]),
        "pools[0].requirements[0]"),
    ("AutoEphemeralStorage", "iops"): (("auto", 0, ("nodeClass", "ephemeralStorage"), {"size": "100Gi", "iops": BIG}),
                                       "pools[0].nodeClass.ephemeralStorage.iops"),
    ("AutoEphemeralStorage", "throughput"): (
        ("auto", 0, ("nodeClass", "ephemeralStorage"), {"size": "100Gi", "throughput": BIG}),
        "pools[0].nodeClass.ephemeralStorage.throughput"),
}


def _annotations(annotation) -> typing.Iterator:
    yield annotation
    for arg in typing.get_args(annotation):
        yield from _annotations(arg)


def _whole_number_fields() -> set[tuple[str, str]]:
    """``(model, key)`` of every field of the stack's models that holds a whole number (alone, in a list or map)."""
    found: set[tuple[str, str]] = set()
    seen: set[type] = set()
    todo: list[type] = [stack_model()]
    while todo:
        model = todo.pop()
        if model in seen:
            continue
        seen.add(model)
        for name, field in model.model_fields.items():
            inner = list(_annotations(field.annotation))
            if int in inner:
                found.add((model.__name__, field.alias or name))
            todo += [a for a in inner if isinstance(a, type) and issubclass(a, BaseModel)]
    return found


def test_every_whole_number_setting_has_a_probe_here():
    # a new whole-number setting needs its bound (le=INT32_MAX or its API's own) and a probe below
    assert _whole_number_fields() == set(PROBES)


@pytest.mark.parametrize("key", sorted(PROBES), ids=[".".join(k) for k in sorted(PROBES)])
def test_a_whole_number_past_its_bound_is_refused_with_its_path(capsys, temp_project, key):
    (stack, pool, path, value), where = PROBES[key]
    code, out = _run(capsys, temp_project, _with(stack, pool, path, value))
    assert code == 2, out
    assert f"{where}" in out and "Traceback" not in out, out


def test_huge_replicas_plan_nothing_and_say_the_int32_bound(capsys, temp_project):
    doc = _with("dev", 0, ("gpuSharing",), {"strategy": "timeSlicing", "replicas": BIG})
    code, out = _run(capsys, temp_project, doc, "plan")
    assert code == 2, out
    assert ("pools[0].gpuSharing.replicas: 100000000000000000000: must be at most 2147483647, the largest int32 "
            "(an int32, the narrowest type of the places it is written: NVIDIA's device plugin config holds a Go int") \
        in out, out
    assert "write a smaller whole number" in out
    assert "node-template/resources" not in out and "advertises" not in out, out


def test_the_bound_itself_is_taken(capsys, temp_project):
    doc = _with("dev", 0, ("scaling",), {"minSize": 0, "maxSize": 2**31 - 1})
    code, out = _run(capsys, temp_project, doc)
    assert code == 0, out


def test_a_float_sized_whole_number_is_past_the_range_not_a_fraction(capsys, temp_project):
    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
    assert "maxSize: 4" in text
    project = temp_project("big", text.replace("maxSize: 4", "maxSize: 99999999999999999999999"))
    code = main(["validate", "--stack", "big", "--project-dir", str(project)])
    out = capsys.readouterr().err
    assert code == 2 and "the program gets 1e+23" in out, out
    assert ("99999999999999999999999: is a whole number outside the setting's range: it must be at most 2147483647, "
            "the largest int32 (an int32 of at least 1 in the EKS and Auto Scaling APIs") in out, out
    assert "write a smaller whole number" in out and "(e.g. 4)" not in out, out


def test_a_field_bounded_at_an_api_width_names_the_api_holding_it():
    # the loader quotes the description's parenthesis that names the width (int32, int64) as the rule's source
    bounded = []
    seen: set[type] = set()
    todo: list[type] = [stack_model()]
    while todo:
        model = todo.pop()
        if model in seen:
            continue
        seen.add(model)
        for name, field in model.model_fields.items():
            todo += [a for a in _annotations(field.annotation) if isinstance(a, type) and issubclass(a, BaseModel)]
            le = [m.le for m in field.metadata if isinstance(m, annotated_types.Le)]
            if le and le[0] in (2**31 - 1, 2**63 - 1):
                bounded.append((model.__name__, field.alias or name, le[0], field.description or ""))
    assert len(bounded) >= 8
    for model_name, key, le, about in bounded:
        assert ("int32" if le == 2**31 - 1 else "int64") in about, (model_name, key, about)
