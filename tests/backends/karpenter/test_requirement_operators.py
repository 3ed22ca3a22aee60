"""Karpenter before v1.9.0 refuses NodePool requirements with Gte/Lte (the CRD's operator enum,
kubernetes-sigs/karpenter pkg/apis/crds/karpenter.sh_nodepools.yaml@v1.8.3); v1.9.0 and later take them."""

from __future__ import annotations

from typing import Any

import pytest
from builders import config_issues

from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.config.warnings import stack_warnings

EKS = {"name": "ml", "nodeRoleArn": "arn:aws:iam::123456789012:role/n"}
CPU = "karpenter.k8s.aws/instance-cpu"


def raw(operator: str, value: str, version: str | None = None) -> dict[str, Any]:
    pool = {"name": "burst", "backend": "karpenter", "instanceFamilies": ["g6e"], "nodeClass": {},
            "limits": {"nvidia.com/gpu": 8},
            "requirements": [{"key": CPU, "operator": "In", "values": ["8", "16"]},
                             {"key": CPU, "operator": operator, "values": [value]}]}
    return {"cluster": EKS | ({"karpenterVersion": version} if version else {}), "pools": [pool]}


def warnings_of(cfg: dict[str, Any]) -> dict[str, str]:
    return {w.path: w.message for w in stack_warnings(validate_stack_config(cfg))}


@pytest.mark.parametrize(("operator", "value", "fix"), [
    ("Gte", "8", '{operator: Gt, values: ["7"]}'),
    ("Gte", "0", "{operator: Exists}"),
    ("Lte", "16", '{operator: Lt, values: ["17"]}'),
])
def test_an_older_release_refuses_the_requirement_naming_the_rule_and_both_fixes(operator, value, fix):
    ((path, message),) = config_issues(raw(operator, value, "1.8"))
    assert path == "pools[0].requirements[1].operator"
    assert message.startswith(f"{CPU} {operator} '{value}': cluster.karpenterVersion '1.8' has no operator {operator}")
    assert "karpenter.sh_nodepools.yaml@v1.8.3" in message and "kubernetes-sigs/karpenter#2674" in message
    assert f"write it as {fix}" in message and "raise cluster.karpenterVersion" in message


def test_a_release_since_1_9_takes_them_and_an_unstated_one_warns():
    validate_stack_config(raw("Gte", "8", "v1.9.0"))  # raises nothing
    assert "pools[0].requirements[1].operator" not in warnings_of(raw("Lte", "8", "1.14"))
    message = warnings_of(raw("Gte", "8"))["pools[0].requirements[1].operator"]
    assert "refused by Karpenter before v1.9.0" in message and "gpu-node-pools:cluster.karpenterVersion" in message
    assert 'write it as {operator: Gt, values: ["7"]}' in message


def test_gt_and_lt_say_nothing_at_any_version():
    validate_stack_config(raw("Gt", "7", "1.2"))  # raises nothing
    assert not [p for p in warnings_of(raw("Lt", "17")) if p.startswith("pools[0].requirements")]


def test_lte_of_the_largest_int64_is_not_rewritten_past_int64():
    # Lt 9223372036854775808 would be refused by the CRD's CEL int(x.values[0]) (int64)
    ((_, message),) = config_issues(raw("Lte", "9223372036854775807", "1.8"))
    assert "9223372036854775808" not in message.replace("Lt 9223372036854775808 is past int64", "")
    assert "write it as {operator: Exists} (Lt 9223372036854775808 is past int64" in message
    assert "Exists also takes a value that is not an integer" in message


def test_the_largest_int64_minus_one_still_gets_its_lt_spelling():
    ((_, message),) = config_issues(raw("Lte", "9223372036854775806", "1.8"))
    assert 'write it as {operator: Lt, values: ["9223372036854775807"]}' in message


def test_a_value_past_int64_gets_no_rewrite():
    from gpu_node_pool.backends.karpenter.requirement_operators import equivalent, rewrite

    assert equivalent("Lte", ["9223372036854775808"]) is None
    assert equivalent("Gte", ["99999999999999999999"]) is None
    assert rewrite("Lte", ["9223372036854775808"]).startswith("give a value of at most 9223372036854775807")


def test_one_run_reports_a_missing_limits_a_gpu_count_requirement_and_its_operator_each_at_its_place():
    pool = {"name": "burst", "backend": "karpenter", "instanceFamilies": ["g6e"], "nodeClass": {},
            "requirements": [{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gte", "values": ["2"]}]}
    issues = dict(config_issues({"cluster": EKS | {"karpenterVersion": "1.8"}, "pools": [pool]}))
    assert set(issues) == {"pools[0].limits", "pools[0].requirements[0].key", "pools[0].requirements[0].operator"}
    assert issues["pools[0].limits"] == "required key is missing; add it, e.g. limits: {nvidia.com/gpu: \"32\"}"
    assert "'karpenter.k8s.aws/instance-gpu-count' is written by gpuCounts; set it there" in issues[
        "pools[0].requirements[0].key"]
    operator = issues["pools[0].requirements[0].operator"]
    assert "has no operator Gte" in operator and "move it to gpuCounts" in operator
    assert "Gt" not in operator.split("so the API server refuses the NodePool")[1]  # no rewrite of a refused requirement


def test_two_requirements_on_managed_keys_are_both_named():
    pool = {"name": "burst", "backend": "karpenter", "instanceFamilies": ["g6e"], "nodeClass": {},
            "limits": {"nvidia.com/gpu": 8},
            "requirements": [{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "In", "values": ["2"]},
                             {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]}
    ((path, message),) = config_issues({"cluster": EKS, "pools": [pool]})
    assert path == "pools[0].requirements"
    assert "requirements[0].key 'karpenter.k8s.aws/instance-gpu-count' is written by gpuCounts" in message
    assert "requirements[1].key 'kubernetes.io/arch' is written by architecture" in message
