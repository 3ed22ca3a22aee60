"""``accelerator.gpuSharingConfig`` of a gke pool, refused for the pool's ``gpuSharing``. Pure, no Pulumi.

GKE shares a node's GPUs by ``node_config.guest_accelerators[].gpu_sharing_config`` (pulumi_gcp ``container/_inputs.py``
``NodePoolNodeConfigGuestAcceleratorGpuSharingConfigArgs``; https://cloud.google.com/kubernetes-engine/docs/how-to/timesharing-gpus).
The pool's ``gpuSharing`` writes that field (:func:`gpu_node_pool.gpu_agents.capacity.gke_accelerator_args`), so the raw
field is refused in either spelling (:data:`RAW_SHARING_KEYS`) with what to write instead (:func:`raw_sharing_refusal`);
:func:`refused_sharing_of_the_pool` and :func:`refuse_raw_sharing` are the pool's and the accelerator's validators.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...config.common import fail
from ...gpu_agents.sharing import GKE_STRATEGY

__all__ = ["RAW_SHARING_KEYS", "RefusedSharing", "raw_sharing_refusal", "refused_sharing_of_the_pool",
           "refuse_raw_sharing"]

#: The raw GKE sharing field of ``accelerator`` in either spelling; refused for the pool's ``gpuSharing``.
RAW_SHARING_KEYS = ("gpuSharingConfig", "gpu_sharing_config")
#: GKE's ``gpu_sharing_strategy`` -> the ``gpuSharing.strategy`` that writes it: the reverse of
#: :data:`gpu_node_pool.gpu_agents.sharing.GKE_STRATEGY`, the one mapping.
_FROM_GKE_STRATEGY = {gke: ours for ours, gke in GKE_STRATEGY.items()}


def raw_sharing_refusal(value: Any, *, mig: bool = False, gke_plugin: bool = True) -> str:
    """Why ``accelerator.gpuSharingConfig`` is refused, with what replaces ``value`` on its pool (``mig``: the pool
    has MIG partitions; ``gke_plugin``: GKE's device plugin serves it, not NVIDIA's): a ``gpuSharing`` the pool's
    rules take, or no sharing at all.

    The pool's ``gpuSharing`` is the one way to share GPUs: it writes the same GKE field
    (``guest_accelerators[].gpu_sharing_config``, :func:`gpu_node_pool.gpu_agents.capacity.gke_accelerator_args`),
    and the sharing rules, the plan's advertised count and the autoscaler figures are derived from it. GKE's
    device plugin advertises each GPU ``maxSharedClientsPerGpu`` times (GoogleCloudPlatform/container-engine-accelerators
    ``pkg/gpu/nvidia/manager.go``@992db8125755 ``ListDevices``), so a second, unread setting would make the plan
    promise whole GPUs that the node does not advertise.

    The suggestion is one the sharing rules take (:func:`gpu_node_pool.gpu_agents.sharing.sharing_problems`):

    * fewer than 2 clients per GPU: no sharing (1 client shares nothing; ``gpuSharing`` takes 2 or more);
    * ``mig`` with NVIDIA's plugin: no sharing (it time-slices whole GPUs only, and MPS is not taken with MIG);
    * ``MPS`` with ``mig`` on GKE's plugin: ``timeSlicing`` with the same clients (GKE time-shares each MIG
      partition; MPS on partitions is refused), or no sharing;
    * otherwise ``gpuSharing`` with the strategy (``TIME_SHARING`` -> ``timeSlicing``, ``MPS`` -> ``mps``) and the
      clients; a value the field does not hold is named as what to fill in.
    """
    strategy, clients = None, None
    if isinstance(value, dict):
        strategy = _FROM_GKE_STRATEGY.get(str(value.get("gpuSharingStrategy", value.get("gpu_sharing_strategy"))))
        count = value.get("maxSharedClientsPerGpu", value.get("max_shared_clients_per_gpu"))
        clients = count if isinstance(count, int) and not isinstance(count, bool) else None
    why = (
        "not taken: GPU sharing is set by the pool's gpuSharing, which writes this same GKE field and from which the "
        "sharing rules (2 or more clients, MPS not with MIG), the plan's advertised nvidia.com/gpu and the autoscaler "
        "figures are derived (GKE's device plugin advertises each GPU maxSharedClientsPerGpu times: "
        "GoogleCloudPlatform/container-engine-accelerators pkg/gpu/nvidia/manager.go)"
    )
    if clients is not None and clients < 2:
        return (f"{why}; maxSharedClientsPerGpu {clients} shares nothing (1 client per GPU is no sharing, and "
                "gpuSharing takes 2 or more): remove gpuSharingConfig and write no gpuSharing")
    if mig and not gke_plugin:
        return (f"{why}; with mig, NVIDIA's device plugin (nvidiaDevicePlugin: true) shares no MIG device (it "
                "time-slices whole GPUs only; MPS is not supported on MIG-enabled devices): remove gpuSharingConfig "
                "and write no gpuSharing")
    replicas = str(clients) if clients is not None else "<clients per GPU, 2 or more>"
    if mig and strategy == "mps":
        return (f"{why}; MPS is not taken with mig on GKE (its plugin sizes each MPS client from the whole GPU's "
                "memory), but GKE time-shares each MIG partition: remove gpuSharingConfig and write, at the pool's "
                f"level, gpuSharing: {{strategy: timeSlicing, replicas: {replicas}}}, or write no gpuSharing")
    fields = ", ".join(f"{gke} -> {ours}" for ours, gke in GKE_STRATEGY.items())
    return (f"{why}; remove it and write, at the pool's level, gpuSharing: {{strategy: {strategy or ' | '.join(GKE_STRATEGY)}, "
            f"replicas: {replicas}}} ({fields}; maxSharedClientsPerGpu -> replicas)")

@dataclass(frozen=True)
class RefusedSharing:
    """``accelerator.gpuSharingConfig`` as its pool refuses it: :func:`raw_sharing_refusal` told the pool's ``mig`` and
    device plugin, which the accelerator's own validator does not see (:func:`refused_sharing_of_the_pool`)."""

    refusal: str


