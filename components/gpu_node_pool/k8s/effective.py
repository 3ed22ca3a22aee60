"""What a pod tolerates on a real cluster beyond its own tolerations: the ExtendedResourceToleration
admission plugin and the DaemonSet controller (part of :mod:`gpu_node_pool.k8s.taints`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..text.terminal import shown
from . import refusals  # the module, not its names: refusals builds on taints, whose last import is this module
from .taints import TaintEffect, TaintError, Toleration, qualified_name_problem, toleration_from_k8s

# --- what the cluster adds: effective tolerations -----------------------------------------

#: The admission plugin that adds a toleration per requested extended resource.
EXTENDED_RESOURCE_TOLERATION = "ExtendedResourceToleration"

#: Control-plane platform -> whether ``ExtendedResourceToleration`` is on by default.
#: ``eks``: listed among the admission controllers every EKS platform version enables
#: (https://docs.aws.amazon.com/eks/latest/userguide/platform-versions.html; enabled with
#: Kubernetes 1.19, aws/containers-roadmap#739); Karpenter nodes join the same API server.
#: ``gke``: GKE documents that it adds the toleration to GPU-requesting pods
#: (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#taint). ``self-managed`` (kubeadm and any API
#: server you run): off unless ``--enable-admission-plugins`` names it, which the caller
#: passes as ``admission_plugins`` (the stack's ``cluster.admissionPlugins``).
_ADMISSION_DEFAULT: dict[str, bool] = {"eks": True, "gke": True, "self-managed": False}
_PLATFORM_ALIASES = {"kubeadm": "self-managed"}
#: The platforms :func:`effective_tolerations` knows (``kubeadm`` is read as ``self-managed``).
PLATFORMS = tuple(_ADMISSION_DEFAULT)
_EKS, _GKE, _SELF_MANAGED = PLATFORMS


def cluster_platform(platforms: Iterable[str]) -> str:
    """The one cluster platform of a stack from its pools' platforms (one of :data:`PLATFORMS`): GKE if
    any pool is, else EKS unless every pool is self-managed (kubeadm); EKS for no pools."""
    found = set(platforms) or {_EKS}
    return _GKE if _GKE in found else (_EKS if _EKS in found else _SELF_MANAGED)


def runs_own_api_server(platform: str) -> bool:
    """Whether the platform's API server is the user's own (``self-managed``, ``kubeadm``), so the stack's
    ``cluster.admissionPlugins`` describe it; EKS and GKE keep their documented defaults."""
    return _PLATFORM_ALIASES.get(platform, platform) == _SELF_MANAGED

#: What the DaemonSet controller adds to every daemon pod (``AddOrUpdateDaemonPodTolerations``
#: in kubernetes ``pkg/controller/daemon/util/daemonset_util.go``; documented in
#: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/#taints-and-tolerations).
DAEMONSET_CONTROLLER_TOLERATIONS: tuple[Toleration, ...] = (
    Toleration("node.kubernetes.io/not-ready", "Exists", effect=TaintEffect.NO_EXECUTE),
    Toleration("node.kubernetes.io/unreachable", "Exists", effect=TaintEffect.NO_EXECUTE),
    Toleration("node.kubernetes.io/disk-pressure", "Exists", effect=TaintEffect.NO_SCHEDULE),
    Toleration("node.kubernetes.io/memory-pressure", "Exists", effect=TaintEffect.NO_SCHEDULE),
    Toleration("node.kubernetes.io/pid-pressure", "Exists", effect=TaintEffect.NO_SCHEDULE),
    Toleration("node.kubernetes.io/unschedulable", "Exists", effect=TaintEffect.NO_SCHEDULE),
)
#: Added by the DaemonSet controller only to daemon pods with ``hostNetwork: true`` (same sources).
HOST_NETWORK_DAEMON_TOLERATIONS: tuple[Toleration, ...] = (
    Toleration("node.kubernetes.io/network-unavailable", "Exists", effect=TaintEffect.NO_SCHEDULE),
)


def is_extended_resource_name(name: Any) -> bool:
    """Whether a resource name is an *extended* resource (``nvidia.com/gpu``, ``example.com/fpga``).

    Kubernetes ``IsExtendedResourceName``: a qualified name with a domain prefix that is not
    ``kubernetes.io`` (native resources: ``cpu``, ``memory``, ``hugepages-*``, ``kubernetes.io/*``)
    and not starting with ``requests.`` (quota names).
    """
    if not isinstance(name, str) or "/" not in name or name.startswith("requests."):
        return False
    domain = name.split("/", 1)[0]
    if domain == "kubernetes.io" or domain.endswith(".kubernetes.io"):
        return False
    return qualified_name_problem(name) is None


def requested_extended_resources(pod_spec: Mapping[str, Any]) -> list[str]:
    """The extended resources any container or init container of ``pod_spec`` requests, sorted.

    A name in ``limits`` counts too: the API server defaults ``requests`` to ``limits`` before
    admission runs. Malformed containers are skipped (this reads, it does not validate).
    """
    names: set[str] = set()
    for group in ("containers", "initContainers"):
        containers = pod_spec.get(group) if isinstance(pod_spec, Mapping) else None
        for container in containers if isinstance(containers, (list, tuple)) else ():
            resources = container.get("resources") if isinstance(container, Mapping) else None
            for part in ("requests", "limits"):
                values = resources.get(part) if isinstance(resources, Mapping) else None
                if isinstance(values, Mapping):
                    names.update(n for n in values if is_extended_resource_name(n))
    return sorted(names)


def _platform(platform: str) -> str:
    name = _PLATFORM_ALIASES.get(platform, platform)
    if name not in _ADMISSION_DEFAULT:
        raise TaintError(
            f"platform {shown(platform)} is unknown; use one of {', '.join(PLATFORMS)} (kubeadm means self-managed)"
        )
    return name


def implied_tolerations(
    pod_spec: Mapping[str, Any],
    platform: str,
    kind: str,
    *,
    admission_plugins: Iterable[str] | None = None,
) -> list[tuple[Toleration, str]]:
    """The tolerations the cluster adds to a pod of ``kind`` with ``pod_spec``, each with who adds it.

    Args:
        pod_spec: a ``core/v1`` PodSpec as a plain mapping (camelCase).
        platform: the control plane: ``eks``, ``gke`` or ``self-managed`` (``kubeadm``).
        kind: the owner's kind: ``DaemonSet`` gets the DaemonSet controller's tolerations; any
            other kind (``Pod``, ``Deployment``, ``Job``...) only the admission-added ones.
        admission_plugins: the API server's enabled admission plugins when known (the stack's
            ``cluster.admissionPlugins``); None means the platform default.

    Returns:
        ``[(toleration, source)]``: ``source`` is ``"ExtendedResourceToleration admission"`` or
        ``"DaemonSet controller"``.

    Raises:
        TaintError: an unknown platform.
    """
    name = _platform(platform)
    enabled = (
        _ADMISSION_DEFAULT[name] if admission_plugins is None else EXTENDED_RESOURCE_TOLERATION in set(admission_plugins)
    )
    out: list[tuple[Toleration, str]] = []
    if enabled:
        # plugin/pkg/admission/extendedresourcetoleration: {key: R, operator: Exists, effect: NoSchedule}
        for resource in requested_extended_resources(pod_spec):
            out.append((Toleration(resource, "Exists", effect=TaintEffect.NO_SCHEDULE), f"{EXTENDED_RESOURCE_TOLERATION} admission"))
    if kind == "DaemonSet":
        added = list(DAEMONSET_CONTROLLER_TOLERATIONS)
        if isinstance(pod_spec, Mapping) and pod_spec.get("hostNetwork") is True:
            added += HOST_NETWORK_DAEMON_TOLERATIONS
        out += [(t, "DaemonSet controller") for t in added]
    return out


def _identity(t: Toleration) -> tuple[Any, ...]:
    """What ``MatchToleration`` compares: key, operator, value and effect (``tolerationSeconds`` aside)."""
    return (t.key, t.operator, t.value, t.effect)


def effective_tolerations(
    pod_spec: Mapping[str, Any],
    platform: str,
    kind: str,
    *,
    admission_plugins: Iterable[str] | None = None,
    tolerations: Iterable[Toleration] | None = None,
) -> list[Toleration]:
    """What a pod tolerates on a real cluster: its own tolerations plus what the cluster adds.

    The rules, in the order they are applied:

    1. The pod's ``spec.tolerations`` (or ``tolerations`` when the caller has read them already).
    2. ``ExtendedResourceToleration`` admission, when enabled (:func:`implied_tolerations` says
       where it is on by default): ``{key: R, operator: Exists, effect: NoSchedule}`` for every
       extended resource R any container or init container requests. Source:
       https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#extendedresourcetoleration
       and ``plugin/pkg/admission/extendedresourcetoleration/admission.go``.
    3. For ``kind == "DaemonSet"``, the DaemonSet controller's tolerations:
       ``node.kubernetes.io/not-ready`` and ``unreachable`` (NoExecute, no time limit);
       ``disk-pressure``, ``memory-pressure``, ``pid-pressure``, ``unschedulable`` (NoSchedule);
       ``network-unavailable`` (NoSchedule) for ``hostNetwork`` pods. Source:
       https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/#taints-and-tolerations
       and ``AddOrUpdateDaemonPodTolerations``.

    An added toleration replaces one with the same key, operator, value and effect
    (``AddOrUpdateTolerationInPodSpec``), so a DaemonSet's own ``not-ready`` toleration with
    ``tolerationSeconds`` becomes unlimited, as on the cluster. Adding to a live pod, which
    already carries them, changes nothing. (``DefaultTolerationSeconds`` is not modelled: its
    300-second not-ready/unreachable tolerations never concern GPU taints.)

    Raises:
        TaintError: an unknown platform, or a ``tolerations`` value in ``pod_spec`` the API server refuses (no
            list, or an item it refuses: :func:`gpu_node_pool.k8s.refusals.tolerations_refusal`; the message names
            ``tolerations[i]``, the rule, its source and the fix).
    """
    if tolerations is None:
        items = pod_spec.get("tolerations") if isinstance(pod_spec, Mapping) else None
        refusal = refusals.tolerations_refusal(items)
        if refusal:
            raise TaintError(refusal)
        # a list as the refusal reads one (any sequence but a string), every item one it accepts: the decoder, which
        # applies the same rules, takes each
        own = [toleration_from_k8s(item) for item in items or ()]
    else:
        own = list(tolerations)
    first: dict[tuple[Any, ...], int] = {}  # identity -> position of the first toleration with it (stays so)
    for i, have in enumerate(own):
        first.setdefault(_identity(have), i)
    for added, _source in implied_tolerations(pod_spec, platform, kind, admission_plugins=admission_plugins):
        i = first.get(_identity(added))
        if i is not None:
            own[i] = added
        else:
            first[_identity(added)] = len(own)
            own.append(added)
    return own
