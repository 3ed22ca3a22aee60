"""What the audit did not read or did not judge is never clean: a dump without DaemonSets or pods, a GPU count the
API server would refuse, an item that is no object, a DaemonSet without the selector or pod template the API server
requires, a Pod without a spec. Each makes the verdict partial, with a PARTIAL line of its own and exit 1 (README,
"Auditing a running cluster": a partial report exits at least 1 under every --fail-on but none)."""

from __future__ import annotations

import json

import jsonschema
import pytest
from audit_cluster import audit_dump, corpus_ds, eks_node, finished_pod
from conftest import ROOT

SCHEMA = json.loads((ROOT / "components/gpu_node_pool/audit/report.schema.json").read_text())
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
SELECTOR_RULE = "ValidateDaemonSetSpec refuses a DaemonSet whose selector does not match its template's labels"
CONTAINER_RULE = "ValidatePodSpec refuses a pod spec without one"


def gpu_node(allocatable: str = "1") -> dict:
    node = eks_node("gpu-1", pool="train", nodegroup="train", instance="g6e.2xlarge", gpus=1, taints=[GPU_TAINT])
    node["status"]["allocatable"]["nvidia.com/gpu"] = allocatable
    return node


def plugin() -> dict:
    return corpus_ds("nvidia-device-plugin-helm")


def whole() -> list:
    """A cluster the audit judges whole: a GPU node, its device plugin (which tolerates the GPU taint) and a pod."""
    return [gpu_node(), plugin(), finished_pod("gpu-1")]


def summary(text: str) -> str:
    return text.rstrip("\n").splitlines()[-1]


def test_the_whole_cluster_is_clean(tmp_path):
    code, report, text = audit_dump(tmp_path, whole())
    assert (code, report["partial"], report["notJudged"]) == (0, False, [])
    assert "PARTIAL" not in text


@pytest.mark.parametrize(("leave_out", "line"), [
    ("DaemonSet", "GET /apis/apps/v1/daemonsets: the dump holds no DaemonSets: which agents cover the GPU pools and why "
                  "a GPU node is starved are not judged (add `kubectl get daemonsets -A -o json` to the dump)"),
    ("Pod", "GET /api/v1/pods: the dump holds no Pods: pending pods, the pods on untainted GPU nodes and whether a "
            "device plugin's pod is Ready are not judged (add `kubectl get pods -A -o json` to the dump)"),
])
def test_a_dump_without_a_list_the_verdicts_need_is_partial_as_a_refused_list_is(tmp_path, leave_out, line):
    code, report, text = audit_dump(tmp_path, [o for o in whole() if o["kind"] != leave_out])
    jsonschema.validate(report, SCHEMA)
    assert report["partial"] is True and report["listsNotRead"] == [line] and report["exitCode"] == 1
    assert f"\nPARTIAL: {line}\n" in text
    assert code == 1 and summary(text) == ("0 mandatory, 0 advisory, 0 info; PARTIAL verdict: 1 list(s) not read; exit 1 "
                                           "(--fail-on mandatory)")


@pytest.mark.parametrize(("count", "what"), [
    ("-1", "a negative number of devices"),
    ("99999999999999999999999", "more devices than Kubernetes can count"),
])
def test_a_gpu_count_left_out_of_the_starved_verdict_makes_it_partial(tmp_path, count, what):
    cluster = whole()
    cluster[0] = gpu_node(allocatable=count)
    code, report, text = audit_dump(tmp_path, cluster)
    line = f"Node gpu-1: status.allocatable.nvidia.com/gpu {count!r}: {what}"
    assert f"\nPARTIAL: {line}" in text and f"\n  {line}" in text  # its PARTIAL line, and under Not judged
    assert report["partial"] is True and report["exitCode"] == 1
    assert code == 1 and summary(text) == ("0 mandatory, 0 advisory, 0 info; PARTIAL verdict: 1 other part(s) not "
                                           "judged; exit 1 (--fail-on mandatory)")


