"""Gt/Lt tolerations in the stack: refused below Kubernetes 1.35 naming the version, evaluated with
a warning that the alpha gate must be on from 1.35 (KEP-5471, TaintTolerationComparisonOperators)."""

from __future__ import annotations

import copy

import pytest
from builders import config_errors

from gpu_node_pool.config import stack_warnings, validate_stack_config

ROLE = "arn:aws:iam::111122223333:role/n"
STACK = {
    "cluster": {"name": "c1", "nodeRoleArn": ROLE, "subnetIds": ["subnet-0a1b2c3d4e5f60718"], "kubernetesVersion": "1.35"},
    "pools": [{"name": "p", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 4}}],
    "devicePlugin": {"extraTolerations": [{"key": "example.com/sla", "operator": "Gt", "value": "950", "effect": "NoSchedule"}]},
}
PATH = "devicePlugin.extraTolerations[0].operator"


def stack(version: str | None, **toleration) -> dict:
    raw = copy.deepcopy(STACK)
    if version is None:
        del raw["cluster"]["kubernetesVersion"]
    else:
        raw["cluster"]["kubernetesVersion"] = version
    raw["devicePlugin"]["extraTolerations"][0].update(toleration)
    return raw


@pytest.mark.parametrize("version", ["1.33", "1.34"])
def test_below_1_35_the_operator_is_an_error_naming_the_version(version):
    errors = config_errors(stack(version))
    assert any(PATH in e and f"cluster.kubernetesVersion is '{version}'" in e and "needs Kubernetes >= 1.35" in e
               and "TaintTolerationComparisonOperators" in e for e in errors), errors


def test_without_a_version_the_cluster_cannot_be_judged_and_it_is_refused():
    errors = config_errors(stack(None))
    assert any(PATH in e and "not set" in e for e in errors), errors


GKE_CLUSTER = {"name": "c1", "project": "my-proj-123", "location": "us-central1"}
GKE_POOL = {"name": "g", "backend": "gke", "machineType": "g2-standard-8", "accelerator": {"type": "nvidia-l4", "count": 1},
            "autoscaling": {"minSize": 0, "maxSize": 2}}


def test_on_gke_from_1_35_it_is_valid_with_a_warning_that_the_gate_must_be_on():
    raw = stack("1.35")
    raw["cluster"] = dict(GKE_CLUSTER, kubernetesVersion="1.35")
    raw["pools"] = [GKE_POOL]
    config = validate_stack_config(raw)
    (warning,) = [str(w) for w in stack_warnings(config) if PATH in str(w)]
    assert "feature gate TaintTolerationComparisonOperators is on" in warning and "alpha clusters" in warning
    assert config.device_plugin.extra_tolerations[0].to_toleration().to_k8s() == {
        "key": "example.com/sla", "operator": "Gt", "value": "950", "effect": "NoSchedule"}


def test_on_eks_it_is_refused_at_any_version_because_eks_supports_no_alpha_feature():
    errors = config_errors(stack("1.35"))
    assert any(PATH in e and "EKS does not support alpha features" in e and "kubernetes-versions.html" in e
               for e in errors), errors


@pytest.mark.parametrize("value", ["high", "0950", "+950", "9.5"])
def test_a_value_that_is_no_integer_is_refused_at_its_path(value):
    errors = config_errors(stack("1.35", value=value))
    assert any("devicePlugin.extraTolerations[0]" in e and "decimal integer" in e for e in errors), errors
