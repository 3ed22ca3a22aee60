"""GPU pools and NVIDIA device plugins, read back from the resources a policy sees.

A GPU pool is any resource that declares where GPU nodes come from, whoever wrote it (this
component or hand-written code). Which resources declare pools, and how to read their taints,
is each backend's business: a backend lists the type tokens it recognises in its registry
record (``detects``) and reads them in its ``detect.py``
(:mod:`gpu_node_pool.registry`). This module asks the registry, and adds the one
cross-resource rule: a launch template without an instance type counts as a self-managed
GPU pool when an Auto Scaling group that uses it launches only NVIDIA instance types.
Sources for the detection rules: each backend's ``detect.py`` names its own (GKE node pool
fields, EKS managed node groups, Karpenter NodePools); the instance types come from
:mod:`gpu_node_pool.catalog.instances`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .. import backends
from ..backends._shared.gpu_pool import GpuPool, int_or_none
from ..backends._shared.user_data import decode_user_data
from ..catalog import instances
from ..k8s.wellknown import (
    AUTOSCALING_GROUP,
    AUTOSCALING_TAG,
    CHART_TYPES,
    EC2_INSTANCE,
    EKS_NODE_GROUP,
    GKE_NO_DEFAULT_PLUGIN_LABEL,
    GKE_NODE_POOL,
    GPU_NODE_POOL_TYPE,
    KARPENTER_NODEPOOL_PREFIX,
    LAUNCH_TEMPLATE,
)
from ..sdk.props import derived, dig, items, text

__all__ = [
    "EKS_NODE_GROUP",
    "GKE_NODE_POOL",
    "LAUNCH_TEMPLATE",
    "EC2_INSTANCE",
    "AUTOSCALING_GROUP",
    "AUTOSCALING_TAG",
    "CHART_TYPES",
    "GpuPool",
    "gpu_pool_of",
    "find_gpu_pools",
    "declared_as",
    "pool_declared_as",
    "decode_user_data",
    "GKE_NO_DEFAULT_PLUGIN_LABEL",
]


def gpu_pool_of(resource_type: str, props: Mapping[str, Any], name: str = "", urn: str = "",
                *, node_classes: Mapping[str, bool] | None = None, force_gpu: bool = False) -> GpuPool | None:
    """The GPU pool a single resource declares, or None (not a pool, or not a GPU pool).

    Args:
        resource_type: the Pulumi type token; the backends whose registry record lists it decide.
        props: the resource's properties (camelCase, possibly an unknown-checking proxy).
        name, urn: the Pulumi name and URN, for messages.
        node_classes: Karpenter ``EC2NodeClass`` name -> "its AMI ships an NVIDIA device
            plugin" (Bottlerocket), when the caller has the stack at hand.
        force_gpu: the caller knows the resource launches only GPU instances (a launch template
            used by an Auto Scaling group of NVIDIA types).

    Raises:
        UnknownValueError: a value needed to decide is unknown at preview.
    """
    if not isinstance(resource_type, str):
        return None
    # The resource policies ask about the same resource in turn: the runner's per-resource cache
    # keeps the answer (they only read the pool); the SDK's proxies have no cache.
    cache = derived(props)
    key = ("gpu_pool", resource_type, name, urn, tuple(sorted((node_classes or {}).items())), force_gpu)
    if cache is not None and key in cache:
        return cache[key]
    found = _detect_pool(resource_type, props, name, urn, node_classes, force_gpu)
    if cache is not None:
        cache[key] = found
    return found


def _detect_pool(resource_type: str, props: Mapping[str, Any], name: str, urn: str,
                 node_classes: Mapping[str, bool] | None, force_gpu: bool,
                 stack_context: Mapping[str, Any] | None = None) -> GpuPool | None:
    """:func:`gpu_pool_of` without the cache: a new pool every call (:func:`find_gpu_pools` completes it).
    ``stack_context``: what the backends' ``detect_context`` read from the whole stack (only
    :func:`find_gpu_pools` has it; a backend's ``detect`` links resources only when it is given)."""
    context = {**(stack_context or {}), "node_classes": node_classes or {}, "force_gpu": force_gpu}
    for backend in backends.by_detected_type(resource_type):
        pool = backend.fn("detect")(resource_type, props, name, urn, context)
        if pool is not None:
            return pool
    return None


