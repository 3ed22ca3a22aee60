"""The pack's rules, one module per policy (``<policy id with underscores>.py``); :mod:`.pack` lists them."""

from __future__ import annotations

from .pack import (
    CONFIG_DEFAULTS,
    JUDGES,
    PACK_NAME,
    POLICIES,
    daemonsets_tolerate_gpu_taints,
    device_plugin_covers_gpu_pools,
    gpu_agents_cover_gpu_pools,
    gpu_limits_well_formed,
    gpu_pool_declares_taint,
    gpu_toleration_allowlist,
    gpu_workloads_select_gpu_nodes,
    gpu_workloads_tolerate_their_pool,
    karpenter_startup_taints,
    no_imperative_taints,
    noexecute_gpu_taint,
    registration_taints_visible,
    resources_judged,
    scale_from_zero_hints,
)

__all__ = [
    "CONFIG_DEFAULTS",
    "JUDGES",
    "PACK_NAME",
    "POLICIES",
    "daemonsets_tolerate_gpu_taints",
    "device_plugin_covers_gpu_pools",
    "gpu_agents_cover_gpu_pools",
    "gpu_limits_well_formed",
    "gpu_pool_declares_taint",
    "gpu_toleration_allowlist",
    "gpu_workloads_select_gpu_nodes",
    "gpu_workloads_tolerate_their_pool",
    "karpenter_startup_taints",
    "no_imperative_taints",
    "noexecute_gpu_taint",
    "registration_taints_visible",
    "resources_judged",
    "scale_from_zero_hints",
]
