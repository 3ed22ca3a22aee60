"""NVIDIA device plugin chart values, derived from the pools it serves.

The chart (``nvidia-device-plugin`` 0.20.0, https://nvidia.github.io/k8s-device-plugin)
renders ``.Values.tolerations``, ``.Values.affinity`` and ``.Values.priorityClassName``
verbatim into its DaemonSet. A custom ``tolerations`` list *replaces* the chart's defaults
(Helm lists do not merge), so ``CriticalAddonsOnly`` is added back here.

Sources: NVIDIA/k8s-device-plugin v0.20.0 ``deployments/helm/nvidia-device-plugin/values.yaml``
and ``templates/daemonset-device-plugin.yml``; the static manifest's container
``securityContext`` (``allowPrivilegeEscalation: false``, ``capabilities.drop: [ALL]``).

Driver root: each served pool says where the driver lies on its nodes' host (``AgentPool.driver_root``, from the
pool model: ``/`` unless the backend states another; GKE COS nodes ``/home/kubernetes/bin/nvidia``, where Google's
COS installer puts it, GoogleCloudPlatform/container-engine-accelerators
``nvidia-driver-installer/cos/daemonset-preloaded.yaml`` ``NVIDIA_INSTALL_DIR_HOST``; GKE Ubuntu nodes: not stated
by any public source, ``backends/gke/image.py`` ``DRIVER_ROOT_SOURCE``). With the chart's ``nvidiaDriverRoot`` the
template mounts that directory at ``/driver-root`` and sets ``NVIDIA_DRIVER_ROOT``; the plugin then loads
``/driver-root/lib64/libnvidia-ml.so.1`` (``cmd/nvidia-device-plugin/root.go`` ``tryResolveLibrary`` searches
``lib64`` under the driver root). The value is set only when every served pool has the same root and it is not
``/`` (:func:`driver_root`): the chart's ``hostPath`` has ``type: Directory``, which a node without that directory
refuses, and one instance mounts one root. Otherwise it is left out and the reason is given to the caller's
warning (GKE's stack warning, ``backends/gke/driver.py`` ``toolkit_warnings``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...config import DevicePluginConfig
from ...k8s.taints import Taint, Toleration, tolerations_tolerate_taint
from ...k8s.wellknown import GKE_NVIDIA_INSTALL_DIR, SYSTEM_NODE_CRITICAL
from ..placement import CRITICAL_ADDONS_ONLY, ServedPool, derived_tolerations, node_affinity
from ..pools import HOST_DRIVER_ROOT, shared_driver_root
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
    "driver_root",
    "chart_tolerations",
    "coverage",
]

CHART = "nvidia-device-plugin"
CHART_VERSION = "0.20.0"
APP_VERSION = "0.20.0"
CHART_REPO = "https://nvidia.github.io/k8s-device-plugin"
IMAGE_REPOSITORY = "nvcr.io/nvidia/k8s-device-plugin"
#: Where GKE COS nodes carry the NVIDIA driver (the chart's ``nvidiaDriverRoot`` for COS pools).
GKE_DRIVER_ROOT = GKE_NVIDIA_INSTALL_DIR


def driver_root(pools: Sequence[ServedPool]) -> tuple[str | None, str | None]:
    """``(nvidiaDriverRoot, why_not)`` for the plugin on the pools that need it (``uses_nvidia_device_plugin``):
    ``(root, None)`` when they all have one ``driver_root`` other than ``/``; ``(None, None)`` when they all keep the
    chart's ``/``; ``(None, why)`` when they differ or a root is not stated (the value is then left out)."""
    root, why = shared_driver_root(p for p in pools if p.uses_nvidia_device_plugin)
    if root == HOST_DRIVER_ROOT:
        return None, None
    if root is None:
        return None, (f"the chart's nvidiaDriverRoot is left out: one plugin instance mounts one driver root "
                      f"(a hostPath of type Directory) on every node it serves, and {why}")
    return root, None


def chart_values(pools: Sequence[ServedPool], config: DevicePluginConfig, feature_discovery: bool = False) -> dict[str, Any]:
    """The chart ``values`` for the pools that need NVIDIA's plugin (``uses_nvidia_device_plugin``).

    Keys: ``tolerations`` (derived), ``affinity`` (derived), ``priorityClassName``
    (``system-node-critical``), ``image`` (tag pinned to the app version, or a digest), an
    unprivileged container ``securityContext``, and ``config`` (``map`` + ``default``, see
    :func:`.sharing.config_values`) when a served pool has ``gpuSharing``; ``gfd`` and ``nfd.worker.tolerations``
    (:mod:`.discovery`) with ``feature_discovery`` (``gpuAgents.featureDiscovery.enabled``) or an MPS pool;
    ``nvidiaDriverRoot`` when every served pool has the same driver root other than ``/`` (:func:`driver_root`).
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
    root, _ = driver_root(served)
    if root is not None:  # the driver is not under /: NVML loads from here
        values["nvidiaDriverRoot"] = root
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


