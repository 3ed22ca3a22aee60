"""``DcgmExporter``: NVIDIA's standalone DCGM exporter chart, once per cluster, placed on every GPU pool.

A thin shell over :func:`gpu_node_pool.gpu_agents.dcgm_exporter.values.dcgm_values` (tolerations and node affinity derived
like the device plugin's). Used with the standalone device plugin; with the GPU Operator the exporter
is the operator's ``dcgmExporter`` operand instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi

from ...config import PoolConfig
from ...config.agents import DcgmExporterConfig
from ...k8s.taints import Toleration
from ...k8s.wellknown import AGENT_NAMESPACE_PROP, DCGM_EXPORTER_TYPE
from ..once import claim
from ..pools import agent_pool
from . import values as render

__all__ = ["DcgmExporter", "DcgmExporterArgs", "TYPE_TOKEN"]

TYPE_TOKEN = DCGM_EXPORTER_TYPE


@dataclass(frozen=True)
class DcgmExporterArgs:
    """Arguments of :class:`DcgmExporter`.

    Attributes:
        cluster_name: the cluster all ``pools`` belong to (see ``NvidiaDevicePluginArgs``).
        pools: the pools' validated models (``GpuNodePool.spec``): every GPU pool gets the exporter.
        config: stack ``gpuAgents.dcgmExporter`` (namespace, chart version, repository).
        extra_tolerations: tolerations for taints of nodes outside the stack.
        cluster: optional cluster resource the once-per-cluster guard is keyed on.
    """

    cluster_name: Any
    pools: Sequence[PoolConfig]
    config: DcgmExporterConfig = field(default_factory=lambda: DcgmExporterConfig(enabled=True))
    extra_tolerations: Sequence[Toleration] = ()
    cluster: Any = None


class DcgmExporter(pulumi.ComponentResource):
    """The ``dcgm-exporter`` chart 4.8.2 with tolerations and node affinity derived from the pools.

    Children: ``kubernetes.core.v1.Namespace`` ``<name>-namespace`` and ``kubernetes.helm.v4.Chart``
    ``<name>-chart``.

    Attributes:
        values: the chart values (plain). tolerations: the derived tolerations (Kubernetes objects).

    Raises:
        ConfigError: a second DcgmExporter for the same cluster in one program run, or a ``cluster_name``
            that is no name (see ``NvidiaDevicePlugin``). ValueError: no pool.
    """

    def __init__(self, name: str, args: DcgmExporterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        self.values = render.dcgm_values([agent_pool(p) for p in args.pools], args.extra_tolerations,
                                         service_monitor=args.config.service_monitor)
        claim("DcgmExporter", name, args.cluster_name, args.cluster, opts, "DcgmExporterArgs")
        super().__init__(TYPE_TOKEN, name, {AGENT_NAMESPACE_PROP: args.config.namespace}, opts)
        import pulumi_kubernetes as k8s

        self.tolerations = self.values["tolerations"]
        namespace = k8s.core.v1.Namespace(
            f"{name}-namespace", metadata={"name": args.config.namespace}, opts=pulumi.ResourceOptions(parent=self)
        )
        self.chart = k8s.helm.v4.Chart(
            f"{name}-chart",
            chart=render.CHART,
            version=args.config.chart_version,
            repository_opts={"repo": args.config.repository},
            namespace=args.config.namespace,
            values=self.values,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[namespace]),
        )
        self.register_outputs({"values": self.values, "namespace": args.config.namespace})
