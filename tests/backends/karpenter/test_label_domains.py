"""Karpenter before v1.9.0 refuses NodePool labels in the kubernetes.io and k8s.io domains (the CRD's CEL rules,
kubernetes-sigs/karpenter pkg/apis/crds/karpenter.sh_nodepools.yaml@v1.8.3); v1.9.0 and later take them."""

from __future__ import annotations

from typing import Any

import pytest
from builders import config_issues

from gpu_node_pool.backends.karpenter.label_domains import old_release_label_problem
from gpu_node_pool.config import ConfigIssue, validate_stack_config
from gpu_node_pool.config.locations import locate_issues, stack_file_marks
from gpu_node_pool.config.warnings import stack_warnings

EKS = {"name": "ml", "nodeRoleArn": "arn:aws:iam::123456789012:role/n"}


def raw(labels: dict[str, str], version: str | None = None) -> dict[str, Any]:
    pool = {"name": "burst", "backend": "karpenter", "instanceFamilies": ["g6e"], "nodeClass": {},
            "limits": {"nvidia.com/gpu": 8}, "labels": labels}
    return {"cluster": EKS | ({"karpenterVersion": version} if version else {}), "pools": [pool]}


def warnings_of(cfg: dict[str, Any]) -> dict[str, str]:
    return {w.path: w.message for w in stack_warnings(validate_stack_config(cfg))}


ROLE = {"node-role.kubernetes.io/gpu": "true", "kubernetes.io/role": "gpu"}


def test_an_older_release_refuses_the_pool_naming_the_labels_the_rule_and_the_fix():
    ((path, message),) = config_issues(raw(ROLE, "1.8"))
    assert path == "pools[0].labels"
    assert message.startswith("labels kubernetes.io/role, node-role.kubernetes.io/gpu: cluster.karpenterVersion "
                              "'1.8' refuses them in a NodePool (label domain \"kubernetes.io\" is restricted;")
    assert "karpenter.sh_nodepools.yaml@v1.8.3" in message and "example.com/role=gpu" in message


def test_a_release_since_1_9_takes_them_and_an_unstated_one_warns():
    validate_stack_config(raw(ROLE, "v1.9.0"))  # raises nothing
    assert "pools[0].labels" not in warnings_of(raw(ROLE, "1.14"))
    message = warnings_of(raw(ROLE))["pools[0].labels"]
    assert "Karpenter before v1.9.0 refuses" in message and "gpu-node-pools:cluster.karpenterVersion" in message


def test_labels_of_other_domains_say_nothing_at_any_version():
    labels = {"example.com/team": "ml", "node.kubernetes.io/lifecycle": "spot", "kops.k8s.io/ig": "gpu"}
    validate_stack_config(raw(labels, "1.2"))  # raises nothing
    assert not [p for p in warnings_of(raw(labels)) if p.startswith("pools[0]")]


def test_one_label_is_placed_at_its_key_in_the_stack_file():
    text = (
        "config:\n"
        "  gpu-node-pools:cluster: {name: ml, nodeRoleArn: 'arn:aws:iam::123456789012:role/n', karpenterVersion: '1.8'}\n"
        "  gpu-node-pools:pools:\n"
        "    - name: burst\n"
        "      backend: karpenter\n"
        "      instanceFamilies: [g6e]\n"
        "      nodeClass: {}\n"
        "      limits: {nvidia.com/gpu: 8}\n"
        "      labels:\n"
        "        example.com/team: ml\n"
        "        example.kubernetes.io/tier: gpu\n"
    )
    ((path, _),) = config_issues(raw({"example.com/team": "ml", "example.kubernetes.io/tier": "gpu"}, "1.8"))
    assert path == "pools[0].labels['example.kubernetes.io/tier']"
    (placed,) = locate_issues([ConfigIssue(path, "m")], stack_file_marks(text), "Pulumi.dev.yaml")
    assert (placed.location.line, placed.location.column) == (11, 9)
    # the warning of an unstated version is placed alike
    assert "pools[0].labels['example.kubernetes.io/tier']" in warnings_of(raw({"example.kubernetes.io/tier": "gpu"}))


def test_a_restricted_gpu_label_is_placed_at_gpu_label():
    cfg = raw({"example.com/team": "ml"}, "1.8")
    cfg["pools"][0]["gpuLabel"] = {"key": "example.kubernetes.io/gpu", "value": "true"}
    ((path, message),) = config_issues(cfg)
    assert path == "pools[0].gpuLabel" and "example.kubernetes.io/gpu" in message


@pytest.mark.parametrize(("key", "refused"), [
    ("kubernetes.io/role", True), ("node-role.kubernetes.io/gpu", True), ("k8s.io/x", True), ("foo.k8s.io/x", True),
    ("topology.kubernetes.io/zone", False), ("kubernetes.io/arch", False), ("node.kubernetes.io/x", False),
    ("node-restriction.kubernetes.io/x", False), ("kops.k8s.io/x", False), ("example.com/x", False),
])
def test_the_v1_8_3_cel_rules(key, refused):
    assert (old_release_label_problem(key) is not None) is refused
