"""GPU pools and NVIDIA device plugins, read back from the resources a policy sees.

A GPU pool is any resource that declares where GPU nodes come from, whoever wrote it (this
component or hand-written code):

=================  =====================================================  ==========================================
backend            resource (type token)                                  GPU when
=================  =====================================================  ==========================================
``eks-managed``    ``aws:eks/nodeGroup:NodeGroup``                        ``amiType`` has NVIDIA/GPU, or an NVIDIA instance type
``gke``            ``gcp:container/nodePool:NodePool``                    ``nodeConfig.guestAccelerators`` or an A2/A3/A4/G2/G4 machine type
``karpenter``      ``kubernetes:karpenter.sh/<v>:NodePool``               requirements require NVIDIA GPUs, or ``limits`` has ``nvidia.com/gpu``
``self-managed``   ``aws:ec2/launchTemplate:LaunchTemplate``              an NVIDIA ``instanceType`` (or an Auto Scaling group using it has
                                                                          only NVIDIA types) and user data that bootstraps a kubelet
=================  =====================================================  ==========================================

Taints are read with the reader that lives beside each renderer
(:func:`gpu_node_pool.render.eks.read_node_group_taints`,
:func:`gpu_node_pool.render.gke.read_node_pool_taints`,
:func:`gpu_node_pool.render.karpenter.read_nodepool_taints`,
``gpu_node_pool.render.kubelet.read_registration_taints``); Karpenter ``startupTaints`` are
not pool taints. Sources for the detection rules: ``facts/gke-nvidia-crossguard.md`` §1,
``facts/aws-eks-karpenter.md``, :mod:`gpu_node_pool.instances`.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import instances
from ..taints import Taint, TaintError
from .props import dig, items, mapping, number, text

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
    "decode_user_data",
    "registration_reader",
    "GKE_NO_DEFAULT_PLUGIN_LABEL",
]

EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
GKE_NODE_POOL = "gcp:container/nodePool:NodePool"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
EC2_INSTANCE = "aws:ec2/instance:Instance"
AUTOSCALING_GROUP = "aws:autoscaling/group:Group"
AUTOSCALING_TAG = "aws:autoscaling/tag:Tag"
CHART_TYPES = ("kubernetes:helm.sh/v4:Chart", "kubernetes:helm.sh/v3:Chart", "kubernetes:helm.sh/v3:Release")

#: Node label that turns GKE's own device plugin off on a pool (NVIDIA/cloud-native-docs google-gke.rst).
GKE_NO_DEFAULT_PLUGIN_LABEL = "gke-no-default-nvidia-gpu-device-plugin"
#: GKE machine types that come with GPUs attached (A2, A3, A4, G2, G4 series).
_GKE_GPU_MACHINE = re.compile(r"^(a2|a3|a4|a4x|g2|g4)-")
#: Karpenter's well-known labels (karpenter.k8s.aws/...) that describe GPUs.
_KARPENTER_AWS = "karpenter.k8s.aws/"


@dataclass
class GpuPool:
    """A GPU pool found among a stack's resources.

    Attributes:
        backend: ``eks-managed``, ``gke``, ``karpenter`` or ``self-managed``.
        resource_type: the Pulumi type token of the resource that declares the pool.
        name: the Pulumi resource name; ``urn`` its URN (empty when unknown).
        taints: the pool's taints (Kubernetes spelling), in declaration order.
        labels: node labels the pool's nodes are known to carry, or None when unknown at preview.
        ships_own_device_plugin: the nodes bring their own NVIDIA device plugin (Bottlerocket
            NVIDIA variants).
        gke_managed_plugin: GKE runs its own device plugin on the pool (not opted out).
        min_size: the smallest node count, when the resource says it.
        where: where the pool's taints are declared, for messages.
        problem: why the taints could not be read (malformed), else None.
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

    @property
    def display(self) -> str:
        return f"GPU pool {self.name!r} ({self.backend}, {self.resource_type})"

    @property
    def needs_nvidia_device_plugin(self) -> bool:
        """NVIDIA's device plugin must serve this pool: not GKE-managed, no plugin of its own."""
        return not self.ships_own_device_plugin and not self.gke_managed_plugin


def _read_taints(reader: Any, props: Any) -> tuple[list[Taint], str | None]:
    try:
        return list(reader(props)), None
    except (TaintError, TypeError, AttributeError, ValueError) as err:
        return [], str(err)


def _labels(value: Any) -> dict[str, str]:
    return {str(k): v for k, v in mapping(value).items() if isinstance(v, str)}


def _int(value: Any) -> int | None:
    n = number(value)
    return int(n) if n is not None and float(n).is_integer() else None


