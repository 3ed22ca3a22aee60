"""gpu-node-pools: keep Kubernetes GPU nodes for GPU work.

Public API (stable names)::

    from gpu_node_pool import (
        GpuNodePool, GpuNodePoolArgs, NvidiaDevicePlugin, NvidiaDevicePluginArgs,
        Taint, Toleration, TaintEffect, tolerates, untolerated_taints,
    )

The Pulumi components are imported lazily, so the pure modules (taints, config, render)
import without the cloud SDKs.
"""

from ._version import __version__
from .k8s.taints import Taint, TaintEffect, TaintError, Toleration, tolerates, untolerated_taints

__all__ = [
    "__version__",
    "ConfigError",
    "ConfigIssue",
    "GpuNodePool",
    "GpuNodePoolArgs",
    "NvidiaDevicePlugin",
    "NvidiaDevicePluginArgs",
    "Taint",
    "TaintEffect",
    "TaintError",
    "Toleration",
    "tolerates",
    "untolerated_taints",
]


def __getattr__(name: str):
    if name in ("ConfigError", "ConfigIssue"):  # lazy: config.py builds the pydantic models
        from . import config

        return getattr(config, name)
    if name in ("GpuNodePool", "GpuNodePoolArgs"):
        from .component import pool

        return getattr(pool, name)
    if name in ("NvidiaDevicePlugin", "NvidiaDevicePluginArgs"):
        from .gpu_agents import device_plugin

        return getattr(device_plugin, name)
    raise AttributeError(name)
