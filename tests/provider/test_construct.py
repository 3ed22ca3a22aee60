"""Construct, driven in-process: the provider's ``construct`` (what the SDK's provider server calls for a
TypeScript program's ``new GpuNodePool(...)``) under Pulumi mocks, with the inputs that program sends.

It registers what the Python program (``gpu_node_pool.component.program``) registers for the same stack:
the same resources with the same URNs and inputs; it refuses a bad taint with the Python path's message,
as an input properties error naming the argument path; and it returns the typed outputs."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT
from pulumi.errors import InputPropertiesError, InputPropertyError
from typescript_inputs import stack_values, ts_pool, ts_program, wire

from gpu_node_pool.config import ConfigError
from gpu_node_pool.plan.run import load_stack_file, record

STACKS = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))


@pytest.fixture(scope="module")
def provider():
    from gpu_node_pool.provider.host import GpuNodePoolsProvider

    return GpuNodePoolsProvider()


def _config(stack: str, variant: dict | None = None) -> tuple[dict, list]:
    config, secrets, _ = load_stack_file(ROOT, stack)
    return {**config, **{f"gpu-node-pools:{k}": json.dumps(v) for k, v in (variant or {}).items()}}, secrets


def _python(stack: str, variant: dict | None = None):
    from gpu_node_pool.component import program

    config, secrets = _config(stack, variant)
    resources, _ = record(program.main, config, secrets, stack=stack)
    return resources


def _typescript(provider, stack: str, results: dict | None = None, variant: dict | None = None):
    config, secrets = _config(stack, variant)
    resources, _ = record(ts_program(provider, config, {} if results is None else results), config, secrets, stack=stack)
    return resources


def _prod_pools_with_efa() -> list[dict]:
    config, _ = _config("prod")
    pools = json.loads(config["gpu-node-pools:pools"])
    training = {"efa": {"enabled": True, "securityGroupIds": ["sg-0c1d2e3f4a5b6c7d8"]},
                "subnetIds": [json.loads(config["gpu-node-pools:cluster"])["subnetIds"][0]]}
    return [{**{k: v for k, v in p.items() if k != "diskSize"}, **training} if p["name"] == "training" else p
            for p in pools]


#: The agents and policies no shipped stack installs, on the prod stack: name -> (stack keys, what registers).
VARIANTS = {
    "gpu-operator+admission": ({"devicePlugin": {"provider": "gpu-operator"}, "admission": {"enabled": True, "action": "warn"},
                                "gpuAgents": {"dcgmExporter": {"enabled": True}}}, ("gpu-operator", "gpu-admission-policies")),
    "dcgm-exporter": ({"gpuAgents": {"dcgmExporter": {"enabled": True}}}, ("dcgm-exporter",)),
    "efa-device-plugin": ({"pools": _prod_pools_with_efa()}, ("efa-device-plugin",)),
}


def _by_urn(resources) -> dict[str, tuple[str, object]]:
    return {r.urn: (r.type, r.inputs) for r in resources}


@pytest.mark.parametrize("stack", STACKS)
def test_construct_registers_what_the_python_program_registers(provider, stack):
    python, typescript = _by_urn(_python(stack)), _by_urn(_typescript(provider, stack))
    assert sorted(typescript) == sorted(python)
    differ = [urn for urn in python if python[urn] != typescript[urn]]
    assert differ == [], differ


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_construct_registers_the_agents_and_policies_as_the_python_program(provider, variant):
    keys, components = VARIANTS[variant]
    results: dict = {}
    python = _by_urn(_python("prod", keys))
    typescript = _by_urn(_typescript(provider, "prod", results, keys))
    assert set(components) <= set(results)
    assert sorted(typescript) == sorted(python)
    assert [urn for urn in python if python[urn] != typescript[urn]] == []


def test_the_dev_pool_children_are_the_node_group_and_its_autoscaler_tags(provider):
    urns = set(_by_urn(_typescript(provider, "dev")))
    assert any(u.endswith("gpu-node-pools:index:GpuNodePool$aws:eks/nodeGroup:NodeGroup::inference-node-group")
               for u in urns)
    assert sum("aws:autoscaling/tag:Tag::inference-ca-" in u for u in urns) == 5


def test_construct_returns_the_typed_outputs(provider):
    results: dict = {}
    _typescript(provider, "dev", results)
    state = results["inference"].state
    assert state["workloadTolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}]
    assert state["workloadNodeSelector"]["gpu-node-pools/pool"] == "inference"
    assert state["taints"] == ["nvidia.com/gpu=present:NoSchedule"]
    assert "nodeGroupName" in state and "nodePoolName" not in state
    assert results["nvidia-device-plugin"].state["namespace"] == "nvidia-device-plugin"
    assert results["nvidia-device-plugin"].state["tolerations"]


def _dev_inputs():
    config, _, _ = load_stack_file(ROOT, "dev")
    values = stack_values(config)
    return config, wire(values["cluster"]), ts_pool(values["pools"][0]), values


def _construct_error(provider, config, inputs) -> Exception:
    registered: list = []
    with pytest.raises((InputPropertiesError, InputPropertyError)) as err:
        record(lambda: provider.construct("inference", "gpu-node-pools:index:GpuNodePool", inputs, None), config,
               sink=registered)
    assert [r for r in registered if r.name == "inference"] == []  # refused before anything registered
    return err.value


def test_a_bad_taint_is_the_python_components_config_error_at_the_argument_path(provider):
    from gpu_node_pool.component.pool import GpuNodePool, GpuNodePoolArgs

    config, cluster, pool, values = _dev_inputs()
    pool["taints"] = [{"key": "nvidia.com/gpu/x", "value": "present", "effect": "NoSchedule"}]
    err = _construct_error(provider, config, {"pool": pool, "cluster": cluster})

    python_pool = dict(values["pools"][0], taints=["nvidia.com/gpu/x=present:NoSchedule"])
    with pytest.raises(ConfigError) as python:
        record(lambda: GpuNodePool("inference", GpuNodePoolArgs(pool=python_pool, cluster=values["cluster"])), config)
    (issue,) = python.value.issues
    assert issue.path == "pool.taints[0].key"
    assert err.errors == [{"property_path": "pool.taints[0].key", "reason": issue.message}]
    assert str(err) == str(python.value)  # the same text: count, source, path and message


def test_a_backend_field_error_names_the_backend_block(provider):
    config, cluster, pool, _ = _dev_inputs()
    pool["eksManaged"]["instanceTypes"] = ["m5.large"]
    err = _construct_error(provider, config, {"pool": pool, "cluster": cluster})
    assert [e["property_path"] for e in err.errors] == ["pool.eksManaged.instanceTypes[0]"]
    assert "'m5.large' is not an NVIDIA GPU instance type" in err.errors[0]["reason"]


def test_the_block_of_another_backend_is_refused_with_the_fix(provider):
    config, cluster, pool, _ = _dev_inputs()
    pool["karpenter"] = {"limits": {"nvidia.com/gpu": "8"}}
    err = _construct_error(provider, config, {"pool": pool, "cluster": cluster})
    assert err.errors[0]["property_path"] == "pool.karpenter"
    assert "backend is 'eks-managed'" in err.errors[0]["reason"] and "set backend: karpenter" in err.errors[0]["reason"]


def test_an_effect_outside_the_enum_is_refused_by_the_sdk_before_the_component_runs(provider):
    config, cluster, pool, _ = _dev_inputs()
    pool["taints"] = [{"key": "nvidia.com/gpu", "effect": "NoSchedul"}]
    err = _construct_error(provider, config, {"pool": pool, "cluster": cluster})
    assert isinstance(err, InputPropertyError) and err.property_path == "pool.taints[0].effect"


def test_a_property_the_schema_has_not_is_refused_with_the_closest_name(provider):
    config, cluster, pool, _ = _dev_inputs()
    pool["eksManaged"]["diskSise"] = 100.0
    pool["taints"][0]["efect"] = "NoSchedule"
    err = _construct_error(provider, config, {"pool": pool, "cluster": cluster, "workloadTolerations": None})
    assert err.errors == [
        {"property_path": "pool.taints[0].efect", "reason": "'efect' is no property here; did you mean 'effect'?"},
        {"property_path": "pool.eksManaged.diskSise", "reason": "'diskSise' is no property here; did you mean 'diskSize'?"},
    ]


def test_an_agent_setting_error_is_named_by_the_agents_argument(provider):
    config, cluster, pool, _ = _dev_inputs()
    registered: list = []
    with pytest.raises(InputPropertiesError) as err:
        record(lambda: provider.construct("nvidia-device-plugin", "gpu-node-pools:index:NvidiaDevicePlugin",
                                          {"cluster": cluster, "pools": [pool], "config": {"namespace": "Bad_NS"}},
                                          None), config, sink=registered)
    assert registered == []
    assert [e["property_path"] for e in err.value.errors] == ["config.namespace"]
    assert "Bad_NS" in err.value.errors[0]["reason"]