def is_karpenter_nodepool(resource_type: str) -> bool:
    return isinstance(resource_type, str) and resource_type.startswith(KARPENTER_NODEPOOL_PREFIX) and (
        resource_type.endswith(":NodePool")
    )


_POOL, _LAUNCH_TEMPLATE, _ASG, _NODE_CLASS, _OTHER = "pool", "launch template", "asg", "node class", "other"
#: Resource type -> what :func:`find_gpu_pools` does with it (a stack has few distinct types).
_CATEGORIES: dict[str, str] = {}


def _category(resource_type: str) -> str:
    if resource_type == LAUNCH_TEMPLATE:
        category = _LAUNCH_TEMPLATE
    elif backends.by_detected_type(resource_type):
        category = _POOL  # a type some backend's detect reads
    elif resource_type == AUTOSCALING_GROUP:
        category = _ASG
    elif any(b.wants_for_context(resource_type) for b in backends.all_backends()):
        category = _NODE_CLASS  # read by a backend's detect_context (Karpenter: EC2NodeClasses)
    else:
        category = _OTHER
    if len(_CATEGORIES) < 4096:
        _CATEGORIES[resource_type] = category
    return category


def asg_instance_types(props: Mapping[str, Any]) -> list[str]:
    """Instance types an ``aws:autoscaling/group:Group`` launches (``mixedInstancesPolicy`` overrides)."""
    overrides = dig(props, "mixedInstancesPolicy", "launchTemplate", "overrides")
    return [t for o in items(overrides) if isinstance(t := dig(o, "instanceType"), str)]


def linked(res: Any, target: Any) -> bool:
    """True when ``res`` depends on ``target`` (``dependencies`` or ``property_dependencies``)."""
    urn = getattr(target, "urn", None)
    if not urn:
        return False
    for dep in getattr(res, "dependencies", None) or []:
        if getattr(dep, "urn", None) == urn:
            return True
    for deps in (getattr(res, "property_dependencies", None) or {}).values():
        if any(getattr(d, "urn", None) == urn for d in deps):
            return True
    return False


def asg_launch_templates(asg: Any, resources: Iterable[Any], index: LaunchTemplateIndex | None = None) -> list[Any]:
    """The launch template resources an Auto Scaling group uses: linked by dependency, or by a known name.

    ``index`` (built once per stack by :func:`find_gpu_pools`) makes this a lookup instead of a scan
    of every launch template per group (a 1000-pool stack spent 40% of its evaluation here).
    """
    names = {
        text(dig(asg.props, "launchTemplate", "name")),
        text(dig(asg.props, "mixedInstancesPolicy", "launchTemplate", "launchTemplateSpecification", "launchTemplateName")),
    } - {None}
    if index is None:
        index = LaunchTemplateIndex(resources)
    found: set[int] = set()
    deps = [getattr(d, "urn", None) for d in getattr(asg, "dependencies", None) or []]
    deps += [getattr(d, "urn", None) for ds in (getattr(asg, "property_dependencies", None) or {}).values() for d in ds]
    found.update(index.by_urn[u] for u in deps if u in index.by_urn)
    if names:
        for name in names:
            found.update(index.by_name.get(name, ()))
        for i in index.unnamed:  # a name unknown at preview: read it again, so the unknown is raised as before
            if i not in found and text(dig(index.templates[i].props, "name")) in names:
                found.add(i)
    return [index.templates[i] for i in sorted(found)]


class LaunchTemplateIndex:
    """The stack's launch templates by URN and by (plain) ``name``, in stack order."""

    def __init__(self, resources: Iterable[Any]) -> None:
        from ..sdk.props import UnknownValueError

        self.templates = [r for r in resources if r.resource_type == LAUNCH_TEMPLATE]
        self.by_urn: dict[str, int] = {}
        self.all_by_urn: dict[str, list[int]] = {}  # every template with that URN (by_urn: the first)
        self.by_name: dict[str, list[int]] = {}
        self.unnamed: list[int] = []
        for i, lt in enumerate(self.templates):
            if lt.urn:
                self.by_urn.setdefault(lt.urn, i)
                self.all_by_urn.setdefault(lt.urn, []).append(i)
            try:
                name = text(dig(lt.props, "name"))
            except UnknownValueError:
                self.unnamed.append(i)
                continue
            if name is not None:
                self.by_name.setdefault(name, []).append(i)


