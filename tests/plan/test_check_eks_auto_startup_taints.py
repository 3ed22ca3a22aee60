"""``gpupool check`` on a hand-written EKS Auto Mode NodePool (``karpenter.sh/v1``, ``nodeClassRef`` group
``eks.amazonaws.com``): its ``startupTaints`` are read as a Karpenter NodePool's are. A key and effect its
``taints`` and ``startupTaints`` repeat is refused with Karpenter's rule and source, as for a karpenter NodePool;
the pool summary lists its startup taints; and policy ``karpenter-startup-taints``, which the registry applies to
Auto Mode pools, takes a boot taint declared there (Cilium's) and reports one that is missing."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from gpu_node_pool.cli import commands as cli
from gpu_node_pool.cli.contract import report_schema
from gpu_node_pool.registry import get

VALIDATOR = jsonschema.Draft202012Validator(report_schema())
GPU = {"key": "nvidia.com/gpu", "effect": "NoSchedule"}
CILIUM = {"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"}
PROGRAM = """import pulumi_kubernetes as k8s

k8s.apiextensions.CustomResource(
    "gpu", api_version="karpenter.sh/v1", kind="NodePool", metadata={{"name": "gpu"}},
    spec={{"limits": {{"nvidia.com/gpu": 8}}, "template": {{"spec": {{
        "nodeClassRef": {{"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"}},
        "requirements": [{{"key": "eks.amazonaws.com/instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]}}],
        "taints": {taints!r},
        "startupTaints": {startup!r},
    }}}}}})
"""
CILIUM_CHART = 'k8s.helm.v4.Chart("cilium", chart="cilium", namespace="kube-system")\n'
SOURCE = "kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim_validation.go@v1.14.1 validateTaints"


def check(capsys, tmp_path: Path, taints: list, startup: list, *, cilium: bool = False,
          json_out: bool = True) -> tuple[int, dict | str]:
    (tmp_path / "Pulumi.yaml").write_text("name: auto\nruntime: python\n")
    (tmp_path / "Pulumi.ci.yaml").write_text("config: {}\n")
    program = PROGRAM.format(taints=taints, startup=startup) + (CILIUM_CHART if cilium else "")
    (tmp_path / "__main__.py").write_text(program)
    code = cli.main(["check", "--project-dir", str(tmp_path), "--stack", "ci", *(["--json"] if json_out else [])])
    out = capsys.readouterr().out
    if not json_out:
        return code, out
    doc = json.loads(out)
    assert not [e.message for e in VALIDATOR.iter_errors(doc)]
    return code, doc


def _messages(doc: dict, policy: str) -> list[str]:
    return [v["message"] for v in doc["violations"] if v["policy"] == policy]


def test_a_key_and_effect_in_taints_and_startup_taints_is_refused_with_karpenter_s_rule(capsys, tmp_path):
    code, doc = check(capsys, tmp_path, [GPU], [{**GPU, "value": "x"}])
    assert code == 1
    [message] = [v["message"] for v in doc["violations"]
                 if v["policy"] == "gpu-pool-declares-taint" and v["enforcement"] == "mandatory"]
    expected = ("spec.template.spec.startupTaints[0] (nvidia.com/gpu=x:NoSchedule) has the same key and effect as "
                "spec.template.spec.taints[0]; Karpenter rejects a key+effect in both lists")
    assert expected in message and SOURCE in message
    [pool] = doc["pools"]
    assert pool["backend"] == "eks-auto" and expected in pool["problem"]


def test_a_malformed_startup_taint_is_refused_not_skipped(capsys, tmp_path):
    code, doc = check(capsys, tmp_path, [GPU], [{"key": "node.cilium.io/agent-not-ready", "effect": "Sometimes"}])
    assert code == 1
    [pool] = doc["pools"]
    assert "spec.template.spec.startupTaints[0].effect 'Sometimes' is not a taint effect" in pool["problem"]
    assert "karpenter.sh_nodepools.yaml@v1.14.1" in pool["problem"] and pool["startupTaints"] is None


def test_the_pool_summary_lists_the_startup_taints(capsys, tmp_path):
    code, text = check(capsys, tmp_path, [GPU], [CILIUM], json_out=False)
    assert "pool gpu (eks-auto: " in text
    assert "  startup taints  node.cilium.io/agent-not-ready=true:NoExecute  (removed by an agent at boot" in text
    _, doc = check(capsys, tmp_path, [GPU], [CILIUM])
    [pool] = doc["pools"]
    assert pool["startupTaints"] == ["node.cilium.io/agent-not-ready=true:NoExecute"] and "problem" not in pool


def test_karpenter_startup_taints_applies_to_auto_mode_and_takes_a_declared_boot_taint(capsys, tmp_path):
    assert get("eks-auto").startup_taints  # the registry applies the rule to Auto Mode pools
    _, missing = check(capsys, tmp_path, [GPU], [], cilium=True)
    [message] = _messages(missing, "karpenter-startup-taints")
    assert "node.cilium.io/agent-not-ready" in message and "the NodePool's startupTaints do not declare it" in message
    _, declared = check(capsys, tmp_path, [GPU], [CILIUM], cilium=True)
    assert _messages(declared, "karpenter-startup-taints") == []
