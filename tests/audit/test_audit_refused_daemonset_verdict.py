"""A DaemonSet whose tolerations the API server refuses is judged on no node, so the audit's verdict is never clean:
partial, exit 1 under every ``--fail-on`` but ``none`` (README, "Auditing a running cluster": what was not read is
never clean). Each refused field's reason and fix is given once per DaemonSet, under "Not judged"; its cells name the
fields and send the reader there."""

from __future__ import annotations

import contextlib
import io
import json

import jsonschema
import pytest
import yaml
from audit_cluster import finished_pod
from conftest import ROOT

from gpu_node_pool.cli.commands import main

SCHEMA = json.loads((ROOT / "components/gpu_node_pool/audit/report.schema.json").read_text())

#: The refusals of ValidateTolerations (kubernetes pkg/apis/core/validation/validation.go) the user met.
VALUE_WITH_EXISTS = ("spec.template.spec.tolerations[0].value 'present': must be empty when operator is Exists "
                     "(Exists matches every value): the API server refuses this pod spec")
UPPER_CASE_EFFECT = "spec.template.spec.tolerations[1].effect 'NO_SCHEDULE': must be empty (every effect) or one of"

GPU_NODE = {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "ip-10-0-1-10.us-west-2.compute.internal",
                         "labels": {"kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": "g6.xlarge",
                                    "eks.amazonaws.com/nodegroup": "inference", "gpu-node-pools/pool": "inference",
                                    "nvidia.com/gpu.present": "true", "example.com/team": "ml-platform"}},
            "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
            "status": {"capacity": {"nvidia.com/gpu": "1"}, "allocatable": {"nvidia.com/gpu": "1"}}}


def daemonset(namespace: str, name: str, image: str, tolerations: list[dict]) -> dict:
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": namespace},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": name, "image": image}], "tolerations": tolerations}}},
            "status": {"desiredNumberScheduled": 1}}


BAD_TOLS = daemonset("monitoring", "bad-tols", "busybox", [
    {"key": "nvidia.com/gpu", "operator": "Exists", "value": "present", "effect": "NoSchedule"},
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NO_SCHEDULE"},
])
PLUGIN = daemonset("kube-system", "nvidia-device-plugin-daemonset", "nvcr.io/nvidia/k8s-device-plugin:v0.17.0",
                   [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}])


def audit(tmp_path, *args: str, first: dict | None = None) -> tuple[int, str]:
    """The audit of a dump of the GPU node, ``first`` (default :data:`BAD_TOLS`) and the device plugin."""
    dump = tmp_path / "dump"
    dump.mkdir(exist_ok=True)
    (dump / "nodes.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [GPU_NODE, finished_pod(GPU_NODE["metadata"]["name"])]}))
    (dump / "ds.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List",
                                                  "items": [first or BAD_TOLS, PLUGIN]}))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["audit", "--cluster-dump", str(dump), *args])
    return code, out.getvalue()


@pytest.mark.parametrize("stack", [[], ["--stack", "dev", "--project-dir", str(ROOT)]], ids=["dump", "with-what-if"])
def test_a_daemonset_with_refused_tolerations_makes_the_verdict_partial(tmp_path, stack):
    code, out = audit(tmp_path, "--json", *stack)
    report = json.loads(out)
    jsonschema.validate(report, SCHEMA)
    assert report["partial"] is True
    assert code == 1 and report["exitCode"] == 1
    [line] = [s for s in report["objectsSkipped"] if "monitoring/bad-tols" in s]
    assert "spec.template.spec.tolerations[0], spec.template.spec.tolerations[1]" in line
    assert [f for f in report["findings"] if "bad-tols" in f["subject"]] == []  # not judged is no finding


def test_with_no_finding_the_text_says_partial_and_exits_1_unless_fail_on_none(tmp_path):
    code, text = audit(tmp_path)
    assert code == 1
    assert ("PARTIAL: DaemonSet monitoring/bad-tols: judged on no node: the API server refuses this pod spec "
            "(spec.template.spec.tolerations[0], spec.template.spec.tolerations[1]; why and fix under Not judged)") in text
    assert "0 mandatory, 0 advisory, 0 info; PARTIAL verdict: 1 DaemonSet(s) judged on no node; exit 1" in text
    assert audit(tmp_path, "--fail-on", "none")[0] == 0


def test_each_refused_toleration_is_explained_once_with_its_fix(tmp_path):
    code, text = audit(tmp_path, "--stack", "dev", "--project-dir", str(ROOT))
    assert text.count(VALUE_WITH_EXISTS) == 1
    assert text.count(UPPER_CASE_EFFECT) == 1
    assert f"  DaemonSet monitoring/bad-tols: {VALUE_WITH_EXISTS}" in text
    assert text.count("fix: drop the value, or use operator Equal to match only that value") == 1
    assert text.count("fix: write NoSchedule") == 1
    assert "also refused" not in text  # the second field has its own reason, not a bare name
    # the cells (the live pool and the what-if) name the fields and point to the reasons
    short = ("not judged: the API server refuses this pod spec (spec.template.spec.tolerations[0], "
             "spec.template.spec.tolerations[1]; why and fix under Not judged)")
    assert f"    GpuNodePool inference: {short}" in text
    assert f"    what-if pool inference as declared: {short}" in text
    report = json.loads(audit(tmp_path, "--stack", "dev", "--project-dir", str(ROOT), "--json")[1])
    reasons = [n["reason"] for n in report["notJudged"] if "bad-tols" in n["subject"]]
    assert len(reasons) == 2 and reasons[0].startswith(VALUE_WITH_EXISTS) and reasons[1].startswith(UPPER_CASE_EFFECT)


def test_a_dumped_daemonset_whose_name_the_api_server_refuses_is_judged_on_no_node(tmp_path):
    """A hand-written dump can hold a DaemonSet no API server stores (metadata.name no DNS-1123 subdomain,
    ValidateObjectMeta): it is judged on no node with the rule, never a finding."""
    refused = daemonset("monitoring", "Bad_Name", "busybox", [{"key": "nvidia.com/gpu", "operator": "Exists"}])
    code, out = audit(tmp_path, "--json", first=refused)
    report = json.loads(out)
    assert report["partial"] is True and code == 1
    [line] = [s for s in report["objectsSkipped"] if "monitoring/Bad_Name" in s]
    assert "metadata.name 'Bad_Name' of DaemonSet is not a DNS-1123 subdomain" in line and "write 'bad-name'" in line
    assert [f for f in report["findings"] if "Bad_Name" in f["subject"]] == []
