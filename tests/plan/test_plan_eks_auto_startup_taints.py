"""``gpupool plan`` of an eks-auto pool with ``startupTaints``/``startupTaintsFor``, the keys policy
karpenter-startup-taints tells a NodePool pool to add: accepted, written to the Auto Mode NodePool's
``spec.template.spec.startupTaints`` (a ``karpenter.sh/v1`` NodePool, EKS user guide create-node-pool), and judged by
the same rules as the karpenter backend's (backends/_shared/nodepool_startup.py)."""

from __future__ import annotations

import json

from conftest import ROOT, plan_stack_text

AUTO = (ROOT / "stacks" / "Pulumi.auto.yaml").read_text()


def with_startup(extra: str) -> str:
    """The shipped Auto Mode stack with ``extra`` (YAML lines) added to its first pool."""
    return AUTO.replace("      gpuCounts: [1]\n", "      gpuCounts: [1]\n" + extra, 1)


def test_the_advice_followed_is_accepted_and_rendered_on_the_nodepool(capsys, temp_project):
    text = with_startup("      startupTaintsFor: [cilium]\n"
                        "      startupTaints:\n        - example.com/agent-not-ready=true:NoExecute\n")
    code, out = plan_stack_text(capsys, temp_project, text)
    assert code == 0, out
    from gpu_node_pool.cli.commands import main

    main(["plan", "--stack", "mine", "--project-dir", str(temp_project("mine", text)), "--json"])
    doc = json.loads(capsys.readouterr().out)
    (nodepool,) = [r for r in doc["resources"] if r["name"] == "inference-nodepool"]
    assert nodepool["inputs"]["spec"]["template"]["spec"]["startupTaints"] == [
        {"key": "example.com/agent-not-ready", "value": "true", "effect": "NoExecute"},
        {"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"},
    ]


def test_the_gpu_taint_as_a_startup_taint_is_refused_as_for_karpenter(capsys, temp_project):
    code, out = plan_stack_text(capsys, temp_project, with_startup(
        "      startupTaints:\n        - nvidia.com/gpu=present:NoExecute\n"))
    assert code != 0
    assert "startupTaints" in out and "is the GPU taint, which is permanent" in out and "put it in taints" in out


def test_an_unknown_agent_is_refused_with_the_table(capsys, temp_project):
    code, out = plan_stack_text(capsys, temp_project, with_startup("      startupTaintsFor: [calico]\n"))
    assert code != 0 and "'calico' are not agents of the boot-taint table" in out and "cilium" in out