def node_group_launch_templates(node_group: Any, launch_templates: Iterable[Any],
                                index: LaunchTemplateIndex | None = None) -> list[Any]:
    """The launch templates an ``aws.eks.NodeGroup`` uses (``launchTemplate``): linked by dependency, or by name,
    in stack order. ``index`` (of ``launch_templates``, built once per stack by :func:`find_gpu_pools`) makes this
    lookups instead of a scan of every launch template per node group."""
    spec = dig(node_group.props, "launchTemplate")
    if spec is None:
        return []
    name = text(dig(spec, "name"))
    if index is None:
        return [lt for lt in launch_templates if linked(node_group, lt) or (name and text(dig(lt.props, "name")) == name)]
    deps = [getattr(d, "urn", None) for d in getattr(node_group, "dependencies", None) or []]
    deps += [getattr(d, "urn", None) for ds in (getattr(node_group, "property_dependencies", None) or {}).values() for d in ds]
    found = {i for u in deps if u for i in index.all_by_urn.get(u, ())}
    if name:
        for i in index.unnamed:  # a name unknown at preview: read it again, so the unknown is raised as the scan would
            if i not in found:
                text(dig(index.templates[i].props, "name"))
        found.update(index.by_name.get(name, ()))
    return [index.templates[i] for i in sorted(found)]


def _registration_taints(pool: GpuPool, node_group: Any, launch_templates: Iterable[Any],
                         index: LaunchTemplateIndex | None = None) -> None:
    """Taints the kubelet registers from the user data of a managed node group's launch template
    (a ``sed`` on ``KUBELET_EXTRA_ARGS``, a nodeadm ``registerWithTaints``...) that the node group
    does not declare: the nodes carry them, so they join the pool's taints for every policy, and
    ``pool.extra["hidden_registration_taints"]`` lists them with their launch template (a
    :class:`~gpu_node_pool.backends._shared.gpu_pool.RegistrationSite`). User data
    that mentions registration taints where the reader cannot read them (a ``sed`` into
    ``KUBELET_EXTRA_ARGS``, a reader failure) goes to ``pool.extra["unreadable_registration_taints"]``
    as ``(site, why)``.

    EKS merges its own bootstrap part when the launch template names no AMI; with an AMI only the
    user's data runs. Either way the user's parts are what add taints, so they are read alike.
    """
    from ..backends._shared.gpu_pool import RegistrationSite
    from ..backends._shared.registration_mentions import read_user_data_registration

    declared = {(t.key, t.effect) for t in pool.taints}
    hidden, unreadable = [], []
    for lt in node_group_launch_templates(node_group, launch_templates, index):
        site = RegistrationSite(
            name=lt.name, where=f"launch template {lt.name!r}", owner="the node group",
            unseen_by="EKS, Cluster Autoscaler's scale-from-zero template",
            declare_in="the node group's taints (GpuNodePool taints)",
        )
        read = read_user_data_registration(decode_user_data(dig(lt.props, "userData")))
        unreadable += [(site, why) for why in read.unreadable]
        for taint in read.taints:
            if (taint.key, taint.effect) not in declared:
                declared.add((taint.key, taint.effect))
                pool.taints.append(taint)
                hidden.append((taint, site))
    if hidden:
        pool.extra["hidden_registration_taints"] = hidden
    if unreadable:
        pool.extra["unreadable_registration_taints"] = unreadable


def _pool_component(res: Any) -> Any:
    """The GpuNodePool component that created ``res`` (a few parents up), or None (hand-written)."""
    parent = getattr(res, "parent", None)
    for _ in range(8):  # components nest a few levels at most
        if parent is None or getattr(parent, "resource_type", None) == GPU_NODE_POOL_TYPE:
            return parent
        parent = getattr(parent, "parent", None)
    return None


def pool_declared_as(config_path: str | None, name: str) -> str:
    """How messages name the pool a GpuNodePool declares, and the key callers find its kinds of node by:
    ``pools[1] "inference"`` from its config path (``pools[1]``, where the stack config writes it) and its
    name, ``GpuNodePool "inference"`` without a config path. :func:`declared_as` reads both from the
    component; the audit (:mod:`gpu_node_pool.audit.declared`) builds the same key from the stack config."""
    return f'{config_path} "{name}"' if config_path else f'GpuNodePool "{name}"'


def declared_as(res: Any) -> str:
    """:func:`pool_declared_as` of the GpuNodePool that created ``res`` (its ``configPath`` and name), else
    ``""`` (a hand-written resource)."""
    parent = _pool_component(res)
    if parent is None:
        return ""
    path = text(dig(parent.props, "configPath")) if isinstance(parent.props, Mapping) else None
    return pool_declared_as(path, parent.name)


