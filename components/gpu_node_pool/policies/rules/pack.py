"""The pack: every rule, in the order of the README table, and its name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import gpu_limits_well_formed as _limits
from . import gpu_pool_declares_taint as _declares
from . import no_imperative_taints as _imperative
from . import noexecute_gpu_taint as _noexecute
from ._shared import CONFIG_DEFAULTS, PACK_NAME
from .daemonsets_tolerate_gpu_taints import daemonsets_tolerate_gpu_taints
from .device_plugin_covers_gpu_pools import device_plugin_covers_gpu_pools
from .gpu_agents_cover_gpu_pools import gpu_agents_cover_gpu_pools
from .gpu_limits_well_formed import gpu_limits_well_formed
from .gpu_pool_declares_taint import gpu_pool_declares_taint
from .gpu_toleration_allowlist import gpu_toleration_allowlist
from .gpu_workloads_select_gpu_nodes import gpu_workloads_select_gpu_nodes
from .gpu_workloads_tolerate_their_pool import gpu_workloads_tolerate_their_pool
from .karpenter_startup_taints import karpenter_startup_taints
from .no_imperative_taints import no_imperative_taints
from .noexecute_gpu_taint import noexecute_gpu_taint
from .registration_taints_visible import registration_taints_visible
from .resources_judged import resources_judged
from .scale_from_zero_hints import scale_from_zero_hints

__all__ = ["PACK_NAME", "POLICIES", "CONFIG_DEFAULTS", "JUDGES"]

#: Every policy of the pack, in the order of the README table.
POLICIES: list[Any] = [
    no_imperative_taints,
    gpu_pool_declares_taint,
    daemonsets_tolerate_gpu_taints,
    device_plugin_covers_gpu_pools,
    gpu_toleration_allowlist,
    gpu_workloads_select_gpu_nodes,
    gpu_limits_well_formed,
    noexecute_gpu_taint,
    scale_from_zero_hints,
    registration_taints_visible,
    karpenter_startup_taints,
    gpu_workloads_tolerate_their_pool,
    gpu_agents_cover_gpu_pools,
    resources_judged,
]


#: Resource policy name -> ``(the policy, which resource types it reads)``. For any other type its
#: validator returns at once, reading nothing, so :func:`gpu_node_pool.policies.evaluate` does not
#: call it there (a preview's analyzer calls it for every resource anyway). The runner applies a
#: predicate only to the very policy object it was written for.
JUDGES: dict[str, tuple[Any, Callable[[str], bool]]] = {
    no_imperative_taints.name: (no_imperative_taints, _imperative.judges),
    gpu_pool_declares_taint.name: (gpu_pool_declares_taint, _declares.judges),
    gpu_limits_well_formed.name: (gpu_limits_well_formed, _limits.judges),
    noexecute_gpu_taint.name: (noexecute_gpu_taint, _noexecute.judges),
}
