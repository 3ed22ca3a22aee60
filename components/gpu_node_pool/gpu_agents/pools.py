"""What the GPU-agent derivations need of a pool, as plain frozen values.

:class:`AgentPool` is built from a validated pool config model with :func:`agent_pool`
(or directly, in tests). Every derivation in :mod:`gpu_node_pool.gpu_agents` takes these, so it
does not depend on how the config package is laid out.

Nothing here branches on a backend name: each backend's pool model gives its facts (``PoolBase``
properties overridden in ``backends/<name>/config.py``, with their sources there: e.g. the EKS
AL2023/Bottlerocket NVIDIA AMIs ship the driver, Bottlerocket and EKS Auto Mode also the device
plugin, GKE installs the driver and runs its own plugin unless the pool opts out), and its registry
record says how it shares and partitions GPUs (``gpu_sharing``, ``mig``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..k8s.taints import Taint
from ..k8s.wellknown import GKE_ACCELERATOR_LABEL
from ..text.listing import listed

__all__ = [
    "Problem",
    "GpuSharing",
    "MigSetting",
    "GpuLabel",
    "AgentPool",
    "agent_pool",
    "HOST_DRIVER_ROOT",
    "shared_driver_root",
    "GKE_ACCELERATOR_LABEL",
]


Strategy = Literal["timeSlicing", "mps"]
#: Who installs the NVIDIA driver: the node image, the platform (GKE's installer), nobody, or not known from the config.
DriverSource = Literal["image", "platform", "none", "unknown"]
#: Who runs a device plugin without us: the node image (Bottlerocket, EKS Auto Mode), the platform (GKE), or nobody.
PluginSource = Literal["image", "platform", "none"]
#: How the backend shares (``gpuSharing``) or partitions (``mig``) GPUs: NVIDIA's device plugin (and the
#: GPU Operator's MIG manager / the node image), or the platform itself (GKE); see ``registry.Backend``.
FeatureBy = Literal["device-plugin", "platform"]
#: The node image family, for the GPU Operator's per-backend enables.
ImageFamily = Literal["al2023-nvidia", "bottlerocket-nvidia", "gke", "other"]
#: The driver root NVIDIA's charts assume unless told otherwise: the driver in the host's own paths
#: (NVIDIA/k8s-device-plugin@v0.20.0 ``deployments/helm/nvidia-device-plugin/values.yaml`` ``nvidiaDriverRoot: "/"``).
HOST_DRIVER_ROOT = "/"


@dataclass(frozen=True)
class Problem:
    """One problem with the config, as a one-line message.

    Attributes:
        path: the config path, e.g. ``pools[0].gpuSharing.replicas``.
        message: the bad value, the rule with its source, and the fix.
        warning: True for a warning (an UNCONFIRMED rule, or a documented figure exceeded),
            False for an error that refuses the config.
    """

    path: str
    message: str
    warning: bool = False

    def __str__(self) -> str:
        kind = "warning" if self.warning else "error"
        return f"{self.path}: {kind}: {self.message}"


@dataclass(frozen=True)
class GpuSharing:
    """``gpuSharing`` of a pool: ``strategy`` ``timeSlicing`` | ``mps`` and ``replicas`` (clients per GPU)."""

    strategy: Strategy
    replicas: int


@dataclass(frozen=True)
class MigSetting:
    """``mig`` of a pool: ``strategy`` ``single`` | ``mixed`` and the MIG ``profile`` (e.g. ``1g.10gb``)."""

    strategy: Literal["single", "mixed"]
    profile: str


@dataclass(frozen=True)
class GpuLabel:
    key: str
    value: str


@dataclass(frozen=True)
class AgentPool:
    """A GPU pool as the agent derivations see it.

    Attributes:
        name: the pool name.
        backend: the pool's ``backend`` (a registered backend name; nothing branches on it).
        taints: the pool's taints (never startup taints).
        labels: the node labels every node of the pool is known to carry (the user's, the
            GPU label, the pool label, and labels the backend is documented to set).
        gpu_label: the label that marks the pool's nodes as GPU nodes.
        gpus_per_node: physical GPUs per node, or None when the config does not fix it.
        gpu_model: the GPU model (e.g. ``nvidia-l4``, ``A100-SXM4-40GB``) when known.
        driver: who installs the NVIDIA driver (``image``, ``platform``, ``none``, ``unknown``).
        device_plugin: who runs a device plugin without us (``image``, ``platform``, ``none``).
        image_family: ``al2023-nvidia`` | ``bottlerocket-nvidia`` | ``gke`` | ``other``.
        sharing: the pool's ``gpuSharing``, or None.
        mig: the pool's ``mig``, or None.
        sharing_by: how the backend applies ``gpuSharing``: ``device-plugin`` (NVIDIA's plugin's named
            configs) or ``platform`` (the platform's own sharing on the pools its plugin serves: GKE).
        mig_by: how the backend partitions MIG: ``device-plugin`` (GPU Operator MIG manager or the
            node image) or ``platform`` (GKE ``gpu_partition_size``).
        bottlerocket_settings: the backend writes the nodes' Bottlerocket settings (user data), so
            Bottlerocket's own MIG settings can be set (``PoolBase.writes_bottlerocket_settings``).
        node_image: the node image the backend names for the pool's nodes (the pool model's ``node_image``, e.g.
            GKE's ``COS_CONTAINERD`` or ``UBUNTU_CONTAINERD``), None when it names none.
        driver_root: the host directory holding the NVIDIA driver on the pool's nodes (the pool model's
            ``driver_root``): :data:`HOST_DRIVER_ROOT` when the backend states no other, a directory such as GKE
            COS's ``/home/kubernetes/bin/nvidia``, or None when the backend says no public source states it.
        driver_mount: ``(host directory, container directory)`` when the platform's own installer puts the NVIDIA
            driver on the nodes (not NVIDIA's driver container, not the host's paths) and the platform's device
            plugin mounts that directory only into containers that request a GPU (the pool model's
            ``driver_mount``): on GKE ``("/home/kubernetes/bin/nvidia", "/usr/local/nvidia")``, the ``-host-path``
            and ``-container-path`` of GKE's device plugin (GoogleCloudPlatform/container-engine-accelerators
            ``cmd/nvidia_gpu/nvidia_gpu.go``; https://cloud.google.com/kubernetes-engine/docs/how-to/gpus,
            "CUDA-X libraries"). An agent that requests no GPU mounts it itself; the GPU Operator installs no driver
            where every pool has one (NVIDIA cloud-native-docs ``gpu-operator/google-gke.rst``). None: no such
            platform directory.
        critical_pods_need_quota: the platform admits ``system-node-critical``/``system-cluster-critical`` pods
            outside ``kube-system`` only in a namespace holding a ResourceQuota scoped to them (the pool model's
            ``critical_pods_need_quota``: True on GKE, :mod:`gpu_node_pool.gpu_agents.critical_quota`).
    """

    name: str
    backend: str
    taints: tuple[Taint, ...]
    labels: Mapping[str, str]
    gpu_label: GpuLabel
    gpus_per_node: int | None = None
    gpu_model: str | None = None
    driver: DriverSource = "unknown"
    device_plugin: PluginSource = "none"
    image_family: ImageFamily = "other"
    sharing: GpuSharing | None = None
    mig: MigSetting | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    sharing_by: FeatureBy = "device-plugin"
    mig_by: FeatureBy = "device-plugin"
    bottlerocket_settings: bool = False
    node_image: str | None = None
    driver_root: str | None = HOST_DRIVER_ROOT
    driver_mount: tuple[str, str] | None = None
    critical_pods_need_quota: bool = False

    # the ServedPool protocol of render/device_plugin.py
    @property
    def taint_list(self) -> list[Taint]:
        return list(self.taints)

    @property
    def node_labels(self) -> dict[str, str]:
        return dict(sorted(self.labels.items()))

    @property
    def uses_nvidia_device_plugin(self) -> bool:
        return self.device_plugin == "none"

    @property
    def display(self) -> str:
        return f"GPU pool {self.name!r} ({self.backend})"


def _gpus_per_node(pool: Any) -> int | None:
    from ..catalog import instances

    if getattr(pool, "gpus_per_node", None):  # stated by the user (or by the accelerator): wins over the catalog
        return pool.gpus_per_node
    types = getattr(pool, "instance_types", None) or []
    counts = {instances.gpu_count(t) for t in types}
    if len(counts) == 1:
        return counts.pop()
    gpu_counts = getattr(pool, "gpu_counts", None)
    if gpu_counts and len(set(gpu_counts)) == 1:
        return gpu_counts[0]
    return None


def agent_pool(pool: Any, *, sharing: GpuSharing | None = None, mig: MigSetting | None = None) -> AgentPool:
    """Build an :class:`AgentPool` from a validated pool model (a ``PoolBase`` of any registered backend).

    What differs per backend comes from the pool model (``image_family``, ``driver_source``,
    ``device_plugin_source``, ``gpu_model``, ``platform_node_labels``, ``node_image``, ``driver_root``,
    ``driver_mount``, ``critical_pods_need_quota``: ``PoolBase`` defaults, overridden
    in each backend's ``config.py``) and from its registry record (``gpu_sharing``, ``mig``: how
    the backend shares and partitions GPUs). ``sharing`` and ``mig`` override the pool's
    ``gpu_sharing``/``mig`` (tests).

    Raises:
        KeyError: ``pool.backend`` is not a registered backend (the message names the registered ones).
    """
    from ..registry import get

    record = get(pool.backend)
    sharing = sharing or _plain_sharing(getattr(pool, "gpu_sharing", None))
    mig = mig or _plain_mig(getattr(pool, "mig", None))
    labels = dict(pool.node_labels)
    for key, value in pool.platform_node_labels.items():
        labels.setdefault(key, value)
    return AgentPool(
        name=pool.name,
        backend=pool.backend,
        taints=tuple(pool.taint_list),
        labels=labels,
        gpu_label=GpuLabel(pool.gpu_label.key, pool.gpu_label.value),
        gpus_per_node=_gpus_per_node(pool),
        gpu_model=pool.gpu_model,
        driver=pool.driver_source,
        device_plugin=pool.device_plugin_source,
        image_family=pool.image_family,
        sharing=sharing,
        mig=mig,
        sharing_by=record.gpu_sharing or "device-plugin",
        mig_by=record.mig or "device-plugin",
        bottlerocket_settings=bool(getattr(pool, "writes_bottlerocket_settings", False)),
        node_image=getattr(pool, "node_image", None),
        driver_root=getattr(pool, "driver_root", HOST_DRIVER_ROOT),
        driver_mount=getattr(pool, "driver_mount", None),
        critical_pods_need_quota=bool(getattr(pool, "critical_pods_need_quota", False)),
    )


def shared_driver_root(pools: Iterable[Any]) -> tuple[str | None, str | None]:
    """``(root, why_not)``: the driver root every pool of ``pools`` (:class:`AgentPool` or pool models; one without
    ``driver_root`` has :data:`HOST_DRIVER_ROOT`) has (``root``; :data:`HOST_DRIVER_ROOT` when none is given), else
    ``(None, why)``, ``why`` naming the pools whose root is not stated and the pools of each root. One agent
    instance mounts one driver root on every node it runs on."""
    by_root: dict[str | None, list[str]] = {}
    for p in pools:
        by_root.setdefault(getattr(p, "driver_root", HOST_DRIVER_ROOT), []).append(p.name)
    if not by_root:
        return HOST_DRIVER_ROOT, None
    if len(by_root) == 1 and None not in by_root:
        return next(iter(by_root)), None
    parts = [f"no source states where the driver lies on the nodes of {listed(names, 5)}" if root is None else
             f"{listed(names, 5)} {'has' if len(names) == 1 else 'have'} it under {root}"
             for root, names in by_root.items()]
    return None, "; ".join(parts)


def _plain_sharing(model: Any) -> GpuSharing | None:
    if model is None:
        return None
    return GpuSharing(model.strategy, model.replicas)


def _plain_mig(model: Any) -> MigSetting | None:
    if model is None:
        return None
    return MigSetting(model.strategy, model.profile)
