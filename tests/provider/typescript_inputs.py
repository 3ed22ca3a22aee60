"""What a TypeScript program sends the provider for a shipped stack, and that program run under mocks.

A TypeScript user of the generated SDK writes each pool as ``PoolArgs``: the shared fields at the
top, the backend's own fields in its block (``eksManaged: {...}``), taints as objects (the SDK
types them ``TaintArgs``; the ``key=value:Effect`` string is the Python and YAML form), Karpenter
limits as quantity strings (``"16"``). Over the wire every number is a double. :func:`ts_program`
declares the components ``gpu_node_pool.component.program.build`` declares for the stack, through
the provider's Construct.
"""

from __future__ import annotations

import json
from typing import Any

from gpu_node_pool.config.common import PoolBase
from gpu_node_pool.k8s.taints import Taint
from gpu_node_pool.provider.types import backend_block, camel

SHARED = {f.alias or k for k, f in PoolBase.model_fields.items()} | {"backend"}


def wire(value: Any) -> Any:
    """``value`` as it crosses the wire: numbers as doubles."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, list):
        return [wire(v) for v in value]
    if isinstance(value, dict):
        return {k: wire(v) for k, v in value.items()}
    return value


def _taint(taint: Any) -> dict[str, Any]:
    if isinstance(taint, str):
        return Taint.parse(taint).to_k8s()
    return dict(taint)


def ts_pool(pool: dict[str, Any]) -> dict[str, Any]:
    """A stack-file pool as a TypeScript ``PoolArgs`` object."""
    out: dict[str, Any] = {k: v for k, v in pool.items() if k in SHARED}
    block = {k: v for k, v in pool.items() if k not in SHARED}
    if "taints" in out:
        out["taints"] = [_taint(t) for t in out["taints"]]
    if "startupTaints" in block:
        block["startupTaints"] = [_taint(t) for t in block["startupTaints"]]
    if "limits" in block:
        block["limits"] = {k: str(v) for k, v in block["limits"].items()}
    if block:
        out[camel(backend_block(pool["backend"]))] = block
    return wire(out)


def stack_values(config: dict[str, Any]) -> dict[str, Any]:
    """The stack file's ``gpu-node-pools:*`` values, parsed: ``{"cluster": ..., "pools": [...], ...}``."""
    out = {}
    for key, value in config.items():
        if key.startswith("gpu-node-pools:") and key != "gpu-node-pools:kubeconfig":
            out[key.split(":", 1)[1]] = json.loads(value) if isinstance(value, str) and value[:1] in "[{" else value
    return out


def ts_program(provider: Any, config: dict[str, Any], results: dict[str, Any]):
    """A callable declaring what ``build`` declares for the stack ``config``, through ``provider.construct``
    (each construct's result in ``results`` by resource name)."""
    from gpu_node_pool.component.program import read_stack_config
    from gpu_node_pool.gpu_agents.installed import installed_agents

    values = stack_values(config)
    cluster = wire(values["cluster"])
    pools = [ts_pool(p) for p in values["pools"]]
    plugin = values.get("devicePlugin") or {}
    agents = values.get("gpuAgents") or {}

    def construct(name: str, component: str, inputs: dict[str, Any]) -> None:
        results[name] = provider.construct(name, f"gpu-node-pools:index:{component}", inputs, None)

    def program() -> None:
        stack = read_stack_config()  # what the stack declares: which agents, which pools the plugin serves
        for i, pool in enumerate(pools):
            construct(pool["name"], "GpuNodePool", {"pool": pool, "cluster": cluster, "configPath": f"pools[{i}]"})
        served = [p for p, spec in zip(pools, stack.pools, strict=True) if spec.uses_nvidia_device_plugin]
        if stack.device_plugin.enabled and served and stack.device_plugin.provider == "nvidia-device-plugin":
            construct("nvidia-device-plugin", "NvidiaDevicePlugin", {
                "cluster": cluster, "pools": served, "config": wire(plugin),
                "featureDiscovery": stack.gpu_agents.feature_discovery.enabled})
        wanted = {a.key for a in installed_agents(stack)}
        extra = wire(plugin.get("extraTolerations", []))
        if "gpu_operator" in wanted:
            construct("gpu-operator", "GpuOperator", {"cluster": cluster, "pools": pools, "gpuAgents": wire(agents),
                                                      "devicePlugin": wire(plugin)})
        if "dcgm_exporter" in wanted:
            construct("dcgm-exporter", "DcgmExporter", {"cluster": cluster, "pools": pools, "extraTolerations": extra,
                                                        "config": wire(agents.get("dcgmExporter", {}))})
        if "efa_device_plugin" in wanted:
            construct("efa-device-plugin", "EfaDevicePlugin", {"cluster": cluster, "pools": pools,
                                                               "extraTolerations": extra,
                                                               "config": wire(agents.get("efaDevicePlugin", {}))})
        if stack.admission.enabled:
            construct("gpu-admission-policies", "GpuAdmissionPolicies", {
                "cluster": cluster, "pools": pools, "admission": wire(values.get("admission", {}))})

    return program
