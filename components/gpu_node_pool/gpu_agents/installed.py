"""Which node agents the program installs for a validated stack, and into which namespace. Pure.

One answer for the program (:func:`gpu_node_pool.component.program.install_gpu_agents` installs exactly
these), the plan report (one line naming the namespaces) and the allow-lists: the namespaces of the agents
the product installs join ``gpu-toleration-allowlist`` (the pack reads them back from the components'
``agentNamespace`` property; the admission policy from :func:`installed_agents`), so the agents the
product installs pass its own rules with default settings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .efa_device_plugin.values import efa_pools
from .gpu_operator.values import NAMESPACE as OPERATOR_NAMESPACE

__all__ = ["InstalledAgent", "installed_agents", "agent_namespaces", "pool_device_plugin", "SERVED_BY_CHART",
           "SERVED_BY_OPERATOR", "NOT_INSTALLED"]

#: What serves ``nvidia.com/gpu`` on a pool that needs NVIDIA's device plugin (``uses_nvidia_device_plugin``), as the
#: plan says it (``pools[].devicePlugin``): the standalone chart, the GPU Operator's operand, or nothing this stack installs.
SERVED_BY_CHART = "nvidia-device-plugin chart"
SERVED_BY_OPERATOR = "the GPU Operator's device plugin (gpu-operator chart)"
NOT_INSTALLED = "needs NVIDIA's device plugin; not installed by this stack (devicePlugin.enabled: false)"


@dataclass(frozen=True)
class InstalledAgent:
    """An agent the program installs. ``key``: ``device_plugin`` | ``gpu_operator`` | ``dcgm_exporter`` |
    ``efa_device_plugin``; ``title``: how reports name it; ``namespace``: where its chart goes."""

    key: str
    title: str
    namespace: str


def installed_agents(stack: Any) -> list[InstalledAgent]:
    """The agents the program installs for ``stack`` (a ``StackConfig``), in install order:

    * the NVIDIA device plugin: ``devicePlugin.enabled``, provider ``nvidia-device-plugin``, and a pool
      whose nodes need it (``uses_nvidia_device_plugin``);
    * the GPU Operator: ``devicePlugin.enabled`` with provider ``gpu-operator`` (namespace ``gpu-operator``);
    * else the standalone DCGM exporter: ``gpuAgents.dcgmExporter.enabled``;
    * the EFA device plugin: ``gpuAgents.efaDevicePlugin.enabled`` and a pool with ``efa.enabled``.
    """
    out = []
    plugin, agents = stack.device_plugin, stack.gpu_agents
    if plugin.enabled and plugin.provider == "nvidia-device-plugin" and any(p.uses_nvidia_device_plugin for p in stack.pools):
        out.append(InstalledAgent("device_plugin", "NVIDIA device plugin", plugin.namespace))
    if plugin.enabled and plugin.provider == "gpu-operator":
        out.append(InstalledAgent("gpu_operator", "GPU Operator", OPERATOR_NAMESPACE))
    elif agents.dcgm_exporter.enabled:
        out.append(InstalledAgent("dcgm_exporter", "DCGM exporter", agents.dcgm_exporter.namespace))
    if agents.efa_device_plugin.enabled and efa_pools(stack.pools):
        out.append(InstalledAgent("efa_device_plugin", "EFA device plugin", agents.efa_device_plugin.namespace))
    return out


def pool_device_plugin(pool: Any, stack: Any, reported: str | None = None) -> str:
    """Who serves ``nvidia.com/gpu`` on ``pool`` (a pool model of the validated ``stack``), one answer for the plan's
    pool line and ``pools[].devicePlugin``, agreeing with :func:`installed_agents`.

    A pool whose image or platform runs its own plugin keeps ``reported``, its backend's wording (``managed by GKE
    ...``, ``ships its own ...``; ``"ships its own"`` without one). A pool that needs NVIDIA's: :data:`NOT_INSTALLED`
    with ``devicePlugin.enabled`` false, :data:`SERVED_BY_OPERATOR` with ``provider: gpu-operator`` (the operator's
    ``devicePlugin`` operand serves every pool that is not the platform's: ``gpu_operator.values.operator_pools``),
    else ``reported`` (a backend may qualify the chart) or :data:`SERVED_BY_CHART`.
    """
    if not pool.uses_nvidia_device_plugin:
        return reported or "ships its own"
    plugin = stack.device_plugin
    if not plugin.enabled:
        return NOT_INSTALLED
    if plugin.provider == "gpu-operator":
        return SERVED_BY_OPERATOR
    return reported or SERVED_BY_CHART


def agent_namespaces(stack: Any) -> list[str]:
    """The distinct namespaces of :func:`installed_agents`, sorted."""
    return sorted({a.namespace for a in installed_agents(stack)})
