"""Mistakes in code that builds :class:`~gpu_node_pool.gpu_agents.gke_driver_installer.component.GkeDriverInstaller`,
found before any resource is registered.

Each becomes one :class:`~gpu_node_pool.config.ConfigError` of the ``GkeDriverInstallerArgs`` naming the argument, the
value, the rule and the fix: ``pools`` that is no list of pool models, a ``GpuNodePool`` where its ``.spec`` belongs,
and no GKE pool with ``accelerator.gpuDriverVersion: INSTALLATION_DISABLED`` among them (the DaemonSet's node affinity
would then select no node: it is ANDed with ``gpu-node-pools/pool In [<served pools>]``, :mod:`.values`). Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...config import ConfigError, ConfigIssue
from ...text.listing import listed
from ..pool_args import pool_models
from ..pools import AgentPool, agent_pool
from .values import MANIFESTS, installer_pools

__all__ = ["SOURCE", "served_pools"]

SOURCE = "GkeDriverInstallerArgs"
#: Why a GKE pool with ``INSTALLATION_DISABLED`` needs an installer: GKE installs no driver on its nodes.
_MANUAL_DRIVERS = "https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#installing_drivers"


def _fail(path: str, message: str) -> ConfigError:
    return ConfigError([ConfigIssue(path, message)], SOURCE)


def _not_served(pools: Sequence[AgentPool]) -> str:
    """Why none of ``pools`` is served, from the pools' own facts (``node_image``, ``driver``): the pools off the node
    images of Google's manifests with their backends, then the GKE pools whose driver GKE installs, each group's names
    listed."""
    off = [p for p in pools if p.node_image not in MANIFESTS]
    installed = [p for p in pools if p.node_image in MANIFESTS]
    parts = []
    if off:
        backends = sorted({p.backend for p in off})
        parts.append(f"{listed((p.name for p in off), 5)} {'is' if len(off) == 1 else 'are'} not on GKE's node image "
                     f"(backend{'' if len(backends) == 1 else 's'} {listed(backends)})")
    if installed:
        parts.append(f"GKE installs the driver of {listed((p.name for p in installed), 5)} (gpuDriverVersion is not "
                     "INSTALLATION_DISABLED)")
    return "; ".join(parts)


def served_pools(pools: Any) -> list[AgentPool]:
    """The pools of ``GkeDriverInstallerArgs.pools`` as the agent sees them, checked.

    Args:
        pools: a sequence of validated pool models (``GpuNodePool.spec``).

    Returns:
        Every pool (:class:`~gpu_node_pool.gpu_agents.pools.AgentPool`), in order; at least one of them is served
        (:func:`~gpu_node_pool.gpu_agents.gke_driver_installer.values.installer_pools`).

    Raises:
        ConfigError: ``pools`` is not a sequence (at ``pools``), an item is a ``GpuNodePool`` (pass its ``.spec``) or
            anything else that is not a pool model (at ``pools[<i>]``,
            :func:`~gpu_node_pool.gpu_agents.pool_args.pool_models`), or no pool is a GKE pool with
            ``gpuDriverVersion: INSTALLATION_DISABLED`` (at ``pools``: the pools given and why each is not served).
    """
    models = pool_models(pools, SOURCE, "GkeDriverInstallerArgs(cluster_name='ml', pools=[pool.spec])")
    seen = [agent_pool(p) for p in models]
    if not installer_pools(seen):
        given = ("pools is empty" if not seen else
                 f"none of the pools given is one: {_not_served(seen)}")
        raise _fail("pools", (
            "no pool to serve: GKE's NVIDIA driver installer serves GKE pools with accelerator.gpuDriverVersion: "
            f"INSTALLATION_DISABLED, on whose nodes GKE installs no driver ({_MANUAL_DRIVERS}), and {given}; its "
            "DaemonSet, placed on the pools it serves, would select no node. Pass the .spec of the GKE pools with "
            "INSTALLATION_DISABLED (GkeDriverInstallerArgs(cluster_name, pools=[pool.spec])), or declare no "
            "GkeDriverInstaller where GKE installs the driver"))
    return seen
