"""``gpuAgents`` settings the GPU Operator never reads (``devicePlugin.provider: gpu-operator`` runs the DCGM
exporter and GFD as its own operands) are refused at their own path, not dropped in silence."""

from __future__ import annotations

import pytest

from gpu_node_pool.config import ConfigError, validate_stack_config
from gpu_node_pool.config.agents import OPERATOR_OPERANDS, GpuAgentsConfig

CLUSTER = {"name": "ml-dev", "kubernetesVersion": "1.33", "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-dev-gpu-node",
           "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}
POOL = {"name": "a", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 2}}


def _raw(device_plugin: dict, agents: dict, pool: dict | None = None) -> dict:
    return {"cluster": CLUSTER, "pools": [{**POOL, **(pool or {})}], "devicePlugin": device_plugin, "gpuAgents": agents}


def test_a_dcgm_namespace_under_the_gpu_operator_is_refused_with_the_operand_and_the_fix():
    with pytest.raises(ConfigError) as err:
        validate_stack_config(_raw({"provider": "gpu-operator"}, {"dcgmExporter": {"enabled": True, "namespace": "mon"}}))
    said = {i.path: i.message for i in err.value.issues}
    message = said["gpuAgents.dcgmExporter.namespace"]
    assert message.startswith("'mon' is not used: with devicePlugin.provider gpu-operator the GPU Operator runs its "
                              "own dcgmExporter as an operand"), message
    assert "ClusterPolicy spec.dcgmExporter: NVIDIA/gpu-operator@v26.7.0" in message
    assert "runs in its own namespace gpu-operator" in message
    assert message.endswith("remove namespace (keep enabled), or set devicePlugin.provider: nvidia-device-plugin to "
                            "install the standalone dcgmExporter with it"), message


def test_every_changed_setting_is_refused_in_one_run_and_only_under_the_operator():
    agents = {"dcgmExporter": {"enabled": True, "namespace": "mon", "serviceMonitor": True}}
    with pytest.raises(ConfigError) as err:
        validate_stack_config(_raw({"provider": "gpu-operator"}, agents, {"labels": {"example.com/e": ""}}))
    paths = {i.path for i in err.value.issues}
    assert {"gpuAgents.dcgmExporter.namespace", "gpuAgents.dcgmExporter.serviceMonitor",
            "pools[0].labels['example.com/e']"} <= paths, paths
    # the standalone exporter reads them; so it does when the operator is not installed (devicePlugin.enabled false)
    validate_stack_config(_raw({"provider": "nvidia-device-plugin"}, agents))
    validate_stack_config(_raw({"provider": "gpu-operator", "enabled": False}, agents))
    validate_stack_config(_raw({"provider": "gpu-operator"}, {"dcgmExporter": {"enabled": True},
                                                              "featureDiscovery": {"enabled": True}}))


def test_the_table_names_the_agents_the_operator_runs():
    assert set(OPERATOR_OPERANDS) <= set(GpuAgentsConfig.model_fields)
    assert set(OPERATOR_OPERANDS) == {"dcgm_exporter", "feature_discovery"}
