"""The standalone DCGM exporter chart's values, derived from the pools. Pure, no Pulumi.

Chart ``dcgm-exporter`` 4.8.2 (https://nvidia.github.io/dcgm-exporter/helm-charts; NVIDIA/dcgm-exporter ``deployment/``):
``templates/daemonset.yaml`` renders ``.Values.tolerations``,
``.Values.affinity`` and ``.Values.priorityClassName`` verbatim into its DaemonSet. Its default
tolerations tolerate only the control plane, so no tainted GPU node ever gets the exporter
(NVIDIA/dcgm-exporter#731; ``deployment/values.yaml`` ``tolerations``). Same contract as the device
plugin: ``CriticalAddonsOnly`` plus one ``Exists`` toleration per pool taint key/effect, and a required
node affinity matching exactly the pools' nodes (GPU label and ``gpu-node-pools/pool``).

Two chart defaults that would break an install are overridden:

* ``serviceMonitor.enabled`` defaults to ``true`` (``deployment/values.yaml``): the chart then renders a
  ``monitoring.coreos.com/v1`` ``ServiceMonitor``, which a cluster without the Prometheus Operator's CRDs
  rejects (the whole ``pulumi up`` fails). It is off unless ``gpuAgents.dcgmExporter.serviceMonitor`` is true.
* Where the platform's installer puts the NVIDIA driver (``libnvidia-ml.so``, which DCGM loads) in a host
  directory that its device plugin mounts only into containers that request a GPU (``AgentPool.driver_mount``:
  on GKE ``/home/kubernetes/bin/nvidia`` at ``/usr/local/nvidia``,
  https://cloud.google.com/kubernetes-engine/docs/how-to/gpus, "CUDA-X libraries"), the exporter, which requests
  none, gets the host directory through the chart's ``extraHostVolumes`` and ``extraVolumeMounts`` and
  ``LD_LIBRARY_PATH=<container directory>/lib64`` through ``extraEnv``, as Google's own DCGM exporter manifest
  does (https://cloud.google.com/stackdriver/docs/managed-prometheus/exporters/nvidia-dcgm).
  ``extraVolumeMounts`` replaces the chart's default list, so its ``exporter-metrics-volume`` mount
  (``/etc/dcgm-exporter/default-counters.csv``) is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...k8s.taints import Toleration
from ...k8s.wellknown import SYSTEM_NODE_CRITICAL
from ...text.listing import listed
from ..placement import derived_tolerations, node_affinity
from ..pools import AgentPool

__all__ = ["CHART", "CHART_REPO", "CHART_VERSION", "dcgm_values"]

CHART = "dcgm-exporter"
CHART_VERSION = "4.8.2"
CHART_REPO = "https://nvidia.github.io/dcgm-exporter/helm-charts"
#: The volume of the platform's driver directory (the name Google's DCGM exporter manifest gives it).
_DRIVER_VOLUME = "nvidia-install-dir-host"
#: The chart's default ``extraVolumeMounts`` (``deployment/values.yaml``), kept when the list is replaced.
_METRICS_MOUNT = {"name": "exporter-metrics-volume", "mountPath": "/etc/dcgm-exporter/default-counters.csv",
                  "subPath": "default-counters.csv"}


def dcgm_values(pools: Sequence[AgentPool], extra_tolerations: Sequence[Toleration] = (), *,
                service_monitor: bool = False) -> dict[str, Any]:
    """``{tolerations, affinity, priorityClassName, serviceMonitor}`` for the exporter on every pool in ``pools``,
    plus ``extraHostVolumes``/``extraVolumeMounts``/``extraEnv`` for the platform's driver directory when a pool
    has one (``AgentPool.driver_mount``, e.g. GKE's).

    Every GPU pool gets it, whoever runs its device plugin (GKE, Bottlerocket, ours): metrics are
    wanted on all GPUs. ``service_monitor``: render the chart's ``ServiceMonitor`` (needs the
    Prometheus Operator's CRDs in the cluster).

    Raises:
        ValueError: ``pools`` is empty (a node affinity with no ``nodeSelectorTerms`` is rejected by the
            API server: Kubernetes API reference, NodeSelector), or the pools have different platform driver
            directories (one exporter DaemonSet mounts one).
    """
    if not pools:
        raise ValueError("dcgm_values: no GPU pool to place the DCGM exporter on")
    values: dict[str, Any] = {
        "tolerations": [t.to_k8s() for t in derived_tolerations(pools, extra_tolerations)],
        "affinity": node_affinity(pools),
        "priorityClassName": SYSTEM_NODE_CRITICAL,
        "serviceMonitor": {"enabled": bool(service_monitor)},
    }
    mounts: dict[tuple[str, str], list[str]] = {}
    for p in pools:
        if p.driver_mount is not None:
            mounts.setdefault(p.driver_mount, []).append(p.name)
    if len(mounts) > 1:
        raise ValueError("dcgm_values: one exporter mounts one platform driver directory, and the pools have "
                         + "; ".join(f"{host} at {at} ({listed(names, 5)})" for (host, at), names in mounts.items()))
    if mounts:
        [(host, at)] = mounts
        values["extraHostVolumes"] = [{"name": _DRIVER_VOLUME, "hostPath": host}]
        values["extraVolumeMounts"] = [dict(_METRICS_MOUNT), {"name": _DRIVER_VOLUME, "mountPath": at,
                                                              "readOnly": True}]
        values["extraEnv"] = [{"name": "LD_LIBRARY_PATH", "value": f"{at}/lib64"}]
    return values
