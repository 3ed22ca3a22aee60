"""Recognise Karpenter GPU NodePools (``kubernetes:karpenter.sh/<v>:NodePool``), ours or hand-written."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ...k8s.wellknown import NVIDIA_GPU_RESOURCE
from ...sdk.props import dig, items, mapping, plain, text
from .._shared.gpu_pool import GpuPool, RegistrationSite, read_once
from .._shared.nodepool_detect import (
    NodePoolTaintLists,
    nodepool_extra,
    nodepool_gpu_node_problem,
    nodepool_instance_types,
    nodepool_node_labels,
    nodepool_taint_lists,
    nodepool_zones,
    requires_nvidia_gpu,
)
from . import BACKEND

#: Karpenter's well-known labels (karpenter.k8s.aws/...) that describe GPUs.
_KARPENTER_AWS = "karpenter.k8s.aws/"


def _selects_gpus(requirements: list[Any], limits: Mapping[str, Any]) -> bool:
    """Whether a NodePool is a GPU pool, decided from what its requirements can select.

    A GPU pool when its requirements explicitly ask for NVIDIA GPUs (:func:`~gpu_node_pool.backends._shared.nodepool_detect.requires_nvidia_gpu`),
    even with ``limits`` ``nvidia.com/gpu`` at 0 (it launches no GPU node then, which its plan entry says:
    :func:`~gpu_node_pool.backends._shared.nodepool_detect.nodepool_gpu_node_problem`; its taints and agents are
    judged all the same). Else not a GPU pool when ``limits`` caps ``nvidia.com/gpu`` at 0 (a common way to keep
    GPUs out of a general NodePool); a GPU pool when every instance type they leave in the catalog has GPUs and some are NVIDIA's (``instance-category In [g, p]``,
    Auto Mode's ``eks.amazonaws.com/instance-family In [g5, g6, p5]``; the one requirement evaluator,
    :mod:`gpu_node_pool.catalog.requirements`), or when ``limits`` names ``nvidia.com/gpu`` above 0. A
    NodePool that merely *could* pick a GPU type among others (no instance requirements at all) is not
    called a GPU pool: every general-purpose NodePool would be.

    Raises:
        UnknownValueError: a requirement or limit is unknown at preview.
    """
    from ...catalog.requirements import RequirementError, candidates, gpu_limit_is_zero

    if requires_nvidia_gpu(requirements, _KARPENTER_AWS):
        return True
    plain_limits = plain(limits)
    if gpu_limit_is_zero(plain_limits):
        return False
    if NVIDIA_GPU_RESOURCE in plain_limits:
        return True
    if not requirements:
        return False
    try:
        found = candidates(plain(requirements), None)
    except RequirementError:
        return False  # malformed: the CRD refuses it; not ours to call a GPU pool
    # every type it can launch is a GPU type (AMD g4ad counts as accelerated) and some are NVIDIA's
    return bool(found) and all(t.is_nvidia or t.ec2_gpus > 0 for t in found) and any(t.is_nvidia for t in found)


def detect(resource_type: str, props: Mapping[str, Any], name: str, urn: str, context: Mapping[str, Any]) -> GpuPool | None:
    """A Karpenter NodePool is a GPU pool when :func:`_selects_gpus` says so.

    Only NodePools of the AWS provider (``nodeClassRef.group`` ``karpenter.k8s.aws``, or none given):
    a NodePool on another provider's node class (EKS Auto Mode) is that backend's to read.

    ``context["node_classes"]``: EC2NodeClass name -> its AMI ships NVIDIA's device plugin (Bottlerocket).
    ``extra["launches_no_gpu_node"]``: why no pod requesting ``nvidia.com/gpu`` gets a node of it
    (:func:`~gpu_node_pool.backends._shared.nodepool_detect.nodepool_gpu_node_problem`), when the catalog says so.
    ``context["node_class_bootstraps"]`` (only when the whole stack is read, :func:`context`): the
    EC2NodeClasses by name, whose ``spec.userData`` registration is read into the pool
    (:func:`_user_data_registration`).
    """
    if not resource_type.endswith(":NodePool"):
        return None
    read = _read_nodepool(props)
    if read is None:
        return None
    node_classes = context.get("node_classes") or {}
    pool = GpuPool(
        backend=BACKEND.name,
        resource_type=resource_type,
        name=name,
        urn=urn,
        taints=list(read.lists.taints),
        labels=dict(read.labels),
        where="the Karpenter NodePool spec.template.spec.taints (GpuNodePool taints)",
        ships_own_device_plugin=bool(read.class_name and node_classes.get(read.class_name)),
        problem=read.lists.problem,
        instance_types=read.instance_types,
        zones=read.zones,
        extra=nodepool_extra(read.lists, "the Karpenter NodePool"),
    )
    if read.gpu_node_problem:
        pool.extra["launches_no_gpu_node"] = read.gpu_node_problem
    bootstraps = context.get("node_class_bootstraps")
    if bootstraps is not None and not read.lists.problem:
        kind = text(dig(props, "spec", "template", "spec", "nodeClassRef", "kind"))
        if kind in (None, "EC2NodeClass"):
            _user_data_registration(pool, read.class_name, bootstraps)
    return pool


@dataclass(frozen=True)
class _NodePoolRead:
    """What :func:`detect` reads from a GPU NodePool of the AWS provider, whatever the stack around it.
    The pool built from it gets its own copies of the lists and labels (the stack's reading adds to them).
    ``lists``: its taints and startup taints, and why the API server or Karpenter refuses them
    (:func:`~gpu_node_pool.backends._shared.nodepool_detect.nodepool_taint_lists`)."""

    lists: NodePoolTaintLists
    labels: Mapping[str, str]
    class_name: str | None
    instance_types: tuple[str, ...] | None
    zones: tuple[str, ...] | None
    gpu_node_problem: str | None = None


def _read_nodepool(props: Mapping[str, Any]) -> _NodePoolRead | None:
    """The NodePool's :class:`_NodePoolRead`, or None when it is another provider's or not a GPU pool
    (:func:`_selects_gpus`); read once per resource (:func:`~gpu_node_pool.backends._shared.gpu_pool.read_once`)."""
    return read_once(props, ("karpenter", "NodePool read"), lambda: _read(props))


def _read(props: Mapping[str, Any]) -> _NodePoolRead | None:
    from . import read as karpenter

    group = text(dig(props, "spec", "template", "spec", "nodeClassRef", "group"))
    if group is not None and group != "karpenter.k8s.aws":
        return None  # another provider's NodePool (EKS Auto Mode: eks.amazonaws.com), read by its backend
    requirements = list(items(dig(props, "spec", "template", "spec", "requirements")))
    limits = mapping(dig(props, "spec", "limits"))
    if not _selects_gpus(requirements, limits):
        return None
    lists = nodepool_taint_lists(props)
    labels = nodepool_node_labels(karpenter.read_nodepool_labels, props, requirements)
    class_name = text(dig(props, "spec", "template", "spec", "nodeClassRef", "name"))
    return _NodePoolRead(
        lists=lists,
        labels=labels,
        class_name=class_name,
        instance_types=nodepool_instance_types(requirements, limits),
        zones=nodepool_zones(requirements),
        gpu_node_problem=nodepool_gpu_node_problem(requirements, limits),
    )


@dataclass(frozen=True)
class NodeClassBootstrap:
    """An EC2NodeClass's bootstrap as the pack reads it.

    Attributes:
        family: ``bottlerocket``, ``al2023``, ``al2``, ``windows``, ``custom`` (lower case, from
            ``spec.amiSelectorTerms[].alias`` ``<family>@<version>`` or ``spec.amiFamily``), ``""`` when neither says.
        user_data: ``spec.userData`` (None when absent).
        unknown: why it could not be read at preview (a value unknown), else None.
    """

    family: str
    user_data: str | None
    unknown: str | None = None


#: What Karpenter does with taints in ``spec.userData``, per AMI family: Bottlerocket replaces
#: ``settings.kubernetes.node-taints`` with the NodePool's (``s.Settings.Kubernetes.NodeTaints =
#: map[string][]string{}`` then the NodePool's taints, aws/karpenter-provider-aws
#: ``pkg/providers/amifamily/bootstrap/bottlerocket.go``@v1.14.1); AL2023 appends its own NodeConfig after the
#: user's parts with ``registerWithTaints`` always set (``nodeadm.go``@v1.14.1), and "Any values configured by
#: the Karpenter generated NodeConfig object will take precedent over values specified in spec.userData. This
#: includes ... taints" (https://karpenter.sh/docs/concepts/nodeclasses/, spec.userData), while a kubelet
#: ``--register-with-taints`` flag overrides the config file
#: (https://kubernetes.io/docs/tasks/administer-cluster/kubelet-config-file/); Custom runs the user data as
#: given (``bootstrap/custom.go``@v1.14.1). Other families (AL2, Windows, none named): what the kubelet is
#: told is taken to reach the node, so the pack rather asks for a toleration than passes one it cannot judge.
_REPLACED = "Karpenter writes the NodePool's taints into its own bootstrap and they replace the user data's"


def _taints_kept(family: str, by_flag: bool) -> bool:
    """Whether the taints userData registers reach the node (see the table above)."""
    if family == "bottlerocket":
        return False
    if family == "al2023":
        return by_flag
    return True


def _user_data_registration(pool: GpuPool, class_name: str | None, bootstraps: Mapping[str, NodeClassBootstrap]) -> None:
    """Add to ``pool`` what its EC2NodeClass's ``spec.userData`` registers, as the node-group reader does
    for launch templates (:func:`gpu_node_pool.policies.pools.find_gpu_pools`): a taint the NodePool does not
    declare that reaches the nodes joins ``pool.taints`` (every rule sees it) and
    ``extra["hidden_registration_taints"]``; one Karpenter replaces goes to ``extra["dropped_registration_taints"]``
    (not on the nodes); a mention the reader cannot read to ``extra["unreadable_registration_taints"]``; user data
    unknown at preview, or an EC2NodeClass not among the program's resources, to
    ``extra["unjudged_registration_taints"]``. Labels it registers join ``pool.labels`` unless the NodePool sets the
    key (Karpenter's win: ``mergo.MergeWithOverwrite`` in ``bottlerocket.go``; nodeadm merges repeated
    ``--node-labels``).
    """
    from .._shared.registration_mentions import read_user_data_registration

    site = RegistrationSite(
        name=class_name or "", where=f"EC2NodeClass {class_name!r} (spec.userData)", owner="the NodePool",
        unseen_by="Karpenter's scheduling simulation (it launches nodes for pods that do not tolerate the taint)",
        declare_in="the NodePool's spec.template.spec.taints (GpuNodePool taints)", prop="spec.userData",
        readable_forms="a nodeadm NodeConfig, Bottlerocket settings.kubernetes.node-taints, kubelet --register-with-taints",
    )
    bootstrap = bootstraps.get(class_name or "")
    if bootstrap is None:
        pool.extra["unjudged_registration_taints"] = [(site, (
            "that EC2NodeClass is not among the program's resources (created elsewhere), so the taints its "
            "spec.userData registers are not read"))]
        return
    if bootstrap.unknown is not None:
        pool.extra["unjudged_registration_taints"] = [(site, bootstrap.unknown)]
        return
    read = read_user_data_registration(bootstrap.user_data)
    if read.unreadable:
        pool.extra["unreadable_registration_taints"] = [(site, why) for why in read.unreadable]
    declared = {t.identity for t in pool.taints} | {t.identity for t in pool.extra.get("startup_taints") or []}
    kept = _taints_kept(bootstrap.family, read.by_flag)
    hidden, dropped = [], []
    for taint in read.taints:
        if taint.identity in declared:
            continue
        declared.add(taint.identity)
        if kept:
            pool.taints.append(taint)
            hidden.append((taint, site))
        else:
            dropped.append((taint, site))
    if hidden:
        pool.extra["hidden_registration_taints"] = hidden
    if dropped:
        pool.extra["dropped_registration_taints"] = dropped
        pool.extra["dropped_registration_why"] = _REPLACED
    if pool.labels is not None:
        for key, value in read.labels.items():
            pool.labels.setdefault(key, value)


def context(resources: Iterable[Any]) -> dict[str, Any]:
    """``{"node_classes": {EC2NodeClass name: its AMI ships NVIDIA's device plugin (Bottlerocket)},
    "node_class_bootstraps": {EC2NodeClass name: NodeClassBootstrap}}``."""
    resources = list(resources)
    return {"node_classes": _node_classes(resources), "node_class_bootstraps": _bootstraps(resources)}


def _is_node_class(res: Any) -> bool:
    return res.resource_type.startswith("kubernetes:karpenter.k8s.aws/") and res.resource_type.endswith(":EC2NodeClass")


def _bootstraps(resources: Iterable[Any]) -> dict[str, NodeClassBootstrap]:
    """Each EC2NodeClass's AMI family and ``spec.userData``; a value unknown at preview is kept as the reason."""
    from ...sdk.props import UnknownValueError

    out: dict[str, NodeClassBootstrap] = {}
    for res in resources:
        if not _is_node_class(res):
            continue
        try:
            name = text(dig(res.props, "metadata", "name"))
        except UnknownValueError:
            continue  # a NodePool cannot name it either; its nodeClassRef finds no class: not judged
        if not name:
            continue
        try:
            aliases = [text(dig(t, "alias")) or "" for t in items(dig(res.props, "spec", "amiSelectorTerms"))]
            family = next((a.partition("@")[0].lower() for a in aliases if "@" in a), "")
            family = family or (text(dig(res.props, "spec", "amiFamily")) or "").lower()
            user_data = dig(res.props, "spec", "userData")
        except UnknownValueError:
            out[name] = NodeClassBootstrap("", None, (
                "its spec.userData or its AMI family is unknown at preview, so the taints its spec.userData registers "
                "are not read"))
            continue
        out[name] = NodeClassBootstrap(family, text(user_data))
    return out


def _node_classes(resources: Iterable[Any]) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for res in resources:
        if not (res.resource_type.startswith("kubernetes:karpenter.k8s.aws/") and res.resource_type.endswith(":EC2NodeClass")):
            continue
        name = text(dig(res.props, "metadata", "name"))
        if not name:
            continue
        aliases = [text(dig(t, "alias")) or "" for t in items(dig(res.props, "spec", "amiSelectorTerms"))]
        family = text(dig(res.props, "spec", "amiFamily")) or ""
        out[name] = family == "Bottlerocket" or any(a.startswith("bottlerocket@") for a in aliases)
    return out
