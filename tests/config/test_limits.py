"""Limits checked before the cloud: hard caps are errors with their source, quota-like values
are warnings with an override in ``gpu-node-pools:limits``, and one run reports every mistake."""

from __future__ import annotations

import copy
import datetime

import pytest
from builders import config_errors

from gpu_node_pool.config import stack_warnings, validate_stack_config
from gpu_node_pool.config.warnings import limit_warnings

ROLE = "arn:aws:iam::111122223333:role/n"
SUBNET = "subnet-0a1b2c3d4e5f60718"
EKS = {
    "cluster": {"name": "c1", "nodeRoleArn": ROLE, "subnetIds": [SUBNET], "kubernetesVersion": "1.33"},
    "pools": [{"name": "p", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 4}}],
}
SELF = {
    "name": "batch", "backend": "self-managed", "format": "al2023", "instanceTypes": ["g6e.12xlarge"],
    "scaling": {"minSize": 0, "maxSize": 2}, "securityGroupIds": ["sg-0123456789abcdef0"],
}


def _stack(**changes) -> dict:
    raw = copy.deepcopy(EKS)
    for key, value in changes.items():
        raw[key] = value
    return raw


@pytest.mark.parametrize(
    ("where", "value", "needle"),
    [
        ("cluster.subnetIds", ["10.0.0.0/24"], "'10.0.0.0/24' is not a subnet id"),
        ("pool.subnetIds", ["subnet-xyz", "subnet-0a1b2c3d"], "'subnet-xyz' is not a subnet id"),
        ("self.securityGroupIds", ["sg-default", "sg-1"], "'sg-default', 'sg-1' are not security group ids"),
        ("self.subnetIds", ["subnet-12"], "'subnet-12' is not a subnet id"),
    ],
)
def test_ids_must_look_like_ec2_ids(where: str, value: list[str], needle: str) -> None:
    raw = _stack()
    target, key = where.split(".")
    if target == "cluster":
        raw["cluster"][key] = value
    elif target == "pool":
        raw["pools"][0][key] = value
    else:
        raw["cluster"].update(apiServerEndpoint="https://10.0.0.10", serviceCidr="10.100.0.0/16",
                              certificateAuthority="LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==")
        raw["pools"] = [dict(SELF, **{key: value})]
    errors = config_errors(raw)
    assert any(needle in e and "[" not in e.split(":")[1] and "resource-ids.html" in e for e in errors), errors


def test_id_shape_is_prefix_and_8_or_17_hex_digits() -> None:
    from gpu_node_pool.config.limits import aws_id_problem

    assert aws_id_problem("subnet", ["subnet-0a1b2c3d", SUBNET]) is None
    assert aws_id_problem("sg", ["sg-"]) is not None  # the prefix alone (eks-auto accepted it before)
    assert aws_id_problem("cr", ["cr-0123456789abcdef0"]) is None


def test_eks_managed_scale_from_zero_tags_over_50_is_an_error_with_source() -> None:
    raw = _stack()
    raw["pools"][0]["labels"] = {f"example.com/l{i}": "x" for i in range(45)}
    errors = config_errors(raw)
    assert any("would carry 53 tags" in e and "ec2-auto-scaling-tagging.html" in e for e in errors), errors
    raw["pools"][0]["scaling"]["minSize"] = 1  # no node-template tags without scale from zero
    validate_stack_config(raw)


def test_self_managed_asg_tags_count_user_tags_too() -> None:
    raw = _stack()
    raw["cluster"].update(apiServerEndpoint="https://10.0.0.10", serviceCidr="10.100.0.0/16",
                          certificateAuthority="LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==")
    raw["pools"] = [dict(SELF, tags={f"team{i}": "x" for i in range(45)})]
    errors = config_errors(raw)
    assert any("54 tags (45 from tags" in e and "AWS allows 50 per group" in e for e in errors), errors
    raw["pools"] = [dict(SELF, tags={f"team{i}": "x" for i in range(10)})]
    validate_stack_config(raw)


def test_karpenter_label_cap_names_the_crd() -> None:
    from gpu_node_pool.backends.karpenter.config import KarpenterPool

    with pytest.raises(ValueError, match="maxProperties: 100"):
        KarpenterPool.model_validate({"name": "k", "backend": "karpenter", "limits": {"nvidia.com/gpu": "8"}, "labels": {f"example.com/l{i}": "x" for i in range(99)}})


@pytest.mark.parametrize(
    ("machine", "accelerator", "needle"),
    [
        ("g2-standard-7", {"type": "nvidia-l4", "count": 1}, "does not exist"),
        ("n1-standard-8", {"type": "nvidia-tesla-t4", "count": 3}, "1, 2 or 4 x nvidia-tesla-t4"),
    ],
)
def test_gke_machine_shapes_that_do_not_exist(machine: str, accelerator: dict, needle: str) -> None:
    raw = {"cluster": {"name": "c1", "project": "my-proj-123", "location": "us-central1"},
           "pools": [{"name": "g", "backend": "gke", "machineType": machine, "accelerator": accelerator,
                      "autoscaling": {"minSize": 0, "maxSize": 2}}]}
    errors = config_errors(raw)
    assert any(needle in e and "cloud.google.com/compute/docs/gpus" in e for e in errors), errors
    raw["pools"][0].update(machineType="n1-standard-8", accelerator={"type": "nvidia-tesla-t4", "count": 4})
    validate_stack_config(raw)


