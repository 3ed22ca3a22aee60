"""What the GPU-agent derivations need of a pool, as plain frozen values.

:class:`AgentPool` is built from a validated pool config model with :func:`agent_pool`
(or directly, in tests). Every derivation in :mod:`gpu_node_pool.agents` takes these, so it
does not depend on how the config package is laid out.

What each backend's node image provides (sources):

* EKS AL2023 NVIDIA and Bottlerocket NVIDIA AMIs ship the NVIDIA driver and container
  toolkit; Bottlerocket NVIDIA also ships NVIDIA's device plugin (EKS user guide
  ``ml-eks-optimized-ami``, https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html).
* GKE installs the driver unless ``gpuDriverVersion: INSTALLATION_DISABLED`` and runs its own
  device plugin unless the pool carries ``gke-no-default-nvidia-gpu-device-plugin=true``
  (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus; NVIDIA/cloud-native-docs
  ``gpu-operator/google-gke.rst``). GKE labels GPU nodes ``cloud.google.com/gke-accelerator=<type>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..k8s.taints import Taint

__all__ = [
    "Problem",
    "GpuSharing",
    "MigSetting",
    "GpuLabel",
    "AgentPool",
    "agent_pool",
    "GKE_ACCELERATOR_LABEL",
]

#: GKE sets it on every GPU node (the driver installer DaemonSet selects on it).
GKE_ACCELERATOR_LABEL = "cloud.google.com/gke-accelerator"

Strategy = Literal["timeSlicing", "mps"]
#: Who installs the NVIDIA driver: the node image, GKE, nobody, or not known from the config.
DriverSource = Literal["image", "gke", "none", "unknown"]
#: Who runs a device plugin without us: the node image (Bottlerocket), GKE, or nobody.
PluginSource = Literal["image", "gke", "none"]
#: The node image family, for the GPU Operator's per-backend enables.
ImageFamily = Literal["al2023-nvidia", "bottlerocket-nvidia", "gke", "other"]


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
        backend: ``eks-managed`` | ``karpenter`` | ``self-managed`` | ``gke``.
        taints: the pool's taints (never startup taints).
        labels: the node labels every node of the pool is known to carry (the user's, the
            GPU label, the pool label, and labels the backend is documented to set).
        gpu_label: the label that marks the pool's nodes as GPU nodes.
        gpus_per_node: physical GPUs per node, or None when the config does not fix it.
        gpu_model: the GPU model (e.g. ``nvidia-l4``, ``A100-SXM4-40GB``) when known.
        driver: who installs the NVIDIA driver (``image``, ``gke``, ``none``, ``unknown``).
        device_plugin: who runs a device plugin without us (``image``, ``gke``, ``none``).
        image_family: ``al2023-nvidia`` | ``bottlerocket-nvidia`` | ``gke`` | ``other``.
        sharing: the pool's ``gpuSharing``, or None.
        mig: the pool's ``mig``, or None.
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

    backend = getattr(pool, "backend", "")
    if backend == "gke":
        return pool.accelerator.count
    if getattr(pool, "gpus_per_node", None):  # stated by the user: wins over the instance table
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
    """Build an :class:`AgentPool` from a validated pool model (``config.PoolConfig``).

    ``sharing`` and ``mig`` come from the new config (:mod:`.config_models`) until it is wired
    into the pool models; when the model already carries ``gpu_sharing``/``mig`` they are used.

    Raises:
        ValueError: ``pool`` has an unknown ``backend``.
    """
    sharing = sharing or _plain_sharing(getattr(pool, "gpu_sharing", None))
    mig = mig or _plain_mig(getattr(pool, "mig", None))
    backend = pool.backend
    labels = dict(pool.node_labels)
    family: str = "other"
    driver: str = "unknown"
    plugin: str = "none"
    model = None
    if backend == "eks-managed":
        family = "bottlerocket-nvidia" if pool.ami_type.startswith("BOTTLEROCKET_") else "al2023-nvidia"
        driver = "image"
    elif backend == "karpenter":
        bottlerocket = pool.ships_own_device_plugin
        family = "bottlerocket-nvidia" if bottlerocket else "other"
        driver = "image" if bottlerocket else "unknown"
    elif backend == "self-managed":
        fmt = getattr(pool, "format", None)
        if getattr(pool, "provider", None) == "aws" and getattr(pool, "ami_id", None) is None and fmt in ("al2023", "bottlerocket"):
            family = "bottlerocket-nvidia" if fmt == "bottlerocket" else "al2023-nvidia"
            driver = "image"
    elif backend == "gke":
        family = "gke"
        model = pool.accelerator.type
        labels.setdefault(GKE_ACCELERATOR_LABEL, pool.accelerator.type)
        driver = "none" if pool.accelerator.gpu_driver_version == "INSTALLATION_DISABLED" else "gke"
    else:
        raise ValueError(f"pool {getattr(pool, 'name', '?')!r}: unknown backend {backend!r}")
    if backend != "gke" and pool.ships_own_device_plugin:
        plugin = "image"
    if backend == "gke" and not pool.uses_nvidia_device_plugin:
        plugin = "gke"
    return AgentPool(
        name=pool.name,
        backend=backend,
        taints=tuple(pool.taint_list),
        labels=labels,
        gpu_label=GpuLabel(pool.gpu_label.key, pool.gpu_label.value),
        gpus_per_node=_gpus_per_node(pool),
        gpu_model=model,
        driver=driver,  # type: ignore[arg-type]
        device_plugin=plugin,  # type: ignore[arg-type]
        image_family=family,  # type: ignore[arg-type]
        sharing=sharing,
        mig=mig,
    )


def _plain_sharing(model: Any) -> GpuSharing | None:
    if model is None:
        return None
    return GpuSharing(model.strategy, model.replicas)


def _plain_mig(model: Any) -> MigSetting | None:
    if model is None:
        return None
    return MigSetting(model.strategy, model.profile)
