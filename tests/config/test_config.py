"""config.py: every mistake is reported with its path, the bad value and the rule, all at once."""

from __future__ import annotations

import copy
import dataclasses

import pytest
from builders import config_errors
from conftest import base  # noqa: E402  (shared with other tests)

from gpu_node_pool.config import ConfigError, ConfigIssue, load_stack_config, validate_stack_config


def pool(**changes) -> dict:
    cfg = base()
    cfg["pools"][0].update(changes)
    return cfg


def test_the_base_config_is_valid_and_gets_the_defaults():
    stack = validate_stack_config(base())
    p = stack.pools[0]
    assert p.ami_type == "AL2023_x86_64_NVIDIA"
    assert [str(t) for t in p.taint_list] == ["nvidia.com/gpu=present:NoSchedule"]
    assert p.node_labels == {
        "example.com/team": "ml",
        "gpu-node-pools/pool": "inference",
        "nvidia.com/gpu.present": "true",
    }


def test_a_pool_without_taints_gets_the_default_gpu_taint():
    cfg = base()
    del cfg["pools"][0]["taints"]
    assert [str(t) for t in validate_stack_config(cfg).pools[0].taint_list] == ["nvidia.com/gpu=present:NoSchedule"]


def test_object_form_taints_are_accepted():
    cfg = pool(taints=[{"key": "dedicated", "value": "gpu", "effect": "NoExecute"}])
    assert [str(t) for t in validate_stack_config(cfg).pools[0].taint_list] == ["dedicated=gpu:NoExecute"]


MISTAKES = [
    # (description, config, expected path, fragment of the rule)
    ("EKS effect spelling", pool(taints=["nvidia.com/gpu=present:NO_SCHEDULE"]),
     "pools[0].taints[0].effect", "'NO_SCHEDULE' is the EKS/GKE API spelling; write NoSchedule (the component translates it; Kubernetes core/v1 TaintEffect, validateTaintEffect"),
    ("EKS spelling in object form", pool(taints=[{"key": "k", "value": "v", "effect": "NO_EXECUTE"}]),
     "pools[0].taints[0].effect", "write NoExecute"),
    ("taint key with two slashes", pool(taints=["a/b/c=v:NoSchedule"]),
     "pools[0].taints[0].key", "at most one '/'"),
    ("taint without effect", pool(taints=["nvidia.com/gpu=present"]),
     "pools[0].taints[0]", "has no effect"),
    ("taint value too long", pool(taints=["k=" + "x" * 64 + ":NoSchedule"]),
     "pools[0].taints[0].value", "at most 63"),
    ("label in kubernetes.io", pool(labels={"node-role.kubernetes.io/gpu": "true"}),
     "pools[0].labels['node-role.kubernetes.io/gpu']", "kubernetes.io domain"),
    ("label in eks.amazonaws.com", pool(labels={"eks.amazonaws.com/nodegroup": "x"}),
     "pools[0].labels['eks.amazonaws.com/nodegroup']", "eks.amazonaws.com domain"),
    ("empty label value on EKS", pool(labels={"example.com/gpu": ""}),
     "pools[0].labels['example.com/gpu']", "empty value; EKS node group labels need a value"),
    ("51 taints", pool(taints=[f"k{i}=v:NoSchedule" for i in range(51)]),
     "pools[0].taints", "51 taints; an EKS managed node group takes at most 50"),
    ("min above max", pool(scaling={"minSize": 3, "maxSize": 2}),
     "pools[0].scaling", "minSize 3 is above maxSize 2"),
    ("negative min", pool(scaling={"minSize": -1, "maxSize": 2}),
     "pools[0].scaling.minSize", "must be at least 0"),
    ("duplicate key+effect", pool(taints=["nvidia.com/gpu=present:NoSchedule", "nvidia.com/gpu=true:NoSchedule"]),
     "pools[0].taints", "both have key 'nvidia.com/gpu' and effect NoSchedule"),
    ("unknown key with a suggestion", pool(scaling={"minsize": 0, "maxSize": 2}),
     "pools[0].scaling.minsize", "did you mean 'minSize'?"),
    ("unknown backend", pool(backend="eks"),
     "pools[0].backend", "'eks' is not a backend"),
    ("non-GPU AMI", pool(amiType="AL2023_x86_64_STANDARD"),
     "pools[0].amiType", "is not an EKS NVIDIA AMI type"),
    ("retired AL2 GPU AMI", pool(amiType="AL2_x86_64_GPU"),
     "pools[0].amiType", "EKS stopped publishing AL2 AMIs"),
    ("non-GPU instance type", pool(instanceTypes=["m5.large"]),
     "pools[0].instanceTypes[0]", "'m5.large' is not an NVIDIA GPU instance type"),
    ("AMD GPU instance type", pool(instanceTypes=["g4ad.xlarge"]),
     "pools[0].instanceTypes[0]", "AMD Radeon Pro GPUs, not NVIDIA"),
    ("ARM instance with x86 AMI", pool(instanceTypes=["g5g.xlarge"]),
     "pools[0]", "are arm64 but amiType AL2023_x86_64_NVIDIA is x86_64"),
    ("label value as YAML boolean", pool(labels={"example.com/gpu": True}),
     "pools[0].labels['example.com/gpu']", "quote it in YAML"),
    ("bad capacity type", pool(capacityType="spot"),
     "pools[0].capacityType", "'spot'"),
    ("bad pool name", pool(name="GPU_Pool"),
     "pools[0].name", "must be a lower-case DNS label"),
    ("missing instance types", pool(instanceTypes=None),
     "pools[0].instanceTypes", "null: must be a list, e.g. [g6.xlarge]"),
    ("several effects on one key at min 0", pool(taints=["k=v:NoSchedule", "k=v:NoExecute"]),
     "pools[0]", "Cluster Autoscaler node-template taint tag holds one value:Effect per key"),
]


