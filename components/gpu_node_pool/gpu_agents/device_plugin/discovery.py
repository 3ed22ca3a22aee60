"""GPU Feature Discovery in the device-plugin chart : ``gfd.enabled`` and its NFD worker's tolerations.

The ``nvidia-device-plugin`` 0.20.0 chart runs GFD (``templates/daemonset-gfd.yml``, with the chart's
top-level ``tolerations`` and ``affinity``, so the plugin's derived ones) and, as the dependency
``nfd`` (node-feature-discovery 0.19.0, condition ``nfd.enabled,gfd.enabled``), an NFD worker whose
default ``nfd.worker.tolerations`` tolerate only ``nvidia.com/gpu=present`` with operator ``Equal``:
a pool tainted ``nvidia.com/gpu=true`` never gets feature discovery (NVIDIA/k8s-device-plugin#1934;
NVIDIA/k8s-device-plugin@v0.20.0 ``deployments/helm/nvidia-device-plugin/values.yaml`` ``nfd.worker.tolerations``). Here the worker gets the same derived
``Exists`` tolerations as the plugin. GFD is needed with MPS: the chart's MPS control daemon runs only
on nodes GFD labels ``nvidia.com/mps.capable=true`` (NVIDIA/k8s-device-plugin@v0.20.0 ``templates/daemonset-mps-control-daemon.yml``, ``internal/lm/nvml.go``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..sharing_config import pool_sharing

__all__ = ["needs_feature_discovery", "discovery_values"]


def needs_feature_discovery(pools: Sequence[Any], enabled: bool) -> bool:
    """True when ``gpuAgents.featureDiscovery.enabled`` or a served pool shares its GPUs with MPS."""
    return enabled or any((s := pool_sharing(p)) is not None and s[0] == "mps" for p in pools)


def discovery_values(tolerations: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``{gfd: {enabled: true}, nfd: {worker: {tolerations}}}`` with the plugin's derived ``tolerations``
    (Kubernetes objects), merged into the chart values by :func:`.values.chart_values`."""
    return {"gfd": {"enabled": True}, "nfd": {"worker": {"tolerations": [dict(t) for t in tolerations]}}}