# --- per backend ------------------------------------------------------------------------


def _eks(props: Mapping[str, Any], name: str, urn: str) -> GpuPool | None:
    from ..render import eks

    ami_type = text(dig(props, "amiType")) or ""
    types = [t for t in items(dig(props, "instanceTypes")) if isinstance(t, str)]
    gpu_ami = "NVIDIA" in ami_type or "GPU" in ami_type
    if not gpu_ami and not any(instances.is_nvidia_instance_type(t) for t in types):
        return None
    taints, problem = _read_taints(eks.read_node_group_taints, props)
    labels = _labels(dig(props, "labels"))
    group_name = text(dig(props, "nodeGroupName"))
    if group_name:
        labels.setdefault("eks.amazonaws.com/nodegroup", group_name)
    return GpuPool(
        backend="eks-managed",
        resource_type=EKS_NODE_GROUP,
        name=name,
        urn=urn,
        taints=taints,
        labels=labels,
        where="aws.eks.NodeGroup taints (GpuNodePool taints)",
        ships_own_device_plugin=ami_type.startswith("BOTTLEROCKET_") and "NVIDIA" in ami_type,
        min_size=_int(dig(props, "scalingConfig", "minSize")),
        problem=problem,
    )


def _gke(props: Mapping[str, Any], name: str, urn: str) -> GpuPool | None:
    from ..render import gke

    accelerators = [a for a in items(dig(props, "nodeConfig", "guestAccelerators")) if isinstance(a, Mapping)]
    machine = text(dig(props, "nodeConfig", "machineType")) or ""
    if not accelerators and not _GKE_GPU_MACHINE.match(machine):
        return None
    taints, problem = _read_taints(gke.read_node_pool_taints, props)
    labels = _labels(dig(props, "nodeConfig", "labels"))
    accel_type = text(dig(accelerators[0], "type")) if accelerators else None
    if accel_type:
        labels.setdefault("cloud.google.com/gke-accelerator", accel_type)
    opted_out = labels.get(GKE_NO_DEFAULT_PLUGIN_LABEL) == "true"
    return GpuPool(
        backend="gke",
        resource_type=GKE_NODE_POOL,
        name=name,
        urn=urn,
        taints=taints,
        labels=labels,
        where="gcp.container.NodePool node_config.taints (GpuNodePool taints)",
        gke_managed_plugin=not opted_out,
        min_size=_int(dig(props, "autoscaling", "totalMinNodeCount", default=dig(props, "autoscaling", "minNodeCount"))),
        problem=problem,
    )


def _karpenter_requires_gpu(requirements: Iterable[Any]) -> bool:
    for req in requirements:
        key = text(dig(req, "key")) or ""
        op = text(dig(req, "operator")) or ""
        values = [str(v) for v in items(dig(req, "values"))]
        if key == _KARPENTER_AWS + "instance-gpu-manufacturer" and op == "In" and values == ["nvidia"]:
            return True
        if key == _KARPENTER_AWS + "instance-gpu-count":
            if op == "Gt" and values and values[0].isdigit():
                return True
            if op == "In" and values and all(v.isdigit() and int(v) > 0 for v in values):
                return True
        if key == _KARPENTER_AWS + "instance-gpu-name" and op in ("In", "Exists"):
            return True
        if op == "In" and values:
            if key == _KARPENTER_AWS + "instance-family" and all(v in instances.NVIDIA_FAMILIES for v in values):
                return True
            if key == "node.kubernetes.io/instance-type" and all(instances.is_nvidia_instance_type(v) for v in values):
                return True
    return False


def _karpenter(resource_type: str, props: Mapping[str, Any], name: str, urn: str,
               node_classes: Mapping[str, bool]) -> GpuPool | None:
    from ..render import karpenter

    requirements = list(items(dig(props, "spec", "template", "spec", "requirements")))
    limits = mapping(dig(props, "spec", "limits"))
    if not _karpenter_requires_gpu(requirements) and "nvidia.com/gpu" not in limits:
        return None
    taints, problem = _read_taints(karpenter.read_nodepool_taints, props)
    try:
        labels = {k: v for k, v in karpenter.read_nodepool_labels(props).items() if isinstance(v, str)}
    except (TypeError, AttributeError, ValueError):
        labels = {}
    for req in requirements:  # single-valued In requirements become node labels
        values = list(items(dig(req, "values")))
        if dig(req, "operator") == "In" and len(values) == 1 and isinstance(dig(req, "key"), str):
            labels.setdefault(dig(req, "key"), str(values[0]))
    pool_name = text(dig(props, "metadata", "name"))
    if pool_name:
        labels.setdefault("karpenter.sh/nodepool", pool_name)
    class_name = text(dig(props, "spec", "template", "spec", "nodeClassRef", "name"))
    return GpuPool(
        backend="karpenter",
        resource_type=resource_type,
        name=name,
        urn=urn,
        taints=taints,
        labels=labels,
        where="the Karpenter NodePool spec.template.spec.taints (GpuNodePool taints)",
        ships_own_device_plugin=bool(class_name and node_classes.get(class_name)),
        problem=problem,
    )


