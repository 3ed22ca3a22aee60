"""Mistakes in code that builds :class:`~gpu_node_pool.gpu_agents.efa_device_plugin.component.EfaDevicePlugin`, found
before any resource is registered.

Each becomes one :class:`~gpu_node_pool.config.ConfigError` of the ``EfaDevicePluginArgs`` naming the argument, the
value, the rule and the fix: ``pools`` that is no list of pool models, a ``GpuNodePool`` where its ``.spec`` belongs,
and no pool with ``efa: {enabled: true}`` among them (the plugin's tolerations are derived from the EFA pools it
serves, :func:`.values.efa_plugin_values`). Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...config import ConfigError, ConfigIssue, PoolConfig
from ...text.listing import listed
from ..pool_args import pool_models
from .values import efa_pools

__all__ = ["SOURCE", "served_pools"]

SOURCE = "EfaDevicePluginArgs"
#: An EFA node advertises ``vpc.amazonaws.com/efa`` only once the EFA device plugin runs on it.
_EFA_GUIDE = "https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html"


def _fail(path: str, message: str) -> ConfigError:
    return ConfigError([ConfigIssue(path, message)], SOURCE)


def _not_served(pools: Sequence[Any]) -> str:
    """Why none of ``pools`` is served: the pools of a backend without an ``efa`` key, with their backends, then the
    pools whose ``efa`` is not enabled, each group's names listed."""
    keyless = [p for p in pools if not hasattr(p, "efa")]
    off = [p for p in pools if hasattr(p, "efa")]
    parts = []
    if keyless:
        backends = sorted({p.backend for p in keyless})
        parts.append(f"{listed((p.name for p in keyless), 5)} {'is' if len(keyless) == 1 else 'are'} of a backend "
                     f"without efa ({listed(backends)})")
    if off:
        parts.append(f"{listed((p.name for p in off), 5)} {'has' if len(off) == 1 else 'have'} no efa: {{enabled: true}}")
    return "; ".join(parts)


def served_pools(pools: Any) -> list[PoolConfig]:
    """The pool models of ``EfaDevicePluginArgs.pools``, checked.

    Args:
        pools: a sequence of validated pool models (``GpuNodePool.spec``).

    Returns:
        Every pool model, in order; at least one has ``efa.enabled``
        (:func:`~gpu_node_pool.gpu_agents.efa_device_plugin.values.efa_pools`).

    Raises:
        ConfigError: ``pools`` is not a sequence (at ``pools``), an item is a ``GpuNodePool`` (pass its ``.spec``) or
            anything else that is not a pool model (at ``pools[<i>]``,
            :func:`~gpu_node_pool.gpu_agents.pool_args.pool_models`), or no pool has ``efa.enabled`` (at ``pools``:
            the pools given and why each is not served).
    """
    models = pool_models(pools, SOURCE, "EfaDevicePluginArgs(cluster_name='ml', pools=[pool.spec])")
    if not efa_pools(models):
        given = ("pools is empty" if not models else
                 f"none of the pools given has it: {_not_served(models)}")
        raise _fail("pools", (
            "no pool to serve: the EFA device plugin serves the pools with efa: {enabled: true}, whose nodes "
            f"advertise vpc.amazonaws.com/efa only once it runs there ({_EFA_GUIDE}), and its tolerations are "
            f"derived from their taints; {given}. Pass the .spec of the pools with efa.enabled "
            "(EfaDevicePluginArgs(cluster_name, pools=[pool.spec])), or declare no EfaDevicePlugin for pools "
            "without EFA"))
    return models
