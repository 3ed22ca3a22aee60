"""The pack: every rule module's ``POLICY``, in the order of the README table, and the pack's name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import (
    admission_policies_match_pools,
    daemonsets_tolerate_exactly,
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
from ._shared import CONFIG_DEFAULTS, PACK_NAME

__all__ = ["PACK_NAME", "POLICIES", "CONFIG_DEFAULTS", "JUDGES"]

#: Every policy of the pack, in the order of the README table.
POLICIES: list[Any] = [
    no_imperative_taints.POLICY,
    gpu_pool_declares_taint.POLICY,
    daemonsets_tolerate_gpu_taints.POLICY,
    device_plugin_covers_gpu_pools.POLICY,
    gpu_toleration_allowlist.POLICY,
    daemonsets_tolerate_exactly.POLICY,
    gpu_workloads_select_gpu_nodes.POLICY,
    gpu_limits_well_formed.POLICY,
    noexecute_gpu_taint.POLICY,
    scale_from_zero_hints.POLICY,
    registration_taints_visible.POLICY,
    karpenter_startup_taints.POLICY,
    gpu_workloads_tolerate_their_pool.POLICY,
    gpu_agents_cover_gpu_pools.POLICY,
    resources_judged.POLICY,
    admission_policies_match_pools.POLICY,
]


#: Resource policy name -> ``(the policy, which resource types it reads)``. For any other type its
#: validator returns at once, reading nothing, so :func:`gpu_node_pool.policies.evaluate` does not
#: call it there (a preview's analyzer calls it for every resource anyway). The runner applies a
#: predicate only to the very policy object it was written for.
JUDGES: dict[str, tuple[Any, Callable[[str], bool]]] = {
    no_imperative_taints.POLICY.name: (no_imperative_taints.POLICY, no_imperative_taints.judges),
    gpu_pool_declares_taint.POLICY.name: (gpu_pool_declares_taint.POLICY, gpu_pool_declares_taint.judges),
    gpu_limits_well_formed.POLICY.name: (gpu_limits_well_formed.POLICY, gpu_limits_well_formed.judges),
    noexecute_gpu_taint.POLICY.name: (noexecute_gpu_taint.POLICY, noexecute_gpu_taint.judges),
}