TODAY = datetime.date(2026, 12, 1)


@pytest.mark.parametrize(("version", "needle"), [("1.99", "newer than 1.35"), ("1.31", "extended support ended 2026-11-26")])
def test_unsupported_eks_versions_warn_with_source_and_override(version: str, needle: str) -> None:
    stack = validate_stack_config(_stack(cluster=dict(EKS["cluster"], kubernetesVersion=version)))  # never a refusal
    warnings = [str(w) for w in limit_warnings(stack, TODAY)]
    assert any(needle in w and "kubernetes-versions.html" in w and "allowUnsupportedKubernetesVersion" in w
               for w in warnings), warnings
    quiet = validate_stack_config(_stack(cluster=dict(EKS["cluster"], kubernetesVersion=version),
                                         limits={"allowUnsupportedKubernetesVersion": True}))
    assert limit_warnings(quiet, TODAY) == []


@pytest.mark.parametrize("version", ["1.20", "1.27"])
def test_a_version_older_than_the_eks_calendar_is_refused_with_its_source(version: str) -> None:
    # EKS creates no cluster of it and lets no control plane stay on it: no EKS cluster runs it, whatever the override
    for limits in ({}, {"allowUnsupportedKubernetesVersion": True}):
        errors = config_errors(_stack(cluster=dict(EKS["cluster"], kubernetesVersion=version), limits=limits))
        assert len(errors) == 1, errors
        (error,) = errors
        assert error.startswith(f"cluster.kubernetesVersion: '{version}' is older than 1.28") and "no EKS cluster runs" in error
        assert "kubernetes-versions.adoc@01385604" in error and "doesn't allow control planes to stay" in error
        assert "aws eks describe-cluster --name c1 --query cluster.version" in error
        assert "refuses it" not in error


def test_a_version_past_extended_support_says_what_eks_does_not_that_it_refuses() -> None:
    (warning,) = [str(w) for w in limit_warnings(validate_stack_config(
        _stack(cluster=dict(EKS["cluster"], kubernetesVersion="1.31"))), TODAY)]
    assert "creates no new cluster of it and upgrades a control plane still on it" in warning
    assert "refuses" not in warning


def test_supported_version_is_quiet_and_extended_support_counts() -> None:
    stack = validate_stack_config(_stack())
    assert limit_warnings(stack, TODAY) == []  # 1.33: extended support until 2027-07-29
    assert limit_warnings(stack, datetime.date(2027, 7, 30))  # the day after, it warns


def test_eks_quotas_are_warnings_with_their_override() -> None:
    raw = _stack()
    raw["pools"] = [dict(EKS["pools"][0], name=f"p{i}", scaling={"minSize": 0, "maxSize": 500}) for i in range(31)]
    warnings = [str(w) for w in stack_warnings(validate_stack_config(raw))]
    assert any("pools[0].scaling.maxSize: 500 is above the EKS quota 'Nodes per managed node group' (450" in w
               and "service-quotas.html" in w for w in warnings), warnings
    assert any("31 eks-managed pools" in w and "(30;" in w for w in warnings), warnings
    raw["limits"] = {"eksNodesPerNodeGroup": 500, "eksNodeGroupsPerCluster": 40}
    assert [w for w in stack_warnings(validate_stack_config(raw)) if "quota" in str(w)] == []


def test_every_mistake_in_one_run_pool_error_does_not_hide_cluster_keys() -> None:
    """The new-user trial: a self-managed pool missing securityGroupIds hid three missing cluster fields."""
    raw = _stack()
    raw["pools"] = [{k: v for k, v in SELF.items() if k != "securityGroupIds"}]
    errors = config_errors(raw)
    assert any(e.startswith("pools[0]: securityGroupIds: required") for e in errors), errors
    for key in ("apiServerEndpoint", "certificateAuthority", "serviceCidr"):
        assert any(e.startswith(f"cluster.{key}: missing; needed by pools[0]") for e in errors), errors


def test_every_mistake_in_one_run_with_a_bad_cluster_and_duplicate_names() -> None:
    raw = _stack()
    raw["cluster"]["subnetIds"] = ["10.0.0.0/24"]
    raw["pools"] = [dict(EKS["pools"][0], instanceTypes=["m5.large"]), copy.deepcopy(EKS["pools"][0]),
                    {k: v for k, v in SELF.items() if k != "securityGroupIds"} | {"name": "p"}]
    errors = config_errors(raw)
    assert any(e.startswith("cluster.subnetIds:") for e in errors), errors
    assert any(e.startswith("pools[0]") and "m5.large" in e for e in errors), errors
    assert any(e.startswith("pools[2].name: 'p' is already used by pools[0]") for e in errors), errors
    assert any(e.startswith("cluster.apiServerEndpoint: missing") for e in errors), errors