def test_every_item_skipped_is_counted_and_has_its_partial_line(tmp_path):
    no_metadata = {"kind": "Node"}
    bad_shape = {"kind": "Node", "metadata": {"name": "n1"}, "spec": {"taints": {"key": "a"}}}
    code, report, text = audit_dump(tmp_path, [1, "x", None, no_metadata, bad_shape, *whole()])
    dump = tmp_path / "cluster.json"
    for i, what in enumerate(("a number 1", 'a string "x"', "null")):  # what each item is, said
        assert f"\nPARTIAL: {dump} items[{i}]: {what}, not an object; skipped\n" in text
    assert f"\nPARTIAL: Node at {dump} items[3]: no metadata" in text
    assert "\nPARTIAL: Node n1: a field has the wrong shape: spec.taints is an object" in text
    assert len(report["objectsSkipped"]) == 5 and report["partial"] is True
    assert code == 1 and summary(text) == ("0 mandatory, 0 advisory, 0 info; PARTIAL verdict: 5 object(s) not read; "
                                           "exit 1 (--fail-on mandatory)")


@pytest.mark.parametrize(("spec", "told", "rule"), [
    ({}, "spec.selector is absent, where the API server requires a label selector", SELECTOR_RULE),
    ({"template": None}, "spec.template.spec.containers is absent (spec.template is null), where the API server "
                         "requires a pod template with at least one container", CONTAINER_RULE),
    (None, "spec.selector is absent (spec is null), where the API server requires a label selector", SELECTOR_RULE),
    ({"selector": {"matchLabels": {"app": "x"}}, "template": {"spec": {"containers": []}}},
     "spec.template.spec.containers is an empty array, where the API server requires a pod template with at least "
     "one container", CONTAINER_RULE),
])
def test_a_daemonset_the_api_server_refuses_for_a_missing_field_is_not_judged_as_if_it_ran(tmp_path, spec, told,
                                                                                           rule):
    odd = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "odd", "namespace": "z"}, "spec": spec}
    code, report, text = audit_dump(tmp_path, [*whole(), odd])
    [line] = report["objectsSkipped"]
    assert line.startswith("DaemonSet z/odd: a field the API server requires is missing: ") and told in line
    assert rule in line
    assert "this DaemonSet was not judged and the report is partial" in line
    assert f"\nPARTIAL: {line}\n" in text
    assert [r["name"] for r in report["daemonSets"]] == ["nvidia-device-plugin"]  # judged nowhere, no row
    assert not [f for f in report["findings"] if "z/odd" in f["subject"]]
    assert code == 1 and "PARTIAL verdict: 1 object(s) not read; exit 1" in summary(text)


def test_a_pending_pod_without_a_spec_is_said_not_dropped(tmp_path):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pnull", "namespace": "q"}, "spec": None,
           "status": {"phase": "Pending"}}
    code, report, text = audit_dump(tmp_path, [*whole(), pod])
    [line] = report["objectsSkipped"]
    assert line.startswith("Pod q/pnull: a field the API server requires is missing: spec.containers is absent (spec "
                           "is null), where the API server requires at least one container")
    assert CONTAINER_RULE in line and f"\nPARTIAL: {line}\n" in text
    assert code == 1 and report["partial"] is True


def test_the_fix_of_a_pending_pod_that_requests_no_gpu_has_no_empty_taint_list(tmp_path):
    cpu = eks_node("cpu-1", pool=None, nodegroup="system", instance="m7i.xlarge", gpus=None, cpu="4", memory="15896988Ki")
    pending = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "batch"},
               "spec": {"containers": [{"name": "c", "image": "busybox"}]},
               "status": {"phase": "Pending", "conditions": [{
                   "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                   "message": "0/2 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: present}, "
                              "1 Insufficient cpu."}]}}
    code, report, text = audit_dump(tmp_path, [*whole(), cpu, pending])
    [finding] = [f for f in report["findings"] if f["code"] == "pending-gpu-taint"]
    assert finding["fix"].startswith("it requests no GPU: keep it off GPU nodes (a nodeSelector or required node "
                                     "affinity for nodes without the GPU taints), or add CPU nodes it can run on")
    assert " )" not in text