def refused_sharing_of_the_pool(data: Any) -> Any:
    """The raw pool ``data`` (a mapping before validation, or anything else, returned as is) with each
    ``accelerator.gpuSharingConfig`` replaced by the :class:`RefusedSharing` that fits the pool (:func:`raw_sharing_refusal`
    with its ``mig`` and ``nvidiaDevicePlugin``), so that the accelerator's validator raises it at the field's own key."""
    accelerator = data.get("accelerator") if isinstance(data, dict) else None
    if not isinstance(accelerator, dict) or not any(key in accelerator for key in RAW_SHARING_KEYS):
        return data
    context = {"mig": data.get("mig") is not None, "gke_plugin": data.get("nvidiaDevicePlugin") is not True}
    accelerator = {key: RefusedSharing(raw_sharing_refusal(value, **context)) if key in RAW_SHARING_KEYS else value
                   for key, value in accelerator.items()}
    return {**data, "accelerator": accelerator}


def refuse_raw_sharing(data: Any) -> Any:
    """The raw accelerator ``data``, returned as is unless it holds a key of :data:`RAW_SHARING_KEYS`.

    Raises:
        PydanticCustomError: (``fail``, at that key) with the pool's refusal when :func:`refused_sharing_of_the_pool` gave one,
            else :func:`raw_sharing_refusal` of the value.
    """
    for key in RAW_SHARING_KEYS:
        if isinstance(data, dict) and key in data:
            value = data[key]
            raise fail(value.refusal if isinstance(value, RefusedSharing) else raw_sharing_refusal(value), at=(key,))
    return data
