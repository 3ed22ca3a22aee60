"""Karpenter's NodeOverlay for pools that share or partition GPUs: ``nodeOverlay: {enabled: true, weight?}``.

Karpenter computes an instance type's ``nvidia.com/gpu`` from its physical GPUs and knows no
``nvidia.com/mig-*`` (kubernetes-sigs/karpenter#729, aws/karpenter-provider-aws#3376), so a pod asking for
more time-sliced replicas than physical GPUs, or for a MIG device, never triggers a node. A NodeOverlay
(``karpenter.sh/v1alpha1``, cluster-scoped) changes the capacity Karpenter's scheduling simulation
assumes for the instance types its ``spec.requirements`` select. Facts, all at
kubernetes-sigs/karpenter and aws/karpenter-provider-aws v1.14.1:

* Alpha, behind the feature gate ``NodeOverlay`` (default ``false``), since v1.7.x
  (``website/content/en/docs/reference/settings.md``, Feature Gates); the Helm chart sets it with
  ``settings.featureGates.nodeOverlay: true`` (``charts/karpenter/values.yaml``, rendered into
  ``FEATURE_GATES`` by ``templates/deployment.yaml``). With the gate off Karpenter ignores every
  NodeOverlay (``pkg/cloudprovider/overlay/cloudprovider.go``).
* ``spec.capacity``: a ResourceList; ``cpu``, ``memory``, ``ephemeral-storage`` and ``pods`` are refused
  (CRD CEL rule, ``nodeoverlay_validation.go`` ``WellKnownResources``). It is merged into the type's
  capacity with ``lo.Assign`` (``pkg/cloudprovider/types.go`` ``ApplyCapacityOverlay``), so a resource the
  type already has, ``nvidia.com/gpu``, takes the overlay's value. The CRD description and the docs page
  (``concepts/nodeoverlays.md``) say capacity "adds extended resources only, and does not replace any
  existing resources": the code replaces, the documentation does not promise it, so a pool whose overlay
  sets ``nvidia.com/gpu`` (time-slicing, MPS, MIG ``single``) gets a warning to check it on the installed
  version. ``nvidia.com/mig-<profile>`` (MIG ``mixed``) is a resource Karpenter does not compute: the
  documented use.
* ``spec.requirements``: node selector requirements over well-known labels and the NodePool's labels; an
  overlay applies to an instance type of a NodePool only if they match (``pkg/controllers/nodeoverlay/
  controller.go`` ``getOverlaidOfferings``). Rendered here: ``karpenter.sh/nodepool In [<pool>]`` and
  ``node.kubernetes.io/instance-type In [<types>]``, one overlay per distinct capacity (GPU count and, with
  MIG, instances per GPU), the types from the catalog evaluation of the NodePool (:mod:`.feasibility`).
* ``spec.weight`` 1-10000 (higher first; of two overlays of one weight on one resource the second is
  refused as a conflict). ``price``/``priceAdjustment`` are not rendered.
* ``spec.limits`` of the NodePool are checked against the overlaid capacity of the types the scheduler may
  launch (``pkg/controllers/provisioning/scheduling/scheduler.go`` ``filterByRemainingResources``, the types
  overlaid by ``pkg/cloudprovider/overlay/cloudprovider.go`` ``GetInstanceTypes``) and against the NodePool's usage,
  the sum of its nodes' own capacity (``updateRemainingResources``; ``pkg/controllers/state/statenode.go``
  ``Capacity``: a node's ``status.capacity`` once initialized). With the overlay, ``limits.nvidia.com/gpu`` counts
  replicas or MIG devices: a type whose overlaid figure exceeds it is never launched (refused here), and the pool
  tops out at limit / (per GPU) physical GPUs (a warning with the limit that caps the physical GPUs meant). A MIG
  ``mixed`` node advertises no ``nvidia.com/gpu`` (NVIDIA/k8s-device-plugin@v0.20.0 ``internal/rm/device_map.go``),
  so running nodes use none of ``limits.nvidia.com/gpu`` while Karpenter still assumes the physical GPUs: a
  warning, which the plan's ``karpenterCapacity`` says in the same words (:func:`differs_sentence`).

The capacity of each type is :func:`gpu_node_pool.gpu_agents.capacity.type_resources`, the figure the
node's device plugin advertises (the same function the Cluster Autoscaler tags use). The CRD copy the
tests validate against is ``tests/data/karpenter-crds/karpenter.sh_nodeoverlays.yaml``. Pure (no Pulumi).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from ...config.common import Model
from ...gpu_agents.sharing import STRATEGY_NAMES
from ...k8s.quantity import parse_quantity
from ...k8s.wellknown import NVIDIA_GPU_RESOURCE, is_gpu_resource
from ...text.listing import listed
from .limits import karpenter_release

__all__ = [
    "FEATURE_GATE",
    "HELM_VALUE",
    "NODE_OVERLAY_API_VERSION",
    "NODE_OVERLAY_SINCE",
    "KarpenterNodeOverlay",
    "OverlayGroup",
    "enabled",
    "groups",
    "differs_sentence",
    "karpenter_view",
    "manifests",
    "pool_problems",
    "pool_warnings",
    "version_issue",
]

NODE_OVERLAY_API_VERSION = "karpenter.sh/v1alpha1"
NODE_OVERLAY_KIND = "NodeOverlay"
#: The first Karpenter release with NodeOverlay (settings.md Feature Gates table: "NodeOverlay | false | Alpha | v1.7.x").
NODE_OVERLAY_SINCE = (1, 7)
FEATURE_GATE = "NodeOverlay"
HELM_VALUE = "settings.featureGates.nodeOverlay"
NODEPOOL_LABEL = "karpenter.sh/nodepool"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
DOCS = "https://karpenter.sh/docs/concepts/nodeoverlays/"
_GATE_SOURCE = ("aws/karpenter-provider-aws website/content/en/docs/reference/settings.md@v1.14.1, Feature Gates; "
                "charts/karpenter/values.yaml@v1.14.1")
_MERGE_SOURCE = "kubernetes-sigs/karpenter pkg/cloudprovider/types.go@v1.14.1 ApplyCapacityOverlay"
_LIMIT_SOURCE = "kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/scheduler.go@v1.14.1 filterByRemainingResources"
#: Where the limits meet the overlay: the scheduler's instance types come overlaid from the decorated cloud provider, and
#: a launched node is subtracted from what remains by its own capacity (the device plugin's count once initialized).
_OVERLAID_LIMITS_SOURCE = (
    f"{_LIMIT_SOURCE} and updateRemainingResources; pkg/cloudprovider/overlay/cloudprovider.go@v1.14.1 GetInstanceTypes"
)
#: A NodePool's usage, which its limits are checked against: the sum of its nodes' capacity, a node's own
#: ``status.capacity`` once it is initialized, the NodeClaim's before.
_USAGE_SOURCE = ("kubernetes-sigs/karpenter pkg/controllers/state/statenode.go@v1.14.1 Capacity, "
                 "pkg/controllers/state/cluster.go@v1.14.1 updateNodePoolResources")
#: Under a MIG strategy the device plugin advertises no GPU with MIG enabled as nvidia.com/gpu (a mixed node: only
#: nvidia.com/mig-<profile>).
_MIG_WHOLE_SOURCE = "NVIDIA/k8s-device-plugin@v0.20.0 internal/rm/device_map.go buildGPUDeviceMap"


class KarpenterNodeOverlay(Model):
    """``nodeOverlay`` on a karpenter pool with ``gpuSharing`` or ``mig``: render Karpenter NodeOverlays
    (``karpenter.sh/v1alpha1``, alpha since Karpenter v1.7 behind the ``NodeOverlay`` feature gate, Helm
    ``settings.featureGates.nodeOverlay: true``; https://karpenter.sh/docs/concepts/nodeoverlays/) that tell
    Karpenter the capacity the pool's nodes advertise: ``nvidia.com/gpu`` = GPUs x replicas (time-slicing,
    MPS), MIG devices per node (``single``: ``nvidia.com/gpu``; ``mixed``: ``nvidia.com/mig-<profile>``).

    ``weight``: 1-10000, the overlay's precedence over other NodeOverlays on the same instance types
    (Karpenter's default 0 when unset).
    """

    enabled: bool = Field(True, description="Render one NodeOverlay per GPU capacity of the pool's instance types.")
    weight: int | None = Field(None, ge=1, le=10000, description="1-10000; precedence over other NodeOverlays (default none: 0).")


@dataclass(frozen=True)
class OverlayGroup:
    """The instance types of the pool that advertise the same ``capacity`` (``{resource: per node}``)."""

    gpus: int
    capacity: tuple[tuple[str, int], ...]
    types: tuple[str, ...]


def enabled(pool: Any) -> bool:
    """Whether ``pool`` renders NodeOverlays: ``nodeOverlay.enabled`` with ``gpuSharing`` or ``mig``."""
    overlay = getattr(pool, "node_overlay", None)
    return overlay is not None and overlay.enabled and (pool.gpu_sharing is not None or pool.mig is not None)


def groups(pool: Any) -> tuple[list[OverlayGroup], str | None]:
    """``(groups, why)``: the pool's candidate GPU types grouped by advertised capacity, or ``([], reason)``
    when the set or a type's capacity is not knowable (``why`` is a sentence with the fix)."""
    from ...catalog.requirements import RequirementError
    from ...gpu_agents.capacity import type_resources
    from .._shared.capacity import unknown_type_findings
    from .feasibility import evaluation

    if pool.allow_unknown_instance_types and unknown_type_findings(pool.instance_types or [], True)[1]:
        return [], ("the NodePool names instance types the catalog lacks (allowUnknownInstanceTypes), so their GPUs and "
                    "the overlay's capacity are not known; list catalog types, or remove nodeOverlay")
    try:
        result = evaluation(pool.requirement_list, pool.limits)
    except RequirementError as err:
        return [], f"the NodePool's requirements cannot be evaluated ({err})"
    unknowable = type_level_unknowns(result)
    if unknowable:
        return [], (f"the instance types the NodePool can launch are not knowable (requirement on {unknowable[0]!r}, a "
                    "well-known instance label the catalog does not model), so the overlay cannot name them; select "
                    "types with instanceTypes, instanceFamilies, gpuCounts or gpuNames")
    found: dict[tuple[int, tuple[tuple[str, int], ...]], list[str]] = {}
    unknown: list[str] = []
    for t in result.gpu_candidates:
        capacity = type_resources(pool, t.name)
        if not capacity:
            unknown.append(t.name)
            continue
        found.setdefault((t.nvidia_gpus, tuple(sorted(capacity.items()))), []).append(t.name)
    if unknown:
        if pool.mig is not None:  # each type named with its GPU
            return [], (f"the MIG devices the pool's nodes advertise are not known ({_mig_unknown(pool.mig.profile, sorted(unknown))}); "
                        "restrict the pool to types whose figure is known, or remove nodeOverlay")
        return [], (f"the GPUs a node of {', '.join(sorted(unknown))} advertises are not known; restrict the pool "
                    "to types whose figure is known, or remove nodeOverlay")
    out = [OverlayGroup(gpus, capacity, tuple(sorted(types))) for (gpus, capacity), types in sorted(found.items())]
    return out, None


def _mig_unknown(profile: str, types: list[str]) -> str:
    """Why a MIG pool's types have no known figure, per GPU: the GPU does not support MIG
    (:func:`gpu_node_pool.gpu_agents.mig.no_mig_message`, the wording of every backend; the pool model refuses it
    first), the GPU's table (:data:`gpu_node_pool.gpu_agents.mig_profiles.MIG_PROFILES`, with its source) lacks
    ``profile``, or no table is known for the GPU (the EC2 GPUs that have one:
    :func:`gpu_node_pool.gpu_agents.mig.tabled_aws_gpus`). Every type is named."""
    from types import SimpleNamespace

    from ...gpu_agents.mig import gpus_without_mig, mig_gpu, no_mig_message, tabled_aws_gpus

    lacking: dict[str, tuple[Any, list[str]]] = {}
    untabled: dict[str, list[str]] = {}
    no_mig, _ = gpus_without_mig(types)
    for t in types:
        if any(t in ts for ts in no_mig.values()):
            continue
        _, model, table = mig_gpu(SimpleNamespace(instance_types=[t], gpu_model=None))
        if table is not None:
            lacking.setdefault(table.model, (table, []))[1].append(t)
        else:
            untabled.setdefault(model or "a GPU the catalog does not name", []).append(t)
    parts = [no_mig_message(no_mig)] if no_mig else []
    parts += [f"{profile!r} is not in the MIG profile table of {gpu} ({', '.join(ts)}), which has "
              f"{', '.join(table)} ({table.source})" for gpu, (table, ts) in sorted(lacking.items())]
    parts += [f"no MIG profile table is known for {gpu} ({', '.join(ts)}; the EC2 GPUs with one: {tabled_aws_gpus()})"
              for gpu, ts in sorted(untabled.items())]
    return "; ".join(parts)


def _profile_refused_elsewhere(pool: Any) -> bool:
    """Whether ``pools[i].mig.profile`` is already refused because the pool's one GPU table lacks the profile
    (:func:`gpu_node_pool.gpu_agents.mig.mig_gpu` over the pool's types, the table that check reads), so an
    unknown overlay figure needs no second message."""
    from ...gpu_agents.mig import mig_gpu

    if pool.mig is None:
        return False
    _, _, table = mig_gpu(pool)
    return table is not None and pool.mig.profile not in table


#: Label domains of instance-type labels (Kubernetes' and Karpenter's well-known labels): a requirement on one the
#: catalog does not model may drop instance types; any other key is a custom node label, which Karpenter writes on
#: the node and which selects no instance type (https://karpenter.sh/docs/concepts/scheduling/, Well-Known Labels).
_INSTANCE_LABEL_DOMAINS = ("karpenter.k8s.aws/", "kubernetes.io/", "karpenter.sh/")


def type_level_unknowns(result: Any) -> list[str]:
    """The requirement keys of a catalog evaluation that may select instance types but were not evaluated."""
    out = []
    for step in result.steps:
        key = str(step.requirement.get("key", ""))
        if not step.evaluated and "does not model" in step.reason and any(d in key for d in _INSTANCE_LABEL_DOMAINS):
            out.append(key)
    return out


def overlay_names(pool: Any, found: list[OverlayGroup]) -> list[str]:
    """``<pool>-<N>gpu`` per group (``-<i>`` appended where two groups have the same GPU count)."""
    counts: dict[int, int] = {}
    for g in found:
        counts[g.gpus] = counts.get(g.gpus, 0) + 1
    seen: dict[int, int] = {}
    names = []
    for g in found:
        seen[g.gpus] = seen.get(g.gpus, 0) + 1
        names.append(f"{pool.name}-{g.gpus}gpu" + (f"-{seen[g.gpus]}" if counts[g.gpus] > 1 else ""))
    return names


def manifests(pool: Any) -> list[dict[str, Any]]:
    """The ``karpenter.sh/v1alpha1`` ``NodeOverlay`` objects of ``pool`` (``[]`` when :func:`enabled` is false).

    Each: ``metadata.name`` ``<pool>-<N>gpu``, ``metadata.labels`` ``{gpu-node-pools/pool: <pool>}``,
    ``spec.requirements`` ``[karpenter.sh/nodepool In [<pool>], node.kubernetes.io/instance-type In [<types>]]``,
    ``spec.capacity`` ``{<resource>: "<per node>"}`` and ``spec.weight`` when set. Equal inputs give equal lists.

    Raises:
        ValueError: the groups are not knowable (config validation refuses this first, :func:`pool_problems`).
    """
    from ...k8s.wellknown import POOL_LABEL_KEY

    if not enabled(pool):
        return []
    found, why = groups(pool)
    if why:
        raise ValueError(f"pool {pool.name!r}: nodeOverlay: {why}")
    out = []
    for name, group in zip(overlay_names(pool, found), found, strict=True):
        spec: dict[str, Any] = {
            "requirements": [
                {"key": NODEPOOL_LABEL, "operator": "In", "values": [pool.name]},
                {"key": INSTANCE_TYPE_LABEL, "operator": "In", "values": list(group.types)},
            ],
            "capacity": {resource: str(count) for resource, count in group.capacity},
        }
        if pool.node_overlay.weight is not None:
            spec["weight"] = pool.node_overlay.weight
        out.append({"apiVersion": NODE_OVERLAY_API_VERSION, "kind": NODE_OVERLAY_KIND,
                    "metadata": {"name": name, "labels": {POOL_LABEL_KEY: pool.name}}, "spec": spec})
    return out


def pool_problems(pool: Any) -> list[str]:
    """Refusals for a karpenter pool's ``nodeOverlay`` (sentences: rule, source, fix)."""
    overlay = getattr(pool, "node_overlay", None)
    if overlay is None or not overlay.enabled:
        return []
    if pool.gpu_sharing is None and pool.mig is None:
        return ["nodeOverlay: the pool has neither gpuSharing nor mig, so its nodes advertise their physical GPUs, "
                "which Karpenter already counts (kubernetes-sigs/karpenter#729); remove nodeOverlay"]
    found, why = groups(pool)
    if why:
        return [] if _profile_refused_elsewhere(pool) else [f"nodeOverlay: {why}"]
    problems = []
    for resource, raw in pool.limits.items():
        over = [(g, dict(g.capacity)[resource]) for g in found if resource in dict(g.capacity)]
        if isinstance(raw, int | str) and str(raw).isdigit():
            too_big = [(g, n) for g, n in over if n > int(raw)]
            if too_big:
                g, n = max(too_big, key=lambda x: x[1])
                problems.append(
                    f"nodeOverlay: limits.{resource} is {raw} but a node of {listed(g.types, 4)} counts {n} {resource} with "
                    f"the overlay; Karpenter checks limits against the overlaid capacity ({_LIMIT_SOURCE}) and never "
                    f"launches those types: raise limits.{resource} to at least {n} (it now counts "
                    f"{'MIG devices' if pool.mig is not None else 'shared replicas'}, not physical GPUs)"
                )
    return problems


def pool_warnings(pool: Any) -> list[tuple[str, str]]:
    """``[(sub-path, message)]``: ``nvidia.com/gpu`` replaced by the overlay; ``limits['nvidia.com/gpu']`` counting
    replicas or MIG devices (:func:`_overlaid_limit_warning`); MIG ``mixed`` leaves Karpenter's ``nvidia.com/gpu`` in
    place, said with the sentence the plan's ``karpenterCapacity`` gives (:func:`differs_sentence`). The feature gate
    is :func:`version_issue`'s (a stack warning)."""
    if not enabled(pool):
        return []
    found, why = groups(pool)
    if why:
        return []
    out: list[tuple[str, str]] = []
    resources = {r for g in found for r, _ in g.capacity}
    if NVIDIA_GPU_RESOURCE in resources:
        out.append(("nodeOverlay", (
            f"the overlay sets {NVIDIA_GPU_RESOURCE}, which Karpenter already computes: v1.14.1 replaces it with the "
            f"overlay's value ({_MERGE_SOURCE}: lo.Assign), but the CRD and {DOCS} say capacity adds extended "
            "resources and does not replace existing ones; check on your Karpenter version that a pod requesting "
            "more than the physical GPUs gets a node")))
    limit = _overlaid_limit_warning(pool, found)
    if limit:
        out.append((f"limits['{NVIDIA_GPU_RESOURCE}']", limit))
    if pool.mig is not None and pool.mig.strategy == "mixed":
        sentences = [differs_sentence(pool, {NVIDIA_GPU_RESOURCE: g.gpus, **dict(g.capacity)}, dict(g.capacity), g.types)
                     for g in found]
        text = "; ".join(s for s in sentences if s)
        if text:
            out.append(("nodeOverlay", f"MIG mixed: {text}"))
    return out


def _overlaid_limit_warning(pool: Any, found: list[OverlayGroup]) -> str | None:
    """Why ``limits['nvidia.com/gpu']`` is not a count of physical GPUs once the overlay sets ``nvidia.com/gpu`` to
    GPUs x replicas (time-slicing, MPS) or MIG devices (``single``): Karpenter checks the limit against the overlaid
    capacity of each type it may launch and subtracts each launched node's own capacity (:data:`_OVERLAID_LIMITS_SOURCE`),
    so the pool stops at limit / (per GPU) physical GPUs. None when the limit is not a whole number, the overlay
    sets no ``nvidia.com/gpu`` or one per GPU, or the types disagree on the figure per GPU. A limit below one node's
    figure is refused (:func:`pool_problems`)."""
    raw = pool.limits.get(NVIDIA_GPU_RESOURCE)
    value = parse_quantity(raw) if raw is not None else None
    if value is None or value.denominator != 1:
        return None
    per_gpu = {dict(g.capacity)[NVIDIA_GPU_RESOURCE] // g.gpus for g in found
               if g.gpus and NVIDIA_GPU_RESOURCE in dict(g.capacity)}
    if len(per_gpu) != 1 or (factor := per_gpu.pop()) <= 1:
        return None
    limit = int(value)
    if pool.gpu_sharing is not None:
        what = f"{STRATEGY_NAMES[pool.gpu_sharing.strategy]} replicas (gpuSharing.replicas {factor})"
    else:
        what = f"MIG devices (mig.profile {pool.mig.profile}: {factor} per GPU)"
    return (
        f"{raw} counts {what}, not physical GPUs: the NodeOverlay declares "
        f"{NVIDIA_GPU_RESOURCE}: {factor} per GPU, and Karpenter checks a NodePool's limits against the overlaid "
        f"capacity of the types it may launch and subtracts each node's own capacity ({_OVERLAID_LIMITS_SOURCE}), so "
        f"the pool tops out at {limit // factor} physical GPUs ({limit} / {factor}); a cap of N physical GPUs is "
        f"written N x {factor}: for {limit} physical GPUs, limits['{NVIDIA_GPU_RESOURCE}']: {limit * factor}"
    )


def differs_sentence(pool: Any, karpenter: Mapping[str, int], node: Mapping[str, int], types: Sequence[str]) -> str | None:
    """What Karpenter's simulation assumes a node of ``types`` has (``karpenter``: physical ``nvidia.com/gpu`` and the
    overlays' capacity) against what the node advertises (``node``), or None when they agree on every GPU resource
    (``nvidia.com/gpu``, ``nvidia.com/gpu.shared``, ``nvidia.com/mig-*``). A GPU resource Karpenter assumes that the
    node does not advertise differs too: under MIG ``mixed`` the node advertises no whole ``nvidia.com/gpu``
    (:data:`_MIG_WHOLE_SOURCE`), which no NodeOverlay removes. The one wording of the plan's ``karpenterCapacity``
    ``differs`` and of the MIG ``mixed`` config warning."""
    names = [*(r for r in karpenter if is_gpu_resource(r) and (r in node or karpenter[r])), *(r for r in node if r not in karpenter)]
    if all(karpenter.get(r, 0) == node.get(r, 0) for r in names):
        return None
    on = listed(sorted(types), 4)
    assumed = ", ".join(f"{r}: {karpenter.get(r, 0)}" for r in names)
    extra = [r for r in names if r not in node]
    advertised = ", ".join(f"{r}: {n}" for r, n in node.items()) + "".join(f" and no {r}" for r in extra)
    head = f"Karpenter's simulation assumes {assumed} on {on} while the node advertises {advertised}"
    if any(karpenter.get(r, 0) != n for r, n in node.items()):
        return (f"{head}: NodeOverlay capacity ({DOCS}) must declare what gpuSharing/mig advertise "
                "(nodeOverlay: {enabled: true} renders it)")
    if extra == [NVIDIA_GPU_RESOURCE] and pool.mig is not None and pool.mig.strategy == "mixed":
        wanted = ", ".join(node)
        uncapped = [r for r in node if r not in pool.limits]
        cap = (f"; cap the pool with {', '.join(f'limits[{r!r}]' for r in uncapped)} "
               f"({', '.join(f'{node[r]} per node' for r in uncapped)})" if uncapped else "")
        return (f"{head}: under MIG mixed the device plugin advertises no GPU with MIG enabled as {NVIDIA_GPU_RESOURCE} "
                f"({_MIG_WHOLE_SOURCE}), and a NodeOverlay adds extended resources without removing the ones Karpenter "
                f"computes ({DOCS}), so Karpenter may launch a node of this pool for a pod requesting "
                f"{NVIDIA_GPU_RESOURCE}, which never fits there: on this pool request {wanted} only, or use "
                f"mig.strategy: single (MIG devices advertised as {NVIDIA_GPU_RESOURCE}). And as Karpenter counts a "
                f"NodePool's usage from its nodes' own capacity ({_USAGE_SOURCE}), a running node counts no "
                f"{NVIDIA_GPU_RESOURCE}: limits['{NVIDIA_GPU_RESOURCE}'] caps only the nodes still launching{cap}")
    return f"{head}: remove {', '.join(extra)} from the NodeOverlay capacity that selects these types ({DOCS})"


def version_issue(pool: Any, karpenter_version: str | None) -> tuple[str, bool] | None:
    """``(message, refused)`` about the Karpenter version NodeOverlay needs, or None.

    ``karpenter_version``: ``cluster.karpenterVersion`` (``1.7``, ``v1.14.1``) or None when not stated (a
    warning that also names the gate). Below v1.7 refused: the cluster has no NodeOverlay CRD and the resource
    is refused by the API. At v1.7 or later a warning that the feature gate must be on (default off)."""
    if not enabled(pool):
        return None
    need = ".".join(map(str, NODE_OVERLAY_SINCE))
    if karpenter_version is None:
        return (
            f"nodeOverlay renders karpenter.sh/v1alpha1 NodeOverlays, which Karpenter has since v{need} behind the feature "
            f"gate {FEATURE_GATE} ({_GATE_SOURCE}); state the installed version with "
            f"gpu-node-pools:cluster.karpenterVersion (e.g. \"{need}\") and set Helm {HELM_VALUE}: true",
            False,
        )
    have = karpenter_release(karpenter_version)
    if have < NODE_OVERLAY_SINCE:
        return (
            f"cluster.karpenterVersion {karpenter_version!r}: NodeOverlay (karpenter.sh/v1alpha1) needs Karpenter >= v{need} "
            f"({_GATE_SOURCE}); this version has no NodeOverlay CRD: upgrade Karpenter to v{need} or later with "
            f"{HELM_VALUE}: true, or remove nodeOverlay",
            True,
        )
    return (
        f"NodeOverlay is alpha and Karpenter ignores it unless its feature gate {FEATURE_GATE} is on (default false; Helm "
        f"{HELM_VALUE}: true; {_GATE_SOURCE}); the plan cannot read the gate",
        False,
    )


# --- read back: what Karpenter's simulation assumes for the recorded NodePool --------------------------------


def _weight(spec: Any) -> int:
    weight = spec.get("weight") if isinstance(spec, dict) else None
    return weight if isinstance(weight, int) and not isinstance(weight, bool) else 0


def _capacity(raw: Any) -> dict[str, int] | None:
    if not isinstance(raw, dict):
        return {} if raw is None else None
    out = {}
    for resource, value in raw.items():
        if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).isdigit():
            return None  # a quantity that is not a whole count (or unknown at preview): not judged
        out[str(resource)] = int(value)
    return out