def decode_user_data(value: Any) -> str:
    """EC2 user data as text: base64 (``LaunchTemplate.userData``) and gzip are undone.

    Returns the input unchanged when it is not base64, and ``""`` for a non-string.
    """
    if not isinstance(value, str):
        return ""
    stripped = "".join(value.split())
    if stripped and len(stripped) % 4 == 0 and re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", stripped):
        try:
            raw = base64.b64decode(stripped, validate=True)
            if raw[:2] == b"\x1f\x8b":
                raw = gzip.decompress(raw)
            return raw.decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, OSError, EOFError):
            pass
    return value


_BOOTSTRAP_MARKERS = (
    "node.eks.aws/",  # AL2023 nodeadm NodeConfig apiVersion
    "NodeConfig",
    "/etc/eks/bootstrap.sh",
    "JoinConfiguration",
    "[settings.kubernetes]",  # Bottlerocket
    "--register-with-taints",
    "registerWithTaints",
    "kubelet",
)


def looks_like_node_bootstrap(user_data: str) -> bool:
    """True when user data joins a Kubernetes node (nodeadm, bootstrap.sh, kubeadm, Bottlerocket, kubelet).

    Uses ``gpu_node_pool.render.kubelet.detect_format`` when it exists (any format but a
    plain ``shell`` script), else looks for the formats' markers.
    """
    try:
        from ..render.kubelet import detect_format  # type: ignore[attr-defined]
    except ImportError:
        return any(marker in user_data for marker in _BOOTSTRAP_MARKERS)
    try:
        return detect_format(user_data) not in (None, "shell")
    except (TaintError, ValueError, TypeError):
        return True  # a bootstrap, though a malformed one: the taint reader will say what is wrong


def registration_reader() -> tuple[Any, Any]:
    """``(read_registration_taints, read_registration_labels or None)`` from
    :mod:`gpu_node_pool.render.kubelet`, imported lazily; ``(None, None)`` while that module
    does not exist yet."""
    try:
        from ..render import kubelet  # type: ignore[attr-defined]
    except ImportError:
        return None, None
    return getattr(kubelet, "read_registration_taints", None), getattr(kubelet, "read_registration_labels", None)


def _self_managed(props: Mapping[str, Any], name: str, urn: str, *, force_gpu: bool = False) -> GpuPool | None:
    instance_type = text(dig(props, "instanceType"))
    if not force_gpu and not (instance_type and instances.is_nvidia_instance_type(instance_type)):
        return None
    user_data = decode_user_data(dig(props, "userData"))
    if not looks_like_node_bootstrap(user_data):
        return None
    read_taints, read_labels = registration_reader()
    if read_taints is None:
        return GpuPool(
            backend="self-managed",
            resource_type=LAUNCH_TEMPLATE,
            name=name,
            urn=urn,
            taints=[],
            labels=None,
            where="the kubelet registration in the launch template's user data (registerWithTaints)",
            problem="gpu_node_pool.render.kubelet.read_registration_taints is not available",
            extra={"unreadable": True},
        )
    taints, problem = _read_taints(read_taints, user_data)
    labels: dict[str, str] | None = None
    if read_labels is not None:
        try:
            labels = dict(read_labels(user_data))
        except (TypeError, AttributeError, ValueError):
            labels = None
    return GpuPool(
        backend="self-managed",
        resource_type=LAUNCH_TEMPLATE,
        name=name,
        urn=urn,
        taints=taints,
        labels=labels,
        where="the kubelet registration in the launch template's user data (registerWithTaints)",
        ships_own_device_plugin="[settings.kubernetes]" in user_data,
        problem=problem,
        extra={"launch_template_name": text(dig(props, "name"))},
    )


