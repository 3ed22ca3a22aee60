"""A GPU pool as found among any program's resources (ours or hand-written), for the policies.

Each backend's ``detect.py`` builds these from the resources its registry record lists in
``detects``; :mod:`gpu_node_pool.policies.pools` collects them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ...k8s.taints import Taint, TaintError
from ...sdk.props import derived, mapping, number

_T = TypeVar("_T")


@dataclass
class GpuPool:
    """A GPU pool found among a stack's resources.

    Attributes:
        backend: a registered backend name (``eks-managed``, ``eks-auto``, ``gke``, ``karpenter``, ``self-managed``).
        resource_type: the Pulumi type token of the resource that declares the pool.
        name: the Pulumi resource name; ``urn`` its URN (empty when unknown).
        taints: the pool's taints (Kubernetes spelling), in declaration order.
        labels: node labels the pool's nodes are known to carry, or None when unknown at preview.
        ships_own_device_plugin: the nodes bring their own NVIDIA device plugin (Bottlerocket
            NVIDIA variants).
        gke_managed_plugin: GKE runs its own device plugin on the pool (not opted out).
        min_size: the smallest node count, when the resource says it.
        where: where the pool's taints are declared, for messages.
        problem: why the taints are not valid (malformed, or a combination the platform refuses, e.g. a
            key+effect a Karpenter NodePool repeats), else None; the pool is then judged by nothing else.
        instance_types: the instance (machine) types its nodes can be, or None when not known.
        zones: the zones it pins its nodes to, or None when not known (any zone of the region).
    """

    backend: str
    resource_type: str
    name: str
    urn: str
    taints: list[Taint]
    labels: dict[str, str] | None
    where: str
    ships_own_device_plugin: bool = False
    gke_managed_plugin: bool = False
    min_size: int | None = None
    problem: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    instance_types: tuple[str, ...] | None = None
    zones: tuple[str, ...] | None = None

    #: Where its nodes run, for what admission adds (:data:`gpu_node_pool.k8s.taints.PLATFORMS`).
    platform: str = "eks"
    #: How the user wrote the pool, when it comes from a GpuNodePool: ``pools[1] "inference"`` (the
    #: stack config path and name) or ``GpuNodePool "inference"``; empty for hand-written resources.
    declared_as: str = ""

    @property
    def display(self) -> str:
        if self.declared_as:
            return f"GPU pool {self.declared_as} ({self.backend}: {self.resource_type} {self.name})"
        return f"GPU pool {self.name!r} ({self.backend}, {self.resource_type})"

    @property
    def needs_nvidia_device_plugin(self) -> bool:
        """NVIDIA's device plugin must serve this pool: not GKE-managed, no plugin of its own."""
        return not self.ships_own_device_plugin and not self.gke_managed_plugin


@dataclass(frozen=True)
class RegistrationSite:
    """Where user data registers taints the pool's own resource may not declare, worded for the findings of
    ``registration-taints-visible`` (:mod:`gpu_node_pool.policies.rules.registration_taints_visible`).

    Pool extras that name one (each a list, set by :func:`gpu_node_pool.policies.pools.find_gpu_pools`):
    ``hidden_registration_taints`` ``(Taint, site)``: registered by the kubelet, on the nodes, not declared;
    ``dropped_registration_taints`` ``(Taint, site)``: written in user data but replaced by the provisioner's
    own bootstrap, so not on the nodes; ``unreadable_registration_taints`` ``(site, why)``: mentioned where the
    reader cannot read it; ``unjudged_registration_taints`` ``(site, why)``: not read at all (the user data is
    unknown at preview, or the resource holding it is not among the program's resources).

    Attributes:
        name: the Pulumi name (or ``metadata.name``) of the resource that holds the user data.
        where: it in a message, e.g. ``launch template 'gpu-lt'``, ``EC2NodeClass 'gpu' (spec.userData)``.
        owner: the pool's resource in a message, e.g. ``the node group``, ``the NodePool``.
        unseen_by: who reads only the owner's taints, e.g. ``EKS, Cluster Autoscaler's scale-from-zero template``.
        declare_in: where the taint belongs, e.g. ``the node group's taints (GpuNodePool taints)``.
        prop: the property path of the user data, for the not-judged report (``userData``, ``spec.userData``).
        readable_forms: the forms the reader reads, for the fix of an unreadable mention.
    """

    name: str
    where: str
    owner: str
    unseen_by: str
    declare_in: str
    prop: str = "userData"
    readable_forms: str = "bootstrap.sh --kubelet-extra-args, KUBELET_EXTRA_ARGS=..., a nodeadm NodeConfig"


def read_taints(reader: Any, props: Any) -> tuple[list[Taint], str | None]:
    """``reader(props)`` as ``(taints, None)``, or ``([], why)`` when the resource's taints are
    malformed (``TaintError``, ``TypeError``, ``AttributeError`` or ``ValueError``, as a string
    for :attr:`GpuPool.problem`). ``reader`` is a backend's taint reader over the resource props."""
    try:
        return list(reader(props)), None
    except (TaintError, TypeError, AttributeError, ValueError) as err:
        return [], str(err)


def string_labels(value: Any) -> dict[str, str]:
    """The string-valued entries of a props mapping as ``{str key: value}``; entries whose value
    is not a string (unknown at preview, a number) are left out; not a mapping gives ``{}``."""
    return {str(k): v for k, v in mapping(value).items() if isinstance(v, str)}


def int_or_none(value: Any) -> int | None:
    """``value`` as an int when it is a whole number (preview sends ``2.0`` for 2), else None
    (a fraction, a bool, a string, unknown)."""
    n = number(value)
    return int(n) if n is not None and float(n).is_integer() else None


_NOT_READ = object()


def read_once(props: Any, key: tuple[str, ...], read: Callable[[], _T]) -> _T:
    """``read()``, what a backend's ``detect`` reads from ``props`` whatever the stack around the resource, kept
    under ``key`` in the runner's per-resource cache (:func:`gpu_node_pool.sdk.props.derived`): the resource
    policies and the stack's detection read the same resource. Computed every time when ``props`` offers no
    cache (the SDK's proxies, plain mappings); nothing is kept when it raises (``UnknownValueError``)."""
    cache = derived(props)
    if cache is None:
        return read()
    found = cache.get(key, _NOT_READ)
    if found is _NOT_READ:
        found = cache[key] = read()
    return found  # type: ignore[return-value]


def own_copy(pool: GpuPool, **changes: Any) -> GpuPool:
    """A caller's own pool from one kept by :func:`read_once`: its taints, labels and extras copied (the stack's
    detection adds to them), with ``changes`` (name, URN...) applied."""
    return dataclasses.replace(pool, taints=list(pool.taints), labels=dict(pool.labels) if pool.labels is not None else None,
                               extra=dict(pool.extra), **changes)
