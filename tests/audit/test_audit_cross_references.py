"""What one part of the audit text says about another names something the text prints.

* A finding that points to another says ``see the finding on <subject> about <what>``: the subject its line starts
  with and what its message names; never a finding ``code``, which only ``--json`` prints.
* A declared taint that a node carries with an effect Kubernetes does not have (``NO_SCHEDULE``) is no second,
  contradicting fix (``pulumi up``) beside the malformed taint's ("take the dump again"): the drift finding says what
  the node carries and points to that finding. The pool line names the malformed taint and points to its finding
  too, as ``STARVED`` stands for the starved node's, without repeating its paragraph.
* "Not judged" points to a ``PARTIAL`` line only when the text prints one: a dump without pods is no partial report
  (README, "Auditing a running cluster": what makes a report partial), a refused pods list is.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil

from audit_cluster import as_list, eks_node
from conftest import ROOT
from stack_texts import EKS_DEV

from gpu_node_pool.audit.declared import Declared, DeclaredPool
from gpu_node_pool.audit.report import run_audit
from gpu_node_pool.audit.snapshot import Snapshot
from gpu_node_pool.cli.commands import main
from gpu_node_pool.k8s.taints import Taint

STACK = EKS_DEV + """    - name: inference
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      amiType: AL2023_x86_64_NVIDIA
      scaling: {minSize: 0, maxSize: 4}
      taints: ["nvidia.com/gpu=present:NoSchedule"]
  gpu-node-pools:devicePlugin:
    namespace: nvidia-device-plugin