def gpu_pool_of(resource_type: str, props: Mapping[str, Any], name: str = "", urn: str = "",
                *, node_classes: Mapping[str, bool] | None = None) -> GpuPool | None:
    """The GPU pool a single resource declares, or None (not a pool, or not a GPU pool).

    Args:
        resource_type: the Pulumi type token.
        props: the resource's properties (camelCase, possibly an unknown-checking proxy).
        name, urn: the Pulumi name and URN, for messages.
        node_classes: Karpenter ``EC2NodeClass`` name -> "its AMI ships an NVIDIA device
            plugin" (Bottlerocket), when the caller has the stack at hand.

    Raises:
        UnknownValueError: a value needed to decide is unknown at preview.
    """
    if resource_type == EKS_NODE_GROUP:
        return _eks(props, name, urn)
    if resource_type == GKE_NODE_POOL:
        return _gke(props, name, urn)
    if is_karpenter_nodepool(resource_type):
        return _karpenter(resource_type, props, name, urn, node_classes or {})
    if resource_type == LAUNCH_TEMPLATE:
        return _self_managed(props, name, urn)
    return None


_POOL, _LAUNCH_TEMPLATE, _ASG, _NODE_CLASS, _OTHER = "pool", "launch template", "asg", "node class", "other"
#: Resource type -> what :func:`find_gpu_pools` does with it (a stack has few distinct types).
_CATEGORIES: dict[str, str] = {}


def _category(resource_type: str) -> str:
    if resource_type == LAUNCH_TEMPLATE:
        category = _LAUNCH_TEMPLATE
    elif resource_type in (EKS_NODE_GROUP, GKE_NODE_POOL) or is_karpenter_nodepool(resource_type):
        category = _POOL  # the types gpu_pool_of reads
    elif resource_type == AUTOSCALING_GROUP:
        category = _ASG
    elif resource_type.startswith("kubernetes:karpenter.k8s.aws/"):
        category = _NODE_CLASS  # EC2NodeClass (_karpenter_node_classes checks the kind)
    else:
        category = _OTHER
    if len(_CATEGORIES) < 4096:
        _CATEGORIES[resource_type] = category
    return category


def is_karpenter_nodepool(resource_type: str) -> bool:
    return isinstance(resource_type, str) and resource_type.startswith("kubernetes:karpenter.sh/") and (
        resource_type.endswith(":NodePool")
    )


def _karpenter_node_classes(resources: Iterable[Any]) -> dict[str, bool]:
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


def asg_launch_templates(asg: Any, resources: Iterable[Any]) -> list[Any]:
    """The launch template resources an Auto Scaling group uses: linked by dependency, or by a known name."""
    names = {
        text(dig(asg.props, "launchTemplate", "name")),
        text(dig(asg.props, "mixedInstancesPolicy", "launchTemplate", "launchTemplateSpecification", "launchTemplateName")),
    } - {None}
    out = []
    for res in resources:
        if res.resource_type != LAUNCH_TEMPLATE:
            continue
        if linked(asg, res) or (names and text(dig(res.props, "name")) in names):
            out.append(res)
    return out


def find_gpu_pools(resources: Iterable[Any], undecided: Any = None) -> list[GpuPool]:
    """Every GPU pool among a stack's resources (``PolicyResource``-like: ``resource_type``,
    ``props``, ``name``, ``urn``, ``dependencies``).

    A self-managed launch template without an instance type counts when an Auto Scaling
    group that uses it launches only NVIDIA instance types; the group's ``minSize`` becomes
    the pool's. A resource whose GPU-ness or taints are unknown at preview is added to
    ``undecided`` (a :class:`~gpu_node_pool.policies.props.Undecided`) when given, else the
    ``UnknownValueError`` propagates.
    """
    from .props import UnknownValueError

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
    node_classes = _karpenter_node_classes(node_class_resources)
    pools: list[GpuPool] = []
    by_urn: dict[str, GpuPool] = {}
    for res in candidates:
        try:
            pool = gpu_pool_of(res.resource_type, res.props, res.name, res.urn, node_classes=node_classes)
        except UnknownValueError as err:
            if undecided is None:
                raise
            undecided.add(f"{res.resource_type} {res.name}", err)
            continue
        if pool is not None:
            pools.append(pool)
            by_urn[res.urn] = pool
    for asg in groups:
        try:
            types = asg_instance_types(asg.props)
            gpu_group = bool(types) and all(instances.is_nvidia_instance_type(t) for t in types)
            for lt in asg_launch_templates(asg, launch_templates):
                pool = by_urn.get(lt.urn)
                if pool is None and gpu_group:
                    pool = _self_managed(lt.props, lt.name, lt.urn, force_gpu=True)
                    if pool is not None:
                        pools.append(pool)
                        by_urn[lt.urn] = pool
                if pool is not None:
                    pool.extra.setdefault("asgs", []).append(asg)
                    size = _int(dig(asg.props, "minSize"))
                    if size is not None:
                        pool.min_size = size if pool.min_size is None else min(pool.min_size, size)
        except UnknownValueError as err:
            if undecided is None:
                raise
            undecided.add(f"{asg.resource_type} {asg.name}", err)
    return pools

