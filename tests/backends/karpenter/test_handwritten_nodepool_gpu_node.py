"""Hand-written GPU NodePools: one that requires NVIDIA GPUs with a zero ``nvidia.com/gpu`` limit is a GPU pool that
launches no GPU node (``filterByRemainingResources``, kubernetes-sigs/karpenter
``pkg/controllers/provisioning/scheduling/scheduler.go``), and a key is a node label only when its requirements
leave exactly one ``In`` value (``Requirement.Intersection``, ``pkg/scheduling/requirement.go``)."""

from __future__ import annotations

from builders import karpenter_pool, run

from gpu_node_pool.policies import rules as d
from gpu_node_pool.policies.pools import gpu_pool_of
from gpu_node_pool.sdk.policy_props import to_policy_props

NV = {"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]}


def req(key: str, op: str, *values: str) -> dict:
    return {"key": key, "operator": op, **({"values": list(values)} if values else {})}


def _pool(res):
    return gpu_pool_of(res.type, to_policy_props(res.inputs), res.name, res.urn)


def test_a_handwritten_nodepool_requiring_nvidia_with_a_zero_gpu_limit_is_a_gpu_pool_that_launches_no_gpu_node():
    zero = karpenter_pool(requirements=[NV], limits={"nvidia.com/gpu": "0"})
    pool = _pool(zero)
    assert pool is not None
    said = pool.extra["launches_no_gpu_node"]
    assert said.startswith("the NodePool launches no GPU node while limits nvidia.com/gpu is 0")
    assert "filterByRemainingResources" in said and "raise limits nvidia.com/gpu" in said
    assert "use whole-GPU types" not in said  # not the fractional-GPU (g6f) advice
    (found,) = run(d.gpu_pool_declares_taint.POLICY, [zero])  # its taints are judged: it declares none
    assert "declares no taint" in found["message"]


def test_a_zero_gpu_limit_on_requirements_that_leave_no_type_says_both():
    family = [req("karpenter.k8s.aws/instance-family", "In", "g6"), req("karpenter.k8s.aws/instance-family", "NotIn", "g6"), NV]
    said = _pool(karpenter_pool(taints=["nvidia.com/gpu:NoSchedule"], requirements=family,
                                limits={"nvidia.com/gpu": 0})).extra["launches_no_gpu_node"]
    assert said.startswith("launches no GPU node: limits nvidia.com/gpu is 0") and "raise limits nvidia.com/gpu" in said
    assert "Karpenter can launch no instance type for this NodePool" in said
    assert "requirements[1] karpenter.k8s.aws/instance-family NotIn [g6]" in said
    assert "launches_no_gpu_node" not in _pool(karpenter_pool(requirements=[NV], limits={"nvidia.com/gpu": 8})).extra


def test_a_handwritten_nodepool_shows_no_label_for_a_key_left_without_exactly_one_in_value():
    contradict = [req("karpenter.k8s.aws/instance-family", "In", "g6"), req("karpenter.k8s.aws/instance-family", "NotIn", "g6"), NV]
    labels = _pool(karpenter_pool(requirements=contradict)).labels
    assert "karpenter.k8s.aws/instance-family" not in labels and labels["karpenter.k8s.aws/instance-gpu-manufacturer"] == "nvidia"
    narrowed = [req("karpenter.k8s.aws/instance-family", "In", "g6", "g6e"), req("karpenter.k8s.aws/instance-family", "NotIn", "g6e"), NV]
    assert _pool(karpenter_pool(requirements=narrowed)).labels["karpenter.k8s.aws/instance-family"] == "g6"


def test_check_shows_why_a_programs_nodepool_launches_no_gpu_node(capsys, tmp_path):
    import json

    from programs import team_program, team_project

    from gpu_node_pool.cli.commands import main

    program = team_program(
        'k8s.apiextensions.CustomResource("zero-limit", api_version="karpenter.sh/v1", kind="NodePool",\n'
        '    metadata={"name": "zero-limit"}, spec={"limits": {"nvidia.com/gpu": "0"}, "template": {"spec": {\n'
        '        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},\n'
        '        "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],\n'
        f'        "requirements": [{NV!r}]}}}}}})')
    root = team_project(tmp_path / "p", program)
    main(["check", "--stack", "ci", "--project-dir", str(root), "--json"])
    [pool] = [p for p in json.loads(capsys.readouterr().out)["pools"] if p["name"] == "zero-limit"]
    assert pool["launchesNoGpuNode"].startswith("the NodePool launches no GPU node while limits nvidia.com/gpu is 0")
    main(["check", "--stack", "ci", "--project-dir", str(root)])
    assert "  no GPU node     the NodePool launches no GPU node" in capsys.readouterr().out