@pytest.mark.parametrize("desc, cfg, path, fragment", MISTAKES, ids=[m[0] for m in MISTAKES])
def test_each_mistake_names_its_path_and_rule(desc, cfg, path, fragment):
    lines = config_errors(cfg)
    assert any(line.startswith(f"{path}: ") and fragment in line for line in lines), lines


def test_there_are_at_least_fifteen_distinct_mistakes():
    assert len({m[0] for m in MISTAKES}) >= 15


def test_all_mistakes_are_reported_together_one_line_each():
    cfg = pool(
        taints=["nvidia.com/gpu=present:NO_SCHEDULE", "a/b/c=v:NoSchedule"],
        labels={"node-role.kubernetes.io/gpu": "true"},
        scaling={"minSize": 5, "maxSize": 2},
    )
    lines = config_errors(cfg)
    assert len(lines) == 4, lines
    assert sorted(line.split(": ")[0] for line in lines) == [
        "pools[0].labels['node-role.kubernetes.io/gpu']",
        "pools[0].scaling",
        "pools[0].taints[0].effect",
        "pools[0].taints[1].key",
    ]


def test_the_error_message_has_a_header_and_one_line_per_mistake():
    with pytest.raises(ConfigError) as exc:
        validate_stack_config(pool(scaling={"minSize": 3, "maxSize": 2}))
    text = str(exc.value)
    assert text.splitlines()[0] == "1 error in the stack config; no resource was registered:"
    assert text.splitlines()[1] == "  pools[0].scaling: minSize 3 is above maxSize 2; raise maxSize or lower minSize"


def test_a_config_issue_is_a_value_that_cannot_be_changed():
    with pytest.raises(ConfigError) as exc:
        validate_stack_config(pool(scaling={"minSize": 3, "maxSize": 2}))
    (issue,) = exc.value.issues
    same = ConfigIssue("pools[0].scaling", "minSize 3 is above maxSize 2; raise maxSize or lower minSize")
    assert issue == same and hash(issue) == hash(same) and len({issue, same}) == 1
    assert issue != ConfigIssue("pools[1].scaling", same.message)
    assert repr(issue) == f"ConfigIssue(path='pools[0].scaling', message={same.message!r})"
    assert str(ConfigIssue("", "the config must be a mapping")) == "the config must be a mapping"
    with pytest.raises(dataclasses.FrozenInstanceError):
        issue.path = "pools[1].scaling"  # type: ignore[misc]


