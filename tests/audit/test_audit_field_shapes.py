"""A dump object with a field of another shape than the API server holds there is told in the words of JSON and of
the Kubernetes types (which object, which field, what it holds, what the API holds, that no API server serves it),
never with Python's error text, and left out of the verdicts with the report partial."""

from __future__ import annotations

import copy

import pytest
from audit_cluster import audit_dump, corpus_ds, eks_node, finished_pod

from gpu_node_pool.cli.commands import main

TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
NODE_SOURCE = "(k8s.io/api core/v1, https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/node-v1/)"
NOT_SERVED = ("an API server never serves such a {kind} (it holds each field in its type), so the dump was edited or "
              "is not a kubectl dump; this {kind} was not judged and the report is partial -> write the dump again with "
              "kubectl get nodes,daemonsets,pods,events -A -o json, or fix the field in the dump")
PYTHON_WORDS = ("AttributeError", "TypeError", "'list' object", "'dict'", "'str'", "NoneType", "has no attribute")


def gpu_node(name: str = "gpu-1") -> dict:
    return eks_node(name, pool="inference", nodegroup="gpu", instance="g6e.2xlarge", gpus=1, taints=[TAINT])


def set_path(obj: dict, path: str, value) -> dict:
    *parents, last = path.split(".")
    for part in parents:
        obj = obj.setdefault(part, {})
    obj[last] = value
    return obj


def skipped_line(report: dict, subject: str) -> str:
    [line] = [line for line in report["objectsSkipped"] if line.startswith(f"{subject}: ")]
    return line


@pytest.mark.parametrize(("path", "value", "told"), [
    ("metadata.labels", ["gpu"], 'metadata.labels is an array of 1 item(s) ["gpu"], where the API server holds a map of '
                                 "strings (ObjectMeta.labels, map[string]string)"),
    ("metadata.labels", {"nvidia.com/gpu.count": 8}, "metadata.labels is an object whose value at "
                                                     "\"nvidia.com/gpu.count\" is a number 8, where the API server holds a "
                                                     "map of strings (ObjectMeta.labels, map[string]string)"),
    ("spec.taints", dict(TAINT), 'spec.taints is an object {"key": "nvidia.com/gpu", "value": "present", "effect": '
                                 '"NoSchedule"}, where the API server holds an array (NodeSpec.taints, []Taint)'),
    ("spec.taints", {}, "spec.taints is an object, where the API server holds an array (NodeSpec.taints, []Taint)"),
    ("status.allocatable", ["nvidia.com/gpu"], 'status.allocatable is an array of 1 item(s) ["nvidia.com/gpu"], where the '
                                               "API server holds a map of quantities (NodeStatus.allocatable, ResourceList)"),
    ("status.conditions", "Ready", "status.conditions is a string \"Ready\", where the API server holds an array of "
                                   "objects (NodeStatus.conditions, []NodeCondition)"),
])
def test_a_node_with_a_field_of_the_wrong_shape_is_named_in_api_terms_and_not_judged(tmp_path, path, value, told):
    odd = gpu_node("gpu-odd")
    set_path(odd, path, value)
    code, report, text = audit_dump(tmp_path, [gpu_node(), odd])
    line = skipped_line(report, "Node gpu-odd")
    assert line == f"Node gpu-odd: a field has the wrong shape: {told} {NODE_SOURCE}; {NOT_SERVED.format(kind='Node')}"
    assert f"PARTIAL: {line}" in text
    assert {"subject": "dump", "reason": line} in report["notJudged"]
    assert report["partial"] is True and code == 1
    assert [n["name"] for p in report["gpuPools"] for n in p["nodes"]] == ["gpu-1"]  # the other node is judged
    assert not any(word in text for word in PYTHON_WORDS)


def test_a_daemonset_whose_containers_are_an_object_is_not_judged(tmp_path):
    ds = corpus_ds("nvidia-device-plugin-static", 1)
    ds["spec"]["template"]["spec"]["containers"] = {"name": "nvidia-device-plugin-ctr"}
    code, report, text = audit_dump(tmp_path, [gpu_node(), ds])
    line = skipped_line(report, "DaemonSet kube-system/nvidia-device-plugin-daemonset")
    assert ('a field has the wrong shape: spec.template.spec.containers is an object {"name": "nvidia-device-plugin-ctr"}, '
            "where the API server holds an array of objects (PodSpec.containers, []Container) (k8s.io/api apps/v1, "
            "https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/daemon-set-v1/); "
            + NOT_SERVED.format(kind="DaemonSet")) in line
    assert report["partial"] is True and code == 1 and report["daemonSets"] == []


