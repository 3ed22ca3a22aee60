"""Pulumi components of the GPU agents besides NVIDIA's standalone device plugin (issue 14).

* :class:`GpuOperator` - NVIDIA's GPU Operator (chart ``gpu-operator``), for ``devicePlugin.provider: gpu-operator``.
* :class:`DcgmExporter` - NVIDIA's standalone DCGM exporter (chart ``dcgm-exporter``), for
  ``gpuAgents.dcgmExporter.enabled`` with the standalone device plugin.

Both are thin shells over the pure derivations in :mod:`gpu_node_pool.agents.operator` and
:mod:`gpu_node_pool.agents.dcgm`, once per cluster like ``NvidiaDevicePlugin``.
"""

from .dcgm import DcgmExporter, DcgmExporterArgs
from .operator import GpuOperator, GpuOperatorArgs

__all__ = ["GpuOperator", "GpuOperatorArgs", "DcgmExporter", "DcgmExporterArgs"]
