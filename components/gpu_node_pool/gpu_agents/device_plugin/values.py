"""NVIDIA device plugin chart values, derived from the pools it serves.

The chart (``nvidia-device-plugin`` 0.20.0, https://nvidia.github.io/k8s-device-plugin)
renders ``.Values.tolerations``, ``.Values.affinity`` and ``.Values.priorityClassName``
verbatim into its DaemonSet. A custom ``tolerations`` list *replaces* the chart's defaults
(Helm lists do not merge), so ``CriticalAddonsOnly`` is added back here.

Sources: NVIDIA/k8s-device-plugin v0.20.0 ``deployments/helm/nvidia-device-plugin/values.yaml``
and ``templates/daemonset-device-plugin.yml``; the static manifest's container
``securityContext`` (``allowPrivilegeEscalation: false``, ``capabilities.drop: [ALL]``).

GKE pools: Google's driver installers put the driver under ``/home/kubernetes/bin/nvidia`` on the host
(:data:`GKE_DRIVER_ROOT`; GoogleCloudPlatform/container-engine-accelerators ``nvidia-driver-installer/cos/daemonset-preloaded.yaml``
``NVIDIA_INSTALL_DIR_HOST``, and ``cmd/nvidia_gpu/nvidia_gpu.go`` ``-host-path``, where GKE's own plugin finds it),
not under ``/``, which the plugin assumes by default. With the chart's ``nvidiaDriverRoot`` the template mounts
that directory at ``/driver-root`` and sets ``NVIDIA_DRIVER_ROOT``; the plugin then loads
``/driver-root/lib64/libnvidia-ml.so.1`` (``cmd/nvidia-device-plugin/root.go`` ``tryResolveLibrary`` searches
``lib64`` under the driver root). Without it NVML does not load and the plugin advertises no GPU. The value is set
only when every served pool is a GKE pool: the chart's ``hostPath`` has ``type: Directory``, which a node without
that directory refuses.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...config import DevicePluginConfig
from ...k8s.taints import Taint, Toleration, tolerations_tolerate_taint
from ...k8s.wellknown import GKE_NVIDIA_INSTALL_DIR, SYSTEM_NODE_CRITICAL
from ..placement import CRITICAL_ADDONS_ONLY, ServedPool, derived_tolerations, node_affinity
from ..sharing_config import config_values, pool_sharing
from .discovery import discovery_values, needs_feature_discovery

__all__ = [
    "CHART",
    "CHART_VERSION",
    "CHART_REPO",
    "APP_VERSION",
    "GKE_DRIVER_ROOT",
    "CRITICAL_ADDONS_ONLY",
    "ServedPool",
    "derived_tolerations",
    "node_affinity",
    "chart_values",
    "chart_tolerations",
    "coverage",
]

CHART = "nvidia-device-plugin"
CHART_VERSION = "0.20.0"
APP_VERSION = "0.20.0"
CHART_REPO = "https://nvidia.github.io/k8s-device-plugin"
IMAGE_REPOSITORY = "nvcr.io/nvidia/k8s-device-plugin"
#: Where GKE nodes carry the NVIDIA driver (the chart's ``nvidiaDriverRoot`` for GKE pools).
GKE_DRIVER_ROOT = GKE_NVIDIA_INSTALL_DIR


def chart_values(pools: Sequence[ServedPool], config: DevicePluginConfig, feature_discovery: bool = False) -> dict[str, Any]:
    """The chart ``values`` for the pools that need NVIDIA's plugin (``uses_nvidia_device_plugin``).

    Keys: ``tolerations`` (derived), ``affinity`` (derived), ``priorityClassName``
    (``system-node-critical``), ``image`` (tag pinned to the app version, or a digest), an
    unprivileged container ``securityContext``, and ``config`` (``map`` + ``default``, see
    :func:`.sharing.config_values`) when a served pool has ``gpuSharing``; ``gfd`` and ``nfd.worker.tolerations``
    (:mod:`.discovery`) with ``feature_discovery`` (``gpuAgents.featureDiscovery.enabled``) or an MPS pool;
    ``nvidiaDriverRoot`` (:data:`GKE_DRIVER_ROOT`) when every served pool is a GKE pool (``image_family`` ``gke``).
    """
    served = [p for p in pools if p.uses_nvidia_device_plugin]
    extra = [t.to_toleration() for t in config.extra_tolerations]
    image: dict[str, Any] = {"repository": IMAGE_REPOSITORY, "tag": f"v{APP_VERSION}"}
    if config.image_digest:
        image["tag"] = f"v{APP_VERSION}@{config.image_digest}"
    values = {
        "tolerations": [t.to_k8s() for t in derived_tolerations(served, extra)],
        "affinity": node_affinity(served),
        "priorityClassName": SYSTEM_NODE_CRITICAL,
        "image": image,
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "privileged": False,
            "capabilities": {"drop": ["ALL"]},
        },
    }
    if served and all(getattr(p, "image_family", None) == "gke" for p in served):
        values["nvidiaDriverRoot"] = GKE_DRIVER_ROOT  # GKE's driver is not under /: NVML loads from here
    sharing = config_values(s for p in served if (s := pool_sharing(p)) is not None)
    if sharing:  # time-slicing / MPS: named configs selected by each pool's nvidia.com/device-plugin.config label
        values["config"] = sharing
    if needs_feature_discovery(served, feature_discovery):  # GFD + its NFD worker, tolerating every pool taint
        values.update(discovery_values(values["tolerations"]))
    return values


def chart_tolerations(values: Mapping[str, Any]) -> list[Toleration]:
    """Tolerations back from chart values (the inverse of the ``tolerations`` key)."""
    return [Toleration.from_k8s(t) for t in (values.get("tolerations") or [])]


@dataclass(frozen=True)
class Coverage:
    pool: str
    taint: Taint
    tolerated: bool


def coverage(values: Mapping[str, Any], pools: Iterable[ServedPool]) -> list[Coverage]:
    """For each served pool and taint: does the plugin (these chart values) tolerate it?"""
    tolerations = chart_tolerations(values)
    return [
        Coverage(pool.name, taint, tolerations_tolerate_taint(tolerations, taint))
        for pool in pools
        if pool.uses_nvidia_device_plugin
        for taint in pool.taint_list
    ]


