"""The CrossGuard policy pack of gpu-node-pools, importable without starting a gRPC server.

``policy/__main__.py`` builds the ``PolicyPack`` from :data:`POLICIES`; ``gpupool plan``
and the tests evaluate the same objects in-process with :func:`evaluate`.

(DESIGN.md puts the policies in ``policy/gpu_node_policies/``; they live in the installed
package instead, so that the plan and the tests import them without ``sys.path`` tricks.)

Policies (id, default level), in pack order (``rules.pack.POLICIES``):

1. ``no-imperative-taints`` (mandatory)
2. ``gpu-pool-declares-taint`` (mandatory)
3. ``daemonsets-tolerate-gpu-taints`` (mandatory, stack)
4. ``device-plugin-covers-gpu-pools`` (mandatory, stack)
5. ``gpu-toleration-allowlist`` (mandatory, stack)
6. ``daemonsets-tolerate-exactly`` (advisory, stack)
7. ``gpu-workloads-select-gpu-nodes`` (advisory, stack)
8. ``gpu-limits-well-formed`` (mandatory)
9. ``noexecute-gpu-taint`` (advisory)
10. ``scale-from-zero-hints`` (advisory, stack)
11. ``registration-taints-visible`` (mandatory, stack)
12. ``karpenter-startup-taints`` (advisory, stack)
13. ``gpu-workloads-tolerate-their-pool`` (advisory, stack)
14. ``gpu-agents-cover-gpu-pools`` (mandatory, stack)
15. ``resources-judged`` (advisory, stack)
16. ``admission-policies-match-pools`` (mandatory, stack)

The names below are given lazily (``__getattr__``): the rules build ``pulumi_policy`` objects,
and importing a reader of this room (``policies.daemonset_nodes``, ``policies.workloads``), as
``gpupool audit`` does, must not import ``pulumi_policy`` and ``pulumi``.
"""

from typing import Any

PACK_DESCRIPTION = (
    "Keeps Kubernetes GPU nodes for GPU work: taints declared on the pools (never imperatively), "
    "DaemonSets and the NVIDIA device plugin that tolerate them, GPU tolerations only where allowed, "
    "well-formed nvidia.com/gpu limits."
)

__all__ = [
    "PACK_NAME",
    "PACK_DESCRIPTION",
    "POLICIES",
    "CONFIG_DEFAULTS",
    "PolicyConfigError",
    "StackResource",
    "evaluate",
    "load_policy_pack_config",
    "resolve_config",
]

_LAZY = {
    "CONFIG_DEFAULTS": ".rules", "PACK_NAME": ".rules", "POLICIES": ".rules",
    "PolicyConfigError": ".pack_config", "StackResource": ".runner", "evaluate": ".runner",
    "load_policy_pack_config": ".pack_config", "resolve_config": ".pack_config",
}


def __getattr__(name: str) -> Any:
    """The pack's names, imported from ``.rules``/``.runner``/``.pack_config`` on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value