def test_a_daemonset_whose_tolerations_are_an_object_is_judged_on_no_node_in_api_terms(tmp_path):
    """Tolerations are read by the API server's rules of a pod spec (k8s/refusals.py): the DaemonSet is kept and judged
    on no node, its tolerations' shape told under Not judged."""
    ds = corpus_ds("nvidia-device-plugin-static", 1)
    ds["spec"]["template"]["spec"]["tolerations"] = {"key": "nvidia.com/gpu", "operator": "Exists"}
    code, report, text = audit_dump(tmp_path, [gpu_node(), ds])
    [reason] = [n["reason"] for n in report["notJudged"]
                if n["subject"] == "DaemonSet kube-system/nvidia-device-plugin-daemonset"]
    assert reason.startswith("spec.template.spec.tolerations is an object, not a list: the API server refuses this pod "
                             "spec (PodSpec.tolerations is a list of Toleration)")
    assert report["partial"] is True and code == 1
    assert not any(word in text for word in PYTHON_WORDS)


@pytest.mark.parametrize(("containers", "told"), [
    ("ctr", "spec.containers is a string \"ctr\", where the API server holds an array of objects (PodSpec.containers, "
            "[]Container)"),
    (["ctr"], "spec.containers is an array whose item [0] is a string \"ctr\", where the API server holds an array of "
              "objects (PodSpec.containers, []Container)"),
])
def test_a_pending_pod_whose_containers_are_no_array_of_objects_is_not_judged(tmp_path, containers, told):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train", "namespace": "ml"},
           "spec": {"containers": containers}, "status": {"phase": "Pending"}}
    code, report, text = audit_dump(tmp_path, [gpu_node(), pod])
    line = skipped_line(report, "Pod ml/train")
    assert line == (f"Pod ml/train: a field has the wrong shape: {told} (k8s.io/api core/v1, "
                    "https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/); "
                    + NOT_SERVED.format(kind="Pod"))
    assert report["pendingPods"] == [] and not [f for f in report["findings"] if "ml/train" in f["subject"]]
    assert report["partial"] is True and code == 1


def test_several_fields_of_one_object_are_told_in_one_line(tmp_path):
    odd = gpu_node("gpu-odd")
    odd["metadata"]["labels"] = []
    odd["status"]["capacity"] = "8"
    _, report, _ = audit_dump(tmp_path, [odd])
    line = skipped_line(report, "Node gpu-odd")
    assert ("metadata.labels is an empty array, where the API server holds a map of strings (ObjectMeta.labels, "
            "map[string]string); status.capacity is a string \"8\", where the API server holds a map of quantities "
            "(NodeStatus.capacity, ResourceList)") in line


def test_null_is_read_as_absent_as_the_api_server_decodes_it(tmp_path):
    node = gpu_node()
    node["metadata"]["labels"] = copy.deepcopy(node["metadata"]["labels"])
    node["spec"]["taints"] = None
    _, report, _ = audit_dump(tmp_path, [node])
    assert report["objectsSkipped"] == []
    assert [n["name"] for p in report["gpuPools"] for n in p["nodes"]] == ["gpu-1"]


def test_fail_on_none_keeps_exit_0_with_a_skipped_object(tmp_path, capsys):
    import json

    from audit_cluster import as_list

    odd = gpu_node()
    odd["metadata"]["labels"] = ["gpu"]
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps(as_list([odd])))
    assert main(["audit", "--cluster-dump", str(dump), "--fail-on", "none"]) == 0
    assert "PARTIAL: Node gpu-1: a field has the wrong shape" in capsys.readouterr().out


@pytest.mark.parametrize("kind", [{"name": "Node"}, ["Node"]])
def test_an_item_or_a_list_whose_kind_is_no_string_is_told_not_a_crash(tmp_path, capsys, kind):
    import json

    dump = tmp_path / "dump.json"
    items = [gpu_node(), corpus_ds("kube-proxy-eks"), finished_pod("gpu-1"), {"kind": kind, "metadata": {"name": "a"}}]
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    assert main(["audit", "--cluster-dump", str(dump)]) == 0
    assert "left out, not judged: 1 item(s) without a kind" in capsys.readouterr().out
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": kind, "items": []}))
    assert main(["audit", "--cluster-dump", str(dump)]) == 2
    err = capsys.readouterr().err
    assert f"got an object whose kind is {'an object' if isinstance(kind, dict) else 'an array of 1 item(s)'};" in err
