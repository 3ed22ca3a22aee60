"""The pack's rules, one module per policy (``<policy id with underscores>.py``); :mod:`.pack` lists them.

Each rule module exports its policy object as ``POLICY`` (a ``pulumi_policy``
``ResourceValidationPolicy`` or ``StackValidationPolicy``), e.g.
``rules.no_imperative_taints.POLICY.name == "no-imperative-taints"``; a resource policy's module
also exports ``judges(resource_type) -> bool``. ``POLICIES`` is every ``POLICY`` in pack order.
"""

from __future__ import annotations

from . import (
    admission_policies_match_pools,
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
from .pack import CONFIG_DEFAULTS, JUDGES, PACK_NAME, POLICIES

__all__ = [
    "CONFIG_DEFAULTS",
    "JUDGES",
    "PACK_NAME",
    "POLICIES",
    "admission_policies_match_pools",
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
