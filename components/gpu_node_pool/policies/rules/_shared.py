"""What the pack's rules share: config defaults, taint parsing, the stack's GPU pools found once per evaluation, message helpers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pulumi_policy import (
    StackValidationArgs,
)

from ...config import DEFAULT_TAINT
from ...config.defaults import GPU_TOLERATION_ALLOWED_NAMESPACES
from ...k8s.labels import DEFAULT_GPU_LABEL
from ...k8s.names import DNS1123_LABEL_MAX, DNS1123_LABEL_RE, DNS1123_LABEL_RULE
from ...k8s.refusals import NAMESPACE_SOURCE
from ...k8s.taints import Taint, TaintEffect, TaintError, Toleration
from ...k8s.wellknown import NVIDIA_GPU_RESOURCE, NVIDIA_MIG_RESOURCE_PREFIX, NVIDIA_SHARED_GPU_RESOURCE
from ...sdk.props import Undecided, derived
from ..placement import StackPlacements
from ..pools import (
    GpuPool,
    find_gpu_pools,
)

PACK_NAME = "gpu-node-pools"
GPU_RESOURCE = NVIDIA_GPU_RESOURCE

_NS, _NE = TaintEffect.NO_SCHEDULE.value, TaintEffect.NO_EXECUTE.value
_EFFECTS = "|".join(e.value for e in TaintEffect)
#: JSON-schema pattern of a taint in kubelet form (``key[=value]:Effect``).
TAINT_PATTERN = rf"^[^=:\s]+(=[^:\s]*)?:({_EFFECTS})$"
_TAINT_LIST = {"type": "array", "items": {"type": "string", "pattern": TAINT_PATTERN}}
#: A list of namespace names: each a DNS-1123 label, as the API server takes a namespace's name
#: (``ValidateNamespaceName``, kubernetes ``pkg/apis/core/validation/validation.go``), so that each entry can match one.
NAMESPACE_LIST = {"type": "array",
                  "items": {"type": "string", "pattern": DNS1123_LABEL_RE.pattern, "maxLength": DNS1123_LABEL_MAX}}
#: What a value of each pattern above is, for a message about one that is not (:mod:`gpu_node_pool.policies.pack_config`).
PATTERN_RULES = {
    TAINT_PATTERN: "a taint in the kubelet form key=value:Effect (the value may be empty: key:Effect)",
    DNS1123_LABEL_RE.pattern: (f"a namespace name, which is {DNS1123_LABEL_RULE} ({NAMESPACE_SOURCE}), so no "
                               "namespace is named otherwise"),
}
_DECLARE = (
    "Declare taints in the pool definition, where they survive node replacement: GpuNodePool `taints` "
    "(aws.eks.NodeGroup taints, gcp.container.NodePool node_config.taints, Karpenter NodePool "
    "spec.template.spec.taints, or kubelet registerWithTaints in self-managed user data)."
)

#: Config defaults per policy (also the JSON-schema ``default`` of each property).
CONFIG_DEFAULTS: dict[str, dict[str, Any]] = {
    "daemonsets-tolerate-gpu-taints": {
        "exemptions": [],
        "extraTaints": [],
        "extraPoolLabels": {DEFAULT_GPU_LABEL[0]: DEFAULT_GPU_LABEL[1]},
    },
    "gpu-toleration-allowlist": {
        "allowedNamespaces": list(GPU_TOLERATION_ALLOWED_NAMESPACES),
        "extraTaints": [str(DEFAULT_TAINT)],
    },
    "daemonsets-tolerate-exactly": {"allowedNamespaces": list(GPU_TOLERATION_ALLOWED_NAMESPACES)},
    "gpu-workloads-select-gpu-nodes": {
        "extraTaints": [str(DEFAULT_TAINT)],
        "gpuLabels": [f"{DEFAULT_GPU_LABEL[0]}={DEFAULT_GPU_LABEL[1]}"],
    },
    # every GPU resource of wellknown.is_gpu_resource: whole, shared (renamed) and MIG devices; "*" ends a prefix
    "gpu-limits-well-formed": {"resourceNames": [GPU_RESOURCE, NVIDIA_SHARED_GPU_RESOURCE, NVIDIA_MIG_RESOURCE_PREFIX + "*"]},
    "gpu-workloads-tolerate-their-pool": {"admissionPlugins": []},
    "resources-judged": {"strict": False},
}


def _config(args: Any, policy: str) -> dict[str, Any]:
    config = dict(CONFIG_DEFAULTS.get(policy, {}))
    config.update({k: v for k, v in dict(args.get_config() or {}).items() if v is not None})
    return config


def _parse_taints(values: Iterable[Any]) -> list[Taint]:
    out = []
    for value in values or []:
        try:
            out.append(Taint.parse(value))
        except TaintError:
            continue  # the config schema rejects these before a policy runs
    return out


def _stack_pools(args: StackValidationArgs, undecided: Undecided) -> list[GpuPool]:
    """:func:`find_gpu_pools` over the stack's resources; found once per evaluation when the
    runner gives the stack policies a shared cache (``args.derived``, see
    :func:`gpu_node_pool.sdk.props.derived`), which the SDK does not: then each policy
    finds them. Policies only read the pools."""
    cache = derived(args)
    if cache is None:
        return find_gpu_pools(args.resources, undecided)
    found = cache.get("gpu_pools")
    if found is None:
        seen = Undecided()
        found = cache["gpu_pools"] = (find_gpu_pools(args.resources, seen), list(seen.items))
    pools, unknowns = found
    for what, err in unknowns:
        undecided.add(what, err)
    return list(pools)


def _stack_placements(args: StackValidationArgs) -> StackPlacements:
    """The placements of agents on the stack's pools (:func:`_stack_pools`): one
    :class:`~gpu_node_pool.policies.placement.StackPlacements` per evaluation when the runner gives the stack
    policies a shared cache (``args.derived``), else a new one."""
    cache = derived(args)
    if cache is None:
        return StackPlacements()
    found = cache.get("placements")
    if found is None:
        found = cache["placements"] = StackPlacements()
    return found


def _resource(res: Any) -> str:
    return f"{res.resource_type} {res.name}"


def _fmt(taints: Iterable[Taint]) -> str:
    return ", ".join(str(t) for t in taints)


def _describe_tolerations(tolerations: Sequence[Toleration]) -> str:
    return "[" + ", ".join(str(t) for t in tolerations) + "]" if tolerations else "none"


def _stack_gpu_taints(args: StackValidationArgs, config: Mapping[str, Any], undecided: Undecided) -> list[Taint]:
    return _gpu_taints(_stack_pools(args, undecided), config)


def _gpu_taints(pools: Iterable[GpuPool], config: Mapping[str, Any]) -> list[Taint]:
    """The distinct taints of ``pools`` and of the policy's ``extraTaints``, in order."""
    taints: list[Taint] = []
    for pool in pools:
        taints += [t for t in pool.taints if t not in taints]
    taints += [t for t in _parse_taints(config.get("extraTaints")) if t not in taints]
    return taints


