"""Mistakes in code that builds :class:`NvidiaDevicePlugin`, found before any resource is registered.

Each becomes one :class:`~gpu_node_pool.config.ConfigError` naming the argument, the bad value
and the fix (a ``GpuNodePool`` where its ``.spec`` belongs, no pool that needs the plugin, a ``config``
that is no ``devicePlugin`` section).
"""

from __future__ import annotations

from typing import Any

from ...config import ConfigError, ConfigIssue, DevicePluginConfig, PoolConfig
from ...text.listing import listed
from ..pool_args import pool_models

__all__ = ["plugin_config", "served_pools"]

SOURCE = "NvidiaDevicePluginArgs"


def _fail(path: str, message: str) -> ConfigError:
    return ConfigError([ConfigIssue(path, message)], SOURCE)


def plugin_config(config: Any) -> DevicePluginConfig:
    """``NvidiaDevicePluginArgs.config`` as a model: a ``DevicePluginConfig`` as given, or validated from its
    camelCase mapping as the stack's ``devicePlugin`` (``{"namespace": "gpu", "extraTolerations": [...]}``).

    Raises:
        ConfigError: anything else (one issue at ``config``), or a mapping's mistakes, each at ``config.<key>``
            with the stack config's message (``config.namespace: 'default': the chart refuses ...``).
    """
    from ...config.loading import component_section

    return component_section(config, "devicePlugin", "config", SOURCE, example="{'namespace': 'nvidia-device-plugin'}")


def served_pools(pools: Any) -> list[PoolConfig]:
    """The pool models of ``NvidiaDevicePluginArgs.pools``, checked.

    Args:
        pools: a sequence of validated pool models (``GpuNodePool.spec``).

    Returns:
        The pools that need NVIDIA's plugin (``uses_nvidia_device_plugin``), in order.

    Raises:
        ConfigError: ``pools`` is not a sequence, an item is a ``GpuNodePool`` (pass its ``.spec``)
            or anything else that is not a pool model (:func:`~gpu_node_pool.gpu_agents.pool_args.pool_models`),
            or no pool needs the plugin (the chart's node affinity would have no ``nodeSelectorTerms``, which the
            API server rejects: Kubernetes API reference, NodeSelector "Required. A list of node selector terms").
    """
    models = pool_models(pools, SOURCE, "NvidiaDevicePluginArgs(cluster_name='ml', pools=[pool.spec])")
    served = [p for p in models if p.uses_nvidia_device_plugin]
    if not served:
        names = listed((p.name for p in models), 5)
        raise _fail(
            "pools",
            f"no pool needs the NVIDIA device plugin (pools {names}: each ships its own or is served by "
            "its provider); the chart would select no node, and the API server rejects a node affinity with "
            "no nodeSelectorTerms. Declare NvidiaDevicePlugin only with pools whose "
            "spec.uses_nvidia_device_plugin is true",
        )
    return served