def karpenter_view(pool: Any, nodepool: dict[str, Any], overlays: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """What Karpenter's simulation assumes a node of the recorded NodePool has, against what the node advertises.

    Args:
        pool: the pool config model (what its nodes advertise: :func:`gpu_node_pool.gpu_agents.capacity.type_resources`).
        nodepool: the recorded NodePool inputs (``metadata.name``, ``spec.template.metadata.labels``,
            ``spec.template.spec.requirements``, ``spec.limits``).
        overlays: every recorded NodeOverlay ``(resource name, inputs)`` of the stack, the pool's and hand-written ones.

    Per candidate GPU type: the physical ``nvidia.com/gpu`` Karpenter computes, with the capacity of each overlay
    whose requirements match the NodePool (``karpenter.sh/nodepool``, its template labels) and the type (the catalog
    evaluation), applied in Karpenter's order (higher ``weight`` first, then the name later in the alphabet; the first
    overlay to set a resource wins; ``nodeoverlay.go`` ``OrderByWeight``, ``store.go``) and assigned over the
    type's capacity (``ApplyCapacityOverlay``).

    Returns:
        ``{overlays: [{name, created, instanceTypes, capacity, weight}], groups: [{types, karpenter, node}],
        agrees: bool | None, differs: [sentences], notJudged: [sentences]}``; ``agrees`` is None when nothing
        could be compared.
    """
    from ...catalog.requirements import RequirementError, evaluate
    from ...gpu_agents.capacity import type_resources
    from ...k8s.wellknown import POOL_LABEL_KEY
    from .feasibility import evaluation

    name = (nodepool.get("metadata") or {}).get("name")
    template = (nodepool.get("spec") or {}).get("template") or {}
    labels = dict((template.get("metadata") or {}).get("labels") or {})
    labels[NODEPOOL_LABEL] = name
    shown: list[dict[str, Any]] = []
    applying: list[tuple[int, str, list[dict[str, Any]], dict[str, int]]] = []
    not_judged: list[str] = []
    for res_name, inputs in overlays:
        spec = inputs.get("spec") if isinstance(inputs.get("spec"), dict) else {}
        meta = inputs.get("metadata") if isinstance(inputs.get("metadata"), dict) else {}
        overlay_name = meta.get("name") if isinstance(meta.get("name"), str) else res_name
        reqs = spec.get("requirements")
        capacity = _capacity(spec.get("capacity"))
        if not isinstance(reqs, list) or capacity is None or not all(isinstance(r, dict) for r in reqs):
            not_judged.append(f"NodeOverlay {overlay_name!r}: requirements or capacity not known at preview")
            continue
        node_level, type_level, applies = [], [], True
        for req in reqs:
            key, op, values = req.get("key"), req.get("operator"), [str(v) for v in req.get("values") or []]
            if key in labels:
                node_level.append((key, op, values))
                value = labels[key]
                ok = {"In": value in values, "NotIn": value not in values, "Exists": True, "DoesNotExist": False}.get(op)
                if ok is False:
                    applies = False
            else:
                type_level.append(req)
        if not applies:
            continue
        types = next((r.get("values") for r in reqs if r.get("key") == INSTANCE_TYPE_LABEL and r.get("operator") == "In"), None)
        shown.append({"name": overlay_name, "created": meta.get("labels", {}).get(POOL_LABEL_KEY) == pool.name,
                      "instanceTypes": list(types) if isinstance(types, list) else None, "capacity": capacity,
                      "weight": spec.get("weight")})
        applying.append((_weight(spec), overlay_name, type_level, capacity))
    applying.sort(key=lambda o: o[1], reverse=True)  # the name later in the alphabet first ...
    applying.sort(key=lambda o: -o[0])  # ... within each weight, higher weights first (a stable sort)
    spec = nodepool.get("spec") or {}
    try:
        candidates = evaluation(template.get("spec", {}).get("requirements") or [], spec.get("limits") or {}).gpu_candidates
    except (RequirementError, TypeError, ValueError) as err:
        return {"overlays": shown, "groups": [], "agrees": None, "differs": [],
                "notJudged": [*not_judged, f"the NodePool's candidate types: {err}"]}
    grouped: dict[tuple[Any, Any], list[str]] = {}
    for t in candidates:
        view = {NVIDIA_GPU_RESOURCE: t.nvidia_gpus}
        added: dict[str, int] = {}
        for _, _name, type_level, capacity in applying:
            try:
                matches = not type_level or t.name in {c.name for c in evaluate(type_level, None, [t]).candidates}
            except RequirementError:
                matches = False
            if matches:
                for resource, count in capacity.items():
                    added.setdefault(resource, count)  # the first (highest-weight) overlay to set it wins
        view.update(added)
        node = type_resources(pool, t.name)
        grouped.setdefault((tuple(sorted(view.items())), tuple(sorted(node.items()))), []).append(t.name)
    groups_out, differs, compared = [], [], False
    for (view, node), types in sorted(grouped.items()):
        karpenter, advertised = dict(view), dict(node)
        groups_out.append({"types": sorted(types), "karpenter": karpenter, "node": advertised})
        if not advertised:
            continue
        compared = True
        sentence = differs_sentence(pool, karpenter, advertised, types)
        if sentence:
            differs.append(sentence)
    return {"overlays": shown, "groups": groups_out, "agrees": (not differs) if compared else None,
            "differs": differs, "notJudged": not_judged}