#: The fix of a pod spec the API server refuses (:data:`gpu_node_pool.k8s.refusals.REFUSED`): the reason says what
#: to write (its rule and source are :mod:`gpu_node_pool.k8s.refusals`').
REFUSED_FIX = "correct the field the reason names (it says what to write): the API server creates no such object"
#: The fix of a placement whose selection reads labels only a discovery agent sets, or that nothing known sets.
SELECTION_FIX = ("install the discovery agent it names in the stack, or select on labels the pool declares; after "
                 "apply, `gpupool audit` judges the selection against the live nodes' labels")
#: The fix of a DaemonSet pinned by ``nodeName`` to a node whose name is known only once it launches.
PINNED_FIX = ("select the pool's nodes by a label the pool declares (nodeSelector or required node affinity) instead "
              "of nodeName; after apply, `gpupool audit` judges the pinned node")


def placement_fix(placement: Any) -> str:
    """The fix of a placement not judged (:meth:`gpu_node_pool.policies.placement.Placement.not_judged_text`):
    :data:`REFUSED_FIX` for a refused pod spec, :data:`PINNED_FIX` for a ``nodeName``, else :data:`SELECTION_FIX`."""
    if placement.refused:
        return REFUSED_FIX
    if placement.pinned:
        return PINNED_FIX
    return SELECTION_FIX