def test_missing_role_and_subnets_point_at_the_pool_and_the_cluster_default():
    cfg = base()
    del cfg["cluster"]["nodeRoleArn"]
    del cfg["cluster"]["subnetIds"]
    assert config_errors(cfg) == [
        "pools[0].nodeRoleArn: missing; set it here or in cluster.nodeRoleArn",
        "pools[0].subnetIds: missing; set it here or in cluster.subnetIds",
    ]


def test_duplicate_pool_names_are_refused():
    cfg = base()
    cfg["pools"].append(copy.deepcopy(cfg["pools"][0]))
    assert "pools[1].name: 'inference' is already used by pools[0]; names must be unique" in config_errors(cfg)


def test_unknown_project_config_keys_and_missing_keys_are_reported():
    with pytest.raises(ConfigError) as exc:
        load_stack_config({"gpu-node-pools:pool": "[]", "aws:region": "us-west-2"})
    lines = [str(i) for i in exc.value.issues]
    assert "gpu-node-pools:pool: unknown config key; did you mean gpu-node-pools:pools?" in lines
    assert "gpu-node-pools:cluster: required key is missing from the stack config" in lines
    assert "gpu-node-pools:pools: required key is missing from the stack config" in lines


def test_device_plugin_refuses_the_default_namespace():
    cfg = base()
    cfg["devicePlugin"] = {"namespace": "default"}
    assert any(e.startswith("devicePlugin.namespace: 'default'") for e in config_errors(cfg))


def test_device_plugin_extra_toleration_is_validated():
    cfg = base()
    cfg["devicePlugin"] = {"extraTolerations": [{"key": "k", "operator": "Exists", "value": "v"}]}
    assert any("must be empty when operator is Exists" in e for e in config_errors(cfg))


def _runtime(cfg: dict, region: str) -> dict:
    import json

    return {"aws:region": region, **{f"gpu-node-pools:{k}": json.dumps(v) for k, v in cfg.items()}}


@pytest.mark.parametrize("region", ["us-west2", "US-WEST-2", "uswest", "us-west-2a", " us-west-2"])
def test_an_aws_region_of_no_regions_form_is_refused_with_examples(region):
    with pytest.raises(ConfigError) as exc:
        load_stack_config(_runtime(base(), region))
    (issue,) = [i for i in exc.value.issues if i.path == "aws:region"]
    assert issue.message.startswith(f"{region!r} is no AWS Region code") and "us-west-2" in issue.message
    assert "aws-regions.html" in issue.message


@pytest.mark.parametrize("region", ["us-west-2", "ap-southeast-1", "us-gov-west-1", "cn-north-1", "eusc-de-east-1"])
def test_aws_region_codes_of_every_partition_are_taken(region):
    load_stack_config(_runtime(base(), region))  # raises nothing


def test_errors_are_listed_in_the_order_of_the_file():
    from gpu_node_pool.config.errors import Location

    issues = [ConfigIssue("pools[0].scaling.minSize", "missing", Location("stacks/Pulumi.dev.yaml", 18, 7)),
              ConfigIssue("x", "no place"),
              ConfigIssue("pools[0].minSize", "unknown key", Location("stacks/Pulumi.dev.yaml", 17, 7))]
    assert ConfigError(issues, "Pulumi.dev.yaml").lines()[1:] == [
        "  stacks/Pulumi.dev.yaml:17:7: pools[0].minSize: unknown key",
        "  stacks/Pulumi.dev.yaml:18:7: pools[0].scaling.minSize: missing",
        "  x: no place",
    ]