"""
LOGS = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "logs", "namespace": "ops"},
        "spec": {"selector": {"matchLabels": {"app": "logs"}},
                 "template": {"metadata": {"labels": {"app": "logs"}},
                              "spec": {"containers": [{"name": "logs", "image": "registry.example.com/logs:1"}]}}}}
SEE = re.compile(r"see the findings? on (Nodes? [^ ,]+(?:, [^ ,]+)*) about ([^)\s]+)")


def audit(tmp_path, taints: list[dict], *, stack: bool = True, objects: tuple = (LOGS,)) -> tuple[int, str, dict]:
    """``gpupool audit`` of a dump with one GPU node ``gpu-1`` of pool ``inference`` carrying ``taints`` and
    ``objects``; with ``stack``, ``--stack dev`` whose pool ``inference`` declares nvidia.com/gpu=present:NoSchedule.
    Returns the exit code, the text and the ``--json`` report."""
    node = eks_node("gpu-1", pool="inference", nodegroup="inference", instance="g6.xlarge", gpus=1, taints=taints)
    dump = tmp_path / "cluster.json"
    dump.write_text(json.dumps(as_list([node, *objects])))
    argv = ["audit", "--cluster-dump", str(dump)]
    if stack:
        shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
        shutil.copy(ROOT / "__main__.py", tmp_path / "__main__.py")
        (tmp_path / "stacks").mkdir()
        (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text(STACK)
        argv += ["--stack", "dev", "--project-dir", str(tmp_path)]
    text, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(text):
        code = main(argv)
    with contextlib.redirect_stdout(out):
        main([*argv, "--json"])
    return code, " ".join(text.getvalue().split()), json.loads(out.getvalue())


def finding_lines(text: str) -> list[str]:
    """The finding lines of the (unwrapped) text: each from its ``[level]`` to the next one or the blank line."""
    body = text.split(" Findings: ", 1)[1].split(" Not judged: ")[0].split(" Notes: ")[0]
    return ["[" + part for part in re.split(r"(?:^| )\[(?=mandatory\]|advisory\]|info\])", body) if part]


def assert_references_are_printed(text: str, report: dict) -> list[str]:
    """Each ``see the finding on <subject> about <what>`` of the text names a finding line the text prints (its
    subject, and ``what`` in its message), and no finding code of the report is in the text."""
    lines = finding_lines(text)
    refs = SEE.findall(text)
    for subject, about in refs:
        kind, names = subject.split(" ", 1)
        for name in names.split(", "):
            assert any(line.split("] ", 1)[1].startswith(f"{kind.rstrip('s')} {name}: ") and about in line
                       for line in lines), (subject, about)
    for code in {f["code"] for f in report["findings"]}:
        assert code not in text, code
    return [about for _, about in refs]


def one(report: dict, code: str) -> dict:
    [found] = [f for f in report["findings"] if f["code"] == code]
    return found


def test_a_declared_taint_the_node_carries_misspelt_points_to_the_malformed_taint_not_to_pulumi_up(tmp_path):
    code, text, report = audit(tmp_path, [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}])
    malformed, missing = one(report, "malformed-taint"), one(report, "declared-taint-missing")
    assert malformed["fix"].startswith("an API server serves no Node with this effect, so a dump that shows one was "
                                       "edited or written by a tool: take it again")
    assert missing["message"] == (
        "declared taint nvidia.com/gpu=present:NoSchedule of pools[0] 'inference' is not on the node as read: the node "
        "carries nvidia.com/gpu=present with effect 'NO_SCHEDULE' instead (spec.taints[0]), an effect Kubernetes does "
        "not have (see the finding on Node gpu-1 about spec.taints[0])")
    assert missing["fix"] == ("fix spec.taints[0] as that finding says; if the node then still lacks "
                              "nvidia.com/gpu=present:NoSchedule, pulumi up the stack")
    assert f"[mandatory] Node gpu-1: {missing['message']} -> {missing['fix']}" in text
    assert assert_references_are_printed(text, report) == ["spec.taints[0]", "spec.taints[0]"]  # the pool's, the drift's
    assert code == 1


def test_the_pool_line_names_a_malformed_taint_and_its_finding_without_its_paragraph(tmp_path):
    _, text, report = audit(tmp_path, [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}],
                            stack=False)
    pool_line = text.split(" GPU pools: ", 1)[1].split(" DaemonSet x GPU pool:")[0]
    assert pool_line == (
        "GpuNodePool inference: 1 node(s), all alike: taints [] allocatable nvidia.com/gpu=1 malformed taints "
        '[spec.taints[0] {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}] (see the finding on '
        "Node gpu-1 about spec.taints[0])")
    assert one(report, "malformed-taint")["message"] in text  # said once, in its finding
    assert assert_references_are_printed(text, report) == ["spec.taints[0]"]
    assert text.count("validateNodeTaints") == 1


def test_a_declared_taint_simply_missing_keeps_the_pulumi_up_fix(tmp_path):
    _, _, report = audit(tmp_path, [])
    missing = one(report, "declared-taint-missing")
    assert missing["message"].endswith("is not on the node (the pool was changed after the node joined, or the change "
                                       "is not applied yet)")
    assert missing["fix"].startswith("pulumi up the stack")


def test_a_daemonset_fix_names_the_drift_finding_as_the_text_prints_it_not_its_code(tmp_path):
    maintenance = {"key": "maintenance", "value": "true", "effect": "NoSchedule"}
    drifted = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
    _, text, report = audit(tmp_path, [drifted, maintenance])
    fixes = " ".join(f["fix"] for f in report["findings"] if f["code"] == "daemonset-does-not-run")
    assert "see the finding on Node gpu-1 about maintenance=true:NoSchedule" in fixes
    assert "see the finding on Node gpu-1 about nvidia.com/gpu=true:NoSchedule" in fixes
    assert sorted(assert_references_are_printed(text, report)) == ["maintenance=true:NoSchedule",
                                                                   "nvidia.com/gpu=true:NoSchedule"]


def test_a_fix_pointing_to_the_drift_findings_of_two_nodes_names_both_as_their_lines_start():
    maintenance = {"key": "maintenance", "value": "true", "effect": "NoSchedule"}
    snapshot = Snapshot("dump")
    for name in ("gpu-1", "gpu-2"):
        snapshot.add("Node", eks_node(name, pool="inference", nodegroup="inference", instance="g6.xlarge", gpus=1,
                                      taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
                                              maintenance]))
    snapshot.add("DaemonSet", LOGS)
    declared = Declared("dev", [DeclaredPool(0, "inference", "eks-managed",
                                             [Taint.parse("nvidia.com/gpu=present:NoSchedule")], {})], [])
    report = run_audit(snapshot, declared=declared)
    text = " ".join(report.to_text().split())
    assert "see the findings on Nodes gpu-1, gpu-2 about maintenance=true:NoSchedule" in text
    assert assert_references_are_printed(text, report.to_json()) == ["maintenance=true:NoSchedule"]


def test_a_dump_without_pods_is_partial_with_its_own_partial_line(tmp_path):
    code, text, report = audit(tmp_path, [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
                               stack=False, objects=())
    [pending] = [n for n in report["notJudged"] if n["subject"] == "pending pods"]
    assert pending["reason"] == ("the dump holds no pods: pending pods are not judged (add `kubectl get pods -A -o json` "
                                 "to the dump)")
    assert f"pending pods: {pending['reason']}" in text
    assert "PARTIAL: GET /api/v1/pods: the dump holds no Pods: pending pods, " in text and report["partial"] is True
    assert [line for line in report["listsNotRead"] if line.startswith("GET /api/v1/pods: the dump holds no Pods")]


def test_a_refused_pods_list_is_partial_and_the_not_judged_line_points_to_its_printed_partial_line():
    snapshot = Snapshot("API https://127.0.0.1 (context fake, read-only)", live=True)
    snapshot.add("Node", eks_node("gpu-1", pool="inference", nodegroup="inference", instance="g6.xlarge", gpus=1))
    snapshot.read.update({"DaemonSet", "Event"})
    refused = ("GET /api/v1/pods: 403 Forbidden (list pods in all namespaces); grant it with the ClusterRole of "
               "gpupool audit --print-rbac")
    snapshot.forbidden.append(refused)
    report = run_audit(snapshot)
    text = " ".join(report.to_text().split())
    [pending] = [n for n in report.not_judged if n.subject == "pending pods"]
    assert pending.reason == ("no pods were read (GET /api/v1/pods was not read: its PARTIAL line says why); pending "
                              "pods are not judged")
    assert f"PARTIAL: {refused}" in text and report.partial
