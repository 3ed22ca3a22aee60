"""``gpupool check`` on hand-written ``karpenter.sh/v1`` NodePools (Karpenter's and EKS Auto Mode's) whose taint
lists the API server or Karpenter refuses: the GPU taint in ``startupTaints`` is refused with the words the stack
file's karpenter pool is refused with; every item the NodePool CRD refuses is named with its index, the CRD as the
source and the list to fix; the pool summary says a refused list could not be read instead of listing none."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from gpu_node_pool.cli import commands as cli
from gpu_node_pool.cli.contract import report_schema

VALIDATOR = jsonschema.Draft202012Validator(report_schema())
GPU = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
GROUPS = {
    "karpenter": ("karpenter.k8s.aws", "EC2NodeClass", "karpenter.k8s.aws/", "the Karpenter NodePool"),
    "eks-auto": ("eks.amazonaws.com", "NodeClass", "eks.amazonaws.com/", "the EKS Auto Mode NodePool"),
}
PROGRAM = """import pulumi_kubernetes as k8s

k8s.apiextensions.CustomResource(
    "gpu", api_version="karpenter.sh/v1", kind="NodePool", metadata={{"name": "gpu"}},
    spec={{"limits": {{"nvidia.com/gpu": 8}}, "template": {{"spec": {{
        "nodeClassRef": {{"group": {group!r}, "kind": {kind!r}, "name": "default"}},
        "requirements": [{{"key": {prefix!r} + "instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]}}],
        "taints": {taints!r},
        "startupTaints": {startup!r},
    }}}}}})
"""
CRD = "aws/karpenter-provider-aws pkg/apis/crds/karpenter.sh_nodepools.yaml@v1.14.1"
PERMANENT = ("is the GPU taint, which is permanent: an agent never removes it, so Karpenter would wait for its removal "
             "forever (a node is initialized only once its startupTaints are gone: kubernetes-sigs/karpenter "
             "pkg/controllers/nodeclaim/lifecycle/initialization.go@v1.14.1; no NVIDIA agent removes nvidia.com/gpu, "
             "and https://karpenter.sh/docs/concepts/nodepools/ puts it in taints); put it in ")


def check(capsys, tmp_path: Path, taints: object, startup: object, *, backend: str = "karpenter",
          json_out: bool = True) -> tuple[int, dict | str]:
    group, kind, prefix, _ = GROUPS[backend]
    (tmp_path / "Pulumi.yaml").write_text("name: np\nruntime: python\n")
    (tmp_path / "Pulumi.ci.yaml").write_text("config: {}\n")
    (tmp_path / "__main__.py").write_text(PROGRAM.format(group=group, kind=kind, prefix=prefix, taints=taints,
                                                         startup=startup))
    code = cli.main(["check", "--project-dir", str(tmp_path), "--stack", "ci", *(["--json"] if json_out else [])])
    out = capsys.readouterr().out
    if not json_out:
        return code, out
    doc = json.loads(out)
    assert not [e.message for e in VALIDATOR.iter_errors(doc)]
    return code, doc


def _refusal(doc: dict) -> str:
    [message] = [v["message"] for v in doc["violations"]
                 if v["policy"] == "gpu-pool-declares-taint" and v["enforcement"] == "mandatory"]
    return message


@pytest.mark.parametrize("backend", ["karpenter", "eks-auto"])
@pytest.mark.parametrize("effect", ["NoExecute", "NoSchedule"])
def test_the_gpu_taint_in_startup_taints_fails_the_check(capsys, tmp_path, backend, effect):
    startup = [{"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"},
               {"key": "nvidia.com/gpu", "value": "present", "effect": effect}]
    taints = [{"key": "example.com/gpu", "effect": "NoSchedule"}]
    code, doc = check(capsys, tmp_path, taints, startup, backend=backend)
    assert code == 1
    message = _refusal(doc)
    expected = f"spec.template.spec.startupTaints[1] (nvidia.com/gpu=present:{effect}) {PERMANENT}spec.template.spec.taints"
    assert expected in message
    assert message.endswith(f"fix them in {GROUPS[backend][3]} spec.template.spec.taints and "
                            "spec.template.spec.startupTaints.")
    [pool] = doc["pools"]
    assert expected in pool["problem"]


def test_the_stack_file_and_the_policy_refuse_the_gpu_startup_taint_in_the_same_words(capsys, tmp_path):
    from conftest import base

    from gpu_node_pool.config import ConfigError, validate_stack_config

    cfg = base()
    cfg["pools"] = [{"name": "gpu", "backend": "karpenter", "instanceFamilies": ["g6"], "nodeClass": {},
                     "limits": {"nvidia.com/gpu": 8}, "taints": ["example.com/gpu=present:NoSchedule"],
                     "startupTaints": ["nvidia.com/gpu=present:NoExecute"]}]
    with pytest.raises(ConfigError) as refused:
        validate_stack_config(cfg)
    [issue] = refused.value.issues
    assert issue.path == "pools[0].startupTaints"
    assert f"startupTaints[0] (nvidia.com/gpu=present:NoExecute) {PERMANENT}taints" in issue.message
    _, doc = check(capsys, tmp_path, [{"key": "example.com/gpu", "value": "present", "effect": "NoSchedule"}],
                   [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoExecute"}])
    assert f"spec.template.spec.startupTaints[0] (nvidia.com/gpu=present:NoExecute) {PERMANENT}" in _refusal(doc)


def test_every_startup_taint_item_the_crd_refuses_is_named_with_its_index(capsys, tmp_path):
    startup = [{"key": "a.io/b", "effect": "NO_SCHEDULE"}, "notadict", {"effect": "NoSchedule"}]
    code, doc = check(capsys, tmp_path, [GPU], startup)
    assert code == 1
    message = _refusal(doc)
    for expected in (
        "spec.template.spec.startupTaints[0].effect 'NO_SCHEDULE' is the EKS/GKE API spelling; a NodePool takes the "
        "Kubernetes spelling: write NoSchedule",
        "spec.template.spec.startupTaints[1] 'notadict' is not an object: write an object {key: nvidia.com/gpu",
        "spec.template.spec.startupTaints[2] has no key, which is required",
        "the API server refuses the NodePool, so pulumi up fails to create or update it", CRD,
    ):
        assert expected in message
    assert "translates it" not in message
    assert message.endswith("fix them in the Karpenter NodePool spec.template.spec.startupTaints.")
    [pool] = doc["pools"]
    assert pool["startupTaints"] is None and pool["taints"] == ["nvidia.com/gpu=present:NoSchedule"]
    assert "taintsUnread" not in pool
    _, text = check(capsys, tmp_path, [GPU], startup, json_out=False)
    assert "  startup taints  could not be read (see problem)\n" in text
    assert "  taints          nvidia.com/gpu=present:NoSchedule\n" in text


def test_a_refused_taints_item_names_taints_and_the_summary_says_it_was_not_read(capsys, tmp_path):
    taints = [GPU, {"key": "example.com/x", "value": "a b", "effect": "Sometimes"}]
    code, doc = check(capsys, tmp_path, taints, [])
    assert code == 1
    message = _refusal(doc)
    assert "spec.template.spec.taints[1].value 'a b' " in message
    assert "spec.template.spec.taints[1].effect 'Sometimes' is not a taint effect" in message and CRD in message
    assert message.endswith("fix them in the Karpenter NodePool spec.template.spec.taints.")
    [pool] = doc["pools"]
    assert pool["taintsUnread"] is True and pool["startupTaints"] == []
    _, text = check(capsys, tmp_path, taints, [], json_out=False)
    assert "  taints          could not be read (see problem)\n" in text
    assert "  startup taints  (none)\n" in text


def test_a_startup_taints_list_that_is_not_an_array_is_refused(capsys, tmp_path):
    code, doc = check(capsys, tmp_path, [GPU], {"key": "a.io/b", "effect": "NoSchedule"})
    assert code == 1
    message = _refusal(doc)
    assert "spec.template.spec.startupTaints {'key': 'a.io/b', 'effect': 'NoSchedule'} is not an array" in message
    assert CRD in message


def test_the_component_s_own_wording_stays_with_the_stack_file():
    """The stack file's effect is translated by the component for EKS and GKE, so its refusal says so; the NodePool's
    refusal above does not."""
    from conftest import base

    from gpu_node_pool.config import ConfigError, validate_stack_config

    cfg = base()
    cfg["pools"] = [{"name": "gpu", "backend": "karpenter", "instanceFamilies": ["g6"], "nodeClass": {},
                     "limits": {"nvidia.com/gpu": 8}, "taints": ["nvidia.com/gpu=present:NoSchedule"],
                     "startupTaints": [{"key": "a.io/b", "effect": "NO_SCHEDULE"}]}]
    with pytest.raises(ConfigError) as refused:
        validate_stack_config(cfg)
    assert any("(the component translates it; Kubernetes core/v1 TaintEffect" in issue.message for issue in refused.value.issues)
