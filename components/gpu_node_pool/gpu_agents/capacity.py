"""What a GPU pool's node advertises once its agents run: the figure every GPU count must use.

One function for every backend that writes a Cluster Autoscaler node template or a GKE
accelerator (self-managed writes it today; eks-managed launch templates call the same):

* :func:`advertised_gpus` - ``nvidia.com/gpu`` per node: GPUs x ``gpuSharing.replicas``
  (NVIDIA/k8s-device-plugin@v0.20.0 README.md L420-430 "On 8 GPUs, capacity becomes nvidia.com/gpu: 80";
  GKE's plugin likewise: GoogleCloudPlatform/container-engine-accelerators ``pkg/gpu/nvidia/manager.go``
  advertises each GPU ``max_shared_clients_per_gpu`` times).
* :func:`autoscaler_resources` - the ``node-template/resources/<name>`` quantities: the above, or
  with ``mig`` the MIG devices (``mixed``: ``nvidia.com/mig-<profile>``; ``single``:
  ``nvidia.com/gpu``), instances per GPU x GPUs (NVIDIA/k8s-device-plugin@v0.20.0 ``internal/rm/rm.go``).
* :func:`type_resources` - the same quantities for one instance type (a pool whose nodes may be of several
  GPU counts: Karpenter), from the catalog's GPUs of that type; Karpenter's NodeOverlay capacity is rendered
  from it (``backends/karpenter/node_overlay.py``) and the plan compares recorded overlays with it.
* :func:`gke_accelerator_args` - GKE's ``gpu_sharing_config`` / ``gpu_partition_size`` for the pool.

Each takes a validated pool config model (``config.PoolConfig``) or an :class:`~.pools.AgentPool`.
"""

from __future__ import annotations

from typing import Any

from ..k8s.wellknown import NVIDIA_GPU_RESOURCE
from .mig import autoscaler_resource, gke_partition_size, mig_gpu
from .pools import AgentPool, agent_pool
from .sharing import advertised_gpus as _advertised
from .sharing import gke_sharing_config

__all__ = ["advertised_gpus", "autoscaler_resources", "gke_accelerator_args", "type_resources"]


def _agent(pool: Any) -> AgentPool:
    return pool if isinstance(pool, AgentPool) else agent_pool(pool)


def advertised_gpus(pool: Any) -> int | None:
    """``nvidia.com/gpu`` per node: physical GPUs x ``gpuSharing.replicas`` (1 without sharing); None
    when the GPU count is not known from the config (``gpusPerNode``, instance catalog, GKE count)."""
    return _advertised(_agent(pool))


def autoscaler_resources(pool: Any) -> dict[str, int]:
    """``{extended resource: quantity per node}`` for Cluster Autoscaler's node-template tags.

    Without ``mig``: ``{nvidia.com/gpu: advertised_gpus}``. With ``mig``: ``{nvidia.com/mig-<profile>: n}``
    (``mixed``) or ``{nvidia.com/gpu: n}`` (``single``), n = instances per GPU x GPUs. ``{}`` when the
    count is not known (no GPU count; no sourced MIG profile table, e.g. B300): Cluster Autoscaler
    then falls back to its instance table, and the plan shows no resources tag.
    """
    agent = _agent(pool)
    if agent.mig is not None:
        _, _, profiles = (None, None, None) if isinstance(pool, AgentPool) else mig_gpu(pool)
        found = autoscaler_resource(agent, profiles) if profiles else None
        return {found[0]: found[1]} if found else {}
    count = _advertised(agent)
    return {NVIDIA_GPU_RESOURCE: count} if count else {}


def type_resources(pool: Any, type_name: str) -> dict[str, int]:
    """:func:`autoscaler_resources` of ``pool`` on a node of EC2 type ``type_name``: its GPUs are the catalog's
    (:func:`gpu_node_pool.catalog.gpus`), and with ``mig`` its profile table is that type's GPU's
    (:func:`.mig.mig_gpu`). ``{}`` when not known (a type outside the catalog, fractional GPUs, a MIG profile
    table not confirmed for that GPU, a profile not in it)."""
    from dataclasses import replace
    from types import SimpleNamespace

    from .. import catalog

    gpus = catalog.gpus(type_name) if catalog.find(type_name) is not None else None
    if not gpus:
        return {}
    agent = replace(_agent(pool), gpus_per_node=gpus)
    if agent.mig is not None:
        _, _, profiles = mig_gpu(SimpleNamespace(instance_types=[type_name], gpu_model=None))
        found = autoscaler_resource(agent, profiles) if profiles else None
        return {found[0]: found[1]} if found else {}
    count = _advertised(agent)
    return {NVIDIA_GPU_RESOURCE: count} if count else {}


def gke_accelerator_args(pool: Any) -> dict[str, Any]:
    """Extra keys of a GKE ``guest_accelerators`` item: ``gpu_sharing_config`` (pool ``gpuSharing`` on GKE's
    plugin: ``TIME_SHARING``/``MPS``, ``max_shared_clients_per_gpu``) and ``gpu_partition_size`` (pool
    ``mig`` profile). ``{}`` for neither; a pool served by NVIDIA's plugin shares through its config instead."""
    agent = _agent(pool)
    out: dict[str, Any] = {}
    if agent.device_plugin == "platform":
        sharing = gke_sharing_config(agent.sharing)
        if sharing is not None:
            out["gpu_sharing_config"] = sharing
    size = gke_partition_size(agent)
    if size is not None:
        out["gpu_partition_size"] = size
    return out
