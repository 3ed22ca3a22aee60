"""Every node agent a GPU pool needs, one folder per agent, and what they share.

* :mod:`.device_plugin` - NVIDIA's standalone device plugin (chart ``nvidia-device-plugin``): values,
  the chart's DaemonSet as its template renders it, the ``NvidiaDevicePlugin`` component.
* :mod:`.gpu_operator` - NVIDIA's GPU Operator (chart ``gpu-operator``), for ``devicePlugin.provider: gpu-operator``.
* :mod:`.dcgm_exporter` - NVIDIA's standalone DCGM exporter (chart ``dcgm-exporter``), for
  ``gpuAgents.dcgmExporter.enabled`` with the standalone device plugin.
* :mod:`.efa_device_plugin` - the AWS EFA device plugin (chart ``aws-efa-k8s-device-plugin``), for EFA pools.
* beside them: what the agents need of a pool (:mod:`.pools`), GPU sharing (:mod:`.sharing`), MIG
  (:mod:`.mig`, its partitioners :mod:`.mig_partitioners` and per-GPU profile tables :mod:`.mig_profiles`),
  what a node advertises once they run (:mod:`.capacity`), the stack rules of the
  agent config (:mod:`.validate`) and the once-per-cluster guard of their components (:mod:`.once`).

Each folder's ``values`` module is pure; its ``component`` module is the Pulumi shell over it. The
components load on first use, so that the pure modules import without the Pulumi SDK.
"""

from __future__ import annotations

from typing import Any

__all__ = ["NvidiaDevicePlugin", "NvidiaDevicePluginArgs", "GpuOperator", "GpuOperatorArgs", "DcgmExporter", "DcgmExporterArgs",
           "EfaDevicePlugin", "EfaDevicePluginArgs"]

_HOME = {
    "NvidiaDevicePlugin": ".device_plugin.component",
    "NvidiaDevicePluginArgs": ".device_plugin.component",
    "GpuOperator": ".gpu_operator.component",
    "GpuOperatorArgs": ".gpu_operator.component",
    "DcgmExporter": ".dcgm_exporter.component",
    "DcgmExporterArgs": ".dcgm_exporter.component",
    "EfaDevicePlugin": ".efa_device_plugin.component",
    "EfaDevicePluginArgs": ".efa_device_plugin.component",
}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        import importlib

        return getattr(importlib.import_module(_HOME[name], __name__), name)
    raise AttributeError(name)
