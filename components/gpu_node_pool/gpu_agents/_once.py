"""Once per cluster per Pulumi program: the guard the agent components share (like ``NvidiaDevicePlugin``'s)."""

from __future__ import annotations

import weakref
from typing import Any

import pulumi

from ..config import ConfigError, ConfigIssue
from ..device_plugin.checks import cluster_key

__all__ = ["claim"]


class _NoRoot:
    """Stands in for the root stack outside a Pulumi program (weak-referenceable)."""


_NO_ROOT = _NoRoot()
_INSTALLED: weakref.WeakKeyDictionary[Any, dict[tuple[str, Any], str]] = weakref.WeakKeyDictionary()


def claim(kind: str, name: str, cluster_name: Any, cluster: Any, opts: pulumi.ResourceOptions | None, source: str) -> None:
    """Record that ``kind`` (e.g. ``GpuOperator``) is declared as ``name`` for the cluster.

    Raises:
        ConfigError: ``kind`` is already declared for the same cluster in this program (the chart
            must be installed once per cluster, serving all its pools), or the cluster cannot be
            identified (:func:`gpu_node_pool.device_plugin.checks.cluster_key`).
    """
    key, text = cluster_key(cluster_name, cluster, opts.providers if opts else None)
    installed = _INSTALLED.setdefault(pulumi.runtime.get_root_resource() or _NO_ROOT, {})
    if (kind, key) in installed:
        raise ConfigError(
            [ConfigIssue(kind, f"{kind} is already declared for {text} (as {installed[(kind, key)]!r}); "
                               "declare it once with all the cluster's pools")],
            source,
        )
    installed[(kind, key)] = name
