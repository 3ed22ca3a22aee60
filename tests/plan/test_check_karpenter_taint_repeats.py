"""``gpupool check`` on a hand-written Karpenter NodePool whose ``taints`` and ``startupTaints`` repeat a key and
effect: Karpenter refuses it (the nodepool.validation controller marks it not Ready), so the pack reports it as a
mandatory violation at the NodePool, as ``gpupool validate`` refuses the same pool in a stack file; the pool
summary lists its startup taints."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from gpu_node_pool.cli import commands as cli
from gpu_node_pool.cli.contract import report_schema

VALIDATOR = jsonschema.Draft202012Validator(report_schema())
NODEPOOL = "kubernetes:karpenter.sh/v1:NodePool"
GPU = {"key": "nvidia.com/gpu", "effect": "NoSchedule"}
PROGRAM = """import pulumi_kubernetes as k8s

k8s.apiextensions.CustomResource(
    "gpu", api_version="karpenter.sh/v1", kind="NodePool", metadata={{"name": "gpu"}},
    spec={{"limits": {{"nvidia.com/gpu": 8}}, "template": {{"spec": {{
        "nodeClassRef": {{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}},
        "requirements": [{{"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]}}],
        "taints": {taints!r},
        "startupTaints": {startup!r},
    }}}}}})
"""
SOURCE = "kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim_validation.go@v1.14.1 validateTaints"


def check(capsys, tmp_path: Path, taints: list, startup: list, *, json_out: bool = True) -> tuple[int, dict | str]:
    (tmp_path / "Pulumi.yaml").write_text("name: u3\nruntime: python\n")
    (tmp_path / "Pulumi.ci.yaml").write_text("config: {}\n")
    (tmp_path / "__main__.py").write_text(PROGRAM.format(taints=taints, startup=startup))
    code = cli.main(["check", "--project-dir", str(tmp_path), "--stack", "ci", *(["--json"] if json_out else [])])
    out = capsys.readouterr().out
    if not json_out:
        return code, out
    doc = json.loads(out)
    assert not [e.message for e in VALIDATOR.iter_errors(doc)]
    return code, doc


def _refusals(doc: dict) -> list[str]:
    return [v["message"] for v in doc["violations"]
            if v["policy"] == "gpu-pool-declares-taint" and v["enforcement"] == "mandatory"]


@pytest.mark.parametrize(("taints", "startup", "expected"), [
    pytest.param([GPU], [{**GPU, "value": "x"}],
                 "spec.template.spec.startupTaints[0] (nvidia.com/gpu=x:NoSchedule) has the same key and effect as "
                 "spec.template.spec.taints[0]; Karpenter rejects a key+effect in both lists (duplicate taint Key/Effect "
                 "pair): keep it in taints if it stays, in startupTaints if an agent removes it at boot",
                 id="one key+effect in taints and startupTaints"),
    pytest.param([GPU, {**GPU, "value": "present"}], [],
                 "spec.template.spec.taints[0] and spec.template.spec.taints[1] both have key 'nvidia.com/gpu' and effect "
                 "NoSchedule; Karpenter rejects a key+effect twice in one list (duplicate taint Key/Effect pair): keep one",
                 id="one key+effect twice in taints"),
    pytest.param([GPU], [{"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"},
                         {"key": "node.cilium.io/agent-not-ready", "effect": "NoExecute"}],
                 "spec.template.spec.startupTaints[0] and spec.template.spec.startupTaints[1] both have key "
                 "'node.cilium.io/agent-not-ready' and effect NoExecute; Karpenter rejects",
                 id="one key+effect twice in startupTaints"),
])
def test_a_nodepool_karpenter_refuses_for_a_repeated_taint_fails_the_check(capsys, tmp_path, taints, startup, expected):
    code, doc = check(capsys, tmp_path, taints, startup)
    assert code == 1
    [message] = _refusals(doc)
    assert expected in message and SOURCE in message and "not Ready" in message
    [pool] = doc["pools"]
    assert expected in pool["problem"]


def test_the_pool_summary_lists_the_startup_taints_of_a_hand_written_nodepool(capsys, tmp_path):
    taints = [GPU, {"key": "example.com/boot", "effect": "NoSchedule"}]
    startup = [{"key": "example.com/boot", "value": "x", "effect": "NoExecute"}]  # same key, another effect: taken
    code, text = check(capsys, tmp_path, taints, startup, json_out=False)
    assert "  startup taints  example.com/boot=x:NoExecute  (removed by an agent at boot" in text
    assert "problem" not in text and "gpu-pool-declares-taint" not in text
    code, doc = check(capsys, tmp_path, taints, startup)
    [pool] = doc["pools"]
    assert pool["startupTaints"] == ["example.com/boot=x:NoExecute"] and "problem" not in pool
    assert _refusals(doc) == []


def test_a_malformed_startup_taint_is_refused_not_skipped(capsys, tmp_path):
    code, doc = check(capsys, tmp_path, [GPU], [{"key": "node.cilium.io/agent-not-ready", "effect": "Sometimes"}])
    assert code == 1
    [message] = _refusals(doc)
    assert "spec.template.spec.startupTaints[0].effect 'Sometimes' is not a taint effect" in message


def test_the_stack_file_and_the_policy_give_karpenter_s_rule_in_the_same_words(capsys, tmp_path):
    """A karpenter pool in a stack config with the same repeat is refused (a config error: exit 2) with the rule
    sentence the policy reports on a hand-written NodePool."""
    from conftest import base

    from gpu_node_pool.config import ConfigError, validate_stack_config

    rule = ("has the same key and effect as {}taints[0]; Karpenter rejects a key+effect in both lists (duplicate taint "
            "Key/Effect pair): keep it in taints if it stays, in startupTaints if an agent removes it at boot")
    cfg = base()
    cfg["pools"] = [{"name": "gpu", "backend": "karpenter", "instanceFamilies": ["g6"], "nodeClass": {},
                     "limits": {"nvidia.com/gpu": 8}, "taints": ["nvidia.com/gpu=present:NoSchedule"],
                     "startupTaints": ["nvidia.com/gpu=x:NoSchedule"]}]
    with pytest.raises(ConfigError) as refused:
        validate_stack_config(cfg)
    [issue] = refused.value.issues
    assert issue.path == "pools[0].startupTaints" and rule.format("") in issue.message
    _, doc = check(capsys, tmp_path, [GPU], [{**GPU, "value": "x"}])
    [message] = _refusals(doc)
    assert rule.format("spec.template.spec.") in message
