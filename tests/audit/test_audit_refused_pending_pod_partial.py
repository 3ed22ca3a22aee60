"""A Pending pod whose spec the API server refuses (a toleration, a node selection: ``ValidateTolerations``,
``ValidatePodSpec`` in kubernetes pkg/apis/core/validation/validation.go) is not judged by the pending-pod verdict, and
what is not judged is never clean: the report says why under "Not judged", one item per refused field, and is partial
(``objectsSkipped``, a ``PARTIAL`` line, exit 1 under every ``--fail-on`` but ``none``), as for a DaemonSet refused
alike."""

from __future__ import annotations

import contextlib
import io
import json

import jsonschema
import pytest
from audit_cluster import as_list, eks_node, finished_pod
from conftest import ROOT

from gpu_node_pool.cli.commands import main

SCHEMA = json.loads((ROOT / "components/gpu_node_pool/audit/report.schema.json").read_text())
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
PLUGIN = {"apiVersion": "apps/v1", "kind": "DaemonSet",
          "metadata": {"name": "nvidia-device-plugin-daemonset", "namespace": "kube-system"},
          "spec": {"selector": {"matchLabels": {"app": "ndp"}},
                   "template": {"metadata": {"labels": {"app": "ndp"}},
                                "spec": {"containers": [{"name": "ndp", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}],
                                         "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]}}}}


def pending(**spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train", "namespace": "ml"},
            "spec": {"containers": [{"name": "c", "image": "busybox"}], **spec},
            "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                                           "reason": "Unschedulable", "message": "0/1 nodes are available"}]}}


def audit(tmp_path, *objects, fail_on: str = "mandatory") -> tuple[int, dict, str]:
    """A clean cluster (one GPU node its device plugin covers) plus ``objects``: exit code, ``--json`` report, text."""
    node = eks_node("gpu-1", pool="inference", nodegroup="inference", instance="g6e.2xlarge", gpus=1, taints=[GPU_TAINT])
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps(as_list([node, PLUGIN, finished_pod("gpu-1"), *objects])))
    out, text = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["audit", "--cluster-dump", str(dump), "--json", "--fail-on", fail_on])
    with contextlib.redirect_stdout(text):
        main(["audit", "--cluster-dump", str(dump), "--fail-on", fail_on])
    return code, json.loads(out.getvalue()), text.getvalue()


def test_the_cluster_without_the_pod_is_clean(tmp_path):
    code, report, _ = audit(tmp_path)
    assert (code, report["partial"], report["findings"], report["objectsSkipped"]) == (0, False, [], [])


@pytest.mark.parametrize(("spec", "field", "why"), [
    ({"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "value": "present"}]}, "spec.tolerations[0]",
     "spec.tolerations[0].value 'present': must be empty when operator is Exists"),
    ({"nodeSelector": {"nvidia.com/gpu.present": True}}, "spec.nodeSelector['nvidia.com/gpu.present']",
     "spec.nodeSelector['nvidia.com/gpu.present'] is true (a boolean)"),
])
def test_a_pending_pod_with_a_refused_spec_makes_the_report_partial_with_why(tmp_path, spec, field, why):
    code, report, text = audit(tmp_path, pending(**spec))
    jsonschema.validate(report, SCHEMA)
    assert report["pendingPods"] == [] and report["findings"] == []
    [item] = [n for n in report["notJudged"] if n["subject"] == "Pod ml/train"]
    assert item["reason"].startswith(f"Pending, not judged: {why}")
    line = (f"Pod ml/train: Pending pod not judged: the API server refuses this pod spec ({field}; why and fix under "
            "Not judged)")
    assert report["partial"] is True and report["objectsSkipped"] == [line]
    assert code == 1 and report["exitCode"] == 1
    assert f"PARTIAL: {line}" in text
    assert "0 mandatory, 0 advisory, 0 info; PARTIAL verdict: 1 Pending pod(s) not judged; exit 1" in text


def test_fail_on_none_still_exits_0_and_says_partial(tmp_path):
    code, report, _ = audit(tmp_path, pending(tolerations=[{"key": "a", "operator": "exists"}]), fail_on="none")
    assert code == 0 and report["partial"] is True
