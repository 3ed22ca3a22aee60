"""The pool name's longest length is its backend's, asked through the registry, each with its reason and source:
63 (a label value) where nothing tighter is derived from it, 44 on eks-managed (the EKS node group the stack program
names after the pool), 22 on gke (the GKE node pool, 40 characters). ``gpupool schema`` gives each backend's pool
model that maximum."""

from __future__ import annotations

import json
import re

import pytest
from conftest import ROOT, plan_stack_text

from gpu_node_pool.config import ConfigError
from gpu_node_pool.config.json_schema import stack_file_schema
from gpu_node_pool.config.loading import validate_stack_config
from gpu_node_pool.plan.run import load_stack_file
from gpu_node_pool.registry import all_backends, get

#: A shipped stack holding a pool of each backend: backend -> (stack, pool index).
POOLS = {"eks-managed": ("prod", 0), "karpenter": ("prod", 2), "self-managed": ("prod", 3), "gke": ("gke-dev", 0),
         "eks-auto": ("auto", 0)}


def _stack(backend: str, name: str) -> dict:
    stack, index = POOLS[backend]
    config, _, _ = load_stack_file(ROOT, stack)
    pools = json.loads(config["gpu-node-pools:pools"])
    assert pools[index]["backend"] == backend
    pools[index]["name"] = name
    return {"cluster": json.loads(config["gpu-node-pools:cluster"]), "pools": pools}, index


def _issues(backend: str, name: str) -> list[str]:
    mapping, index = _stack(backend, name)
    try:
        validate_stack_config(mapping, "test")
    except ConfigError as err:
        return [i.message for i in err.issues if i.path == f"pools[{index}].name"]
    return []


def _name(length: int) -> str:
    return ("gpu-" + "x" * length)[:length]


@pytest.mark.parametrize("backend", ["karpenter", "self-managed", "eks-auto"])
def test_a_63_character_name_is_taken_where_everything_derived_from_it_fits(backend):
    assert _issues(backend, _name(63)) == []


@pytest.mark.parametrize("backend", list(POOLS))
def test_no_backend_takes_64_characters_the_pool_label_value_cannot_hold(backend):
    (message,) = _issues(backend, _name(64))
    assert "is 64 characters" in message


def test_64_characters_are_refused_for_the_label_value_with_its_source():
    (message,) = _issues("karpenter", _name(64))
    assert "backend karpenter takes at most 63" in message
    assert "value of the node label gpu-node-pools/pool" in message and "IsValidLabelValue" in message
    assert f"write e.g. '{_name(63)}'" in message


def test_eks_managed_takes_44_the_node_group_name_pulumi_derives_leaves():
    assert _issues("eks-managed", _name(44)) == []
    (message,) = _issues("eks-managed", _name(63))
    assert "is 63 characters; backend eks-managed takes at most 44" in message
    assert "Pulumi names its node group '<name>-node-group-' + 7 random characters" in message
    assert "at most 63 characters" in message
    assert "pulumi-aws aws.eks.NodeGroup nodeGroupName" in message
    assert f"write e.g. '{_name(44)}'" in message


@pytest.mark.parametrize("length", [23, 41])
def test_gke_refuses_a_name_its_node_pool_name_cannot_hold_with_gkes_source(length):
    assert _issues("gke", _name(22)) == []
    (message,) = _issues("gke", _name(length))
    assert f"is {length} characters; backend gke takes at most 22" in message
    assert "'<name>-node-pool-' + 7 random characters" in message
    assert "at most 40 characters" in message and "pulumi/pulumi-gcp#1510" in message


def test_a_name_that_is_no_dns_label_names_the_rule_and_a_fix():
    (message,) = _issues("karpenter", "GPU_Pool")
    assert "must be a lower-case DNS label" in message and "IsDNS1123Label" in message
    assert "write e.g. 'gpu-pool'" in message


@pytest.mark.parametrize("backend", ["eks-managed", "gke"])
def test_the_registry_limit_is_where_the_component_name_rule_refuses(backend):
    """In the stack program the component takes the pool's name: the pool name limit is exactly where the
    backend's ``resource_name`` rule starts refusing the component name."""
    record = get(backend)
    longest = record.pool_name.longest
    rule = record.fn("resource_name")
    assert rule("a" * longest, None) is None
    assert f"at most {longest} characters" in rule("a" * (longest + 1), None)


def test_the_schema_gives_each_backend_its_own_maximum():
    defs = stack_file_schema()["$defs"]
    for backend in all_backends():
        prop = defs[backend.model().__name__]["properties"]["name"]
        expected = backend.pool_name.longest if backend.pool_name is not None else 63
        assert prop["maxLength"] == expected, backend.name
        assert f"at most {expected} characters" in prop["description"], backend.name
        assert re.fullmatch(prop["pattern"], "gpu-inference") and not re.fullmatch(prop["pattern"], "GPU_Pool")
        # the schema promises no name the validator refuses, nor refuses one it takes
        assert _issues(backend.name, _name(expected)) == [], backend.name
        assert _issues(backend.name, _name(expected + 1)) != [], backend.name


def test_the_plan_takes_63_character_karpenter_and_self_managed_names(capsys, temp_project):
    text = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text()
    burst, batch = _name(63), _name(62) + "b"
    text = text.replace("- name: inference-burst\n", f"- name: {burst}\n", 1).replace("- name: batch\n", f"- name: {batch}\n", 1)
    code, out = plan_stack_text(capsys, temp_project, text)
    assert code == 0, out
    assert burst in out and batch in out


def test_the_plan_refuses_a_63_character_eks_managed_name_before_any_resource(capsys, temp_project):
    text = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text().replace("- name: training\n", f"- name: {_name(63)}\n", 1)
    code, out = plan_stack_text(capsys, temp_project, text)
    assert code == 2, out
    assert "pools[0].name" in out and "backend eks-managed takes at most 44" in out


def _gke_component(component_name: str, pool_name: str):
    from gpu_node_pool.component.pool import GpuNodePool, GpuNodePoolArgs
    from gpu_node_pool.plan.run import record

    mapping, index = _stack("gke", pool_name)
    return record(lambda: GpuNodePool(component_name, GpuNodePoolArgs(pool=mapping["pools"][index],
                                                                      cluster=mapping["cluster"])))


def test_a_gke_component_name_too_long_for_its_node_pool_name_is_refused_before_registering():
    """The node pool is autonamed from the component's name, which in Python may differ from the pool's."""
    resources, _ = _gke_component("a" * 22, "l4")
    assert any(r.type == "gcp:container/nodePool:NodePool" for r in resources)
    with pytest.raises(ConfigError) as err:
        _gke_component("a" * 23, "l4")
    assert "'" + "a" * 23 + "-node-pool' plus '-' and 7 random characters" in str(err.value)
    assert "pulumi/pulumi-gcp#1510" in str(err.value) and "at most 22 characters" in str(err.value)