def _declared_efa(res: Any) -> bool:
    """The GpuNodePool that created ``res`` has ``efa.enabled`` (its ``efa`` property)."""
    parent = _pool_component(res)
    return parent is not None and isinstance(parent.props, Mapping) and parent.props.get("efa") is True


def find_gpu_pools(resources: Iterable[Any], undecided: Any = None) -> list[GpuPool]:
    """Every GPU pool among a stack's resources (``PolicyResource``-like: ``resource_type``,
    ``props``, ``name``, ``urn``, ``dependencies``).

    A self-managed launch template without an instance type counts when an Auto Scaling
    group that uses it launches only NVIDIA instance types; the group's ``minSize`` becomes
    the pool's. A managed node group's pool also carries the taints its launch template's user
    data registers (:func:`_registration_taints`). A resource whose GPU-ness or taints are unknown at preview is added to
    ``undecided`` (a :class:`~gpu_node_pool.sdk.props.Undecided`) when given, else the
    ``UnknownValueError`` propagates.
    """
    from ..sdk.props import UnknownValueError

    # One pass sorts out the few resources that matter (pools, Karpenter node classes, Auto
    # Scaling groups, launch templates); nothing below scans the whole stack again.
    candidates, node_class_resources, groups, launch_templates = [], [], [], []
    for res in resources:
        t = res.resource_type
        category = _CATEGORIES.get(t) if isinstance(t, str) else _OTHER
        if category is None:
            category = _category(t)
        if category is _OTHER:
            continue
        if category is _POOL:
            candidates.append(res)
        elif category is _LAUNCH_TEMPLATE:
            candidates.append(res)
            launch_templates.append(res)
        elif category is _ASG:
            groups.append(res)
        else:
            node_class_resources.append(res)
    context: dict[str, Any] = {}
    for backend in backends.all_backends():
        build = backend.fn("detect_context")
        if build is not None:
            context.update(build([r for r in node_class_resources if backend.wants_for_context(r.resource_type)]))
    pools: list[GpuPool] = []
    by_urn: dict[str, GpuPool] = {}
    lt_index: LaunchTemplateIndex | None = None
    for res in candidates:
        try:
            pool = _detect_pool(res.resource_type, res.props, res.name, res.urn, context.get("node_classes"), False, context)
        except UnknownValueError as err:
            if undecided is None:
                raise
            undecided.add(f"{res.resource_type} {res.name}", err)
            continue
        if pool is not None:
            pool.declared_as = declared_as(res)
            if _declared_efa(res):
                pool.extra["efa"] = True
            pools.append(pool)
            by_urn[res.urn] = pool
            if res.resource_type == EKS_NODE_GROUP and launch_templates:
                try:
                    lt_index = lt_index or LaunchTemplateIndex(launch_templates)
                    _registration_taints(pool, res, launch_templates, lt_index)
                except UnknownValueError as err:
                    if undecided is None:
                        raise
                    undecided.add(f"{res.resource_type} {res.name}", err)
    lt_index = lt_index or (LaunchTemplateIndex(launch_templates) if groups else None)
    for asg in groups:
        try:
            types = asg_instance_types(asg.props)
            gpu_group = bool(types) and all(instances.is_nvidia_instance_type(t) for t in types)
            for lt in asg_launch_templates(asg, launch_templates, lt_index):
                pool = by_urn.get(lt.urn)
                if pool is None and gpu_group:
                    pool = _detect_pool(lt.resource_type, lt.props, lt.name, lt.urn, None, True)
                    if pool is not None:
                        pools.append(pool)
                        by_urn[lt.urn] = pool
                if pool is not None:
                    pool.extra.setdefault("asgs", []).append(asg)
                    size = int_or_none(dig(asg.props, "minSize"))
                    if size is not None:
                        pool.min_size = size if pool.min_size is None else min(pool.min_size, size)
        except UnknownValueError as err:
            if undecided is None:
                raise
            undecided.add(f"{asg.resource_type} {asg.name}", err)
    # Registration under Pulumi is concurrent: the order resources arrive in is not stable, so
    # messages that list several pools would differ from run to run. Sort by URN (then name).
    pools.sort(key=lambda p: (p.urn or "", p.name))
    return pools
