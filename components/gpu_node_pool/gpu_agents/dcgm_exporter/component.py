"""``DcgmExporter``: NVIDIA's standalone DCGM exporter chart, once per cluster, placed on every GPU pool.

A thin shell over :func:`gpu_node_pool.gpu_agents.dcgm_exporter.values.dcgm_values` (tolerations and node affinity derived
like the device plugin's). Used with the standalone device plugin; with the GPU Operator the exporter
is the operator's ``dcgmExporter`` operand instead. Its pods run at ``system-node-critical``, so on GKE its
namespace gets the quota GKE requires for that class (:mod:`gpu_node_pool.gpu_agents.critical_quota`).
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
from .. import chart_install
from ..critical_quota import agent_quota
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

    Children: ``kubernetes.core.v1.Namespace`` ``<name>-namespace``, on GKE (outside ``kube-system``) a
    ``kubernetes.core.v1.ResourceQuota`` ``<name>-quota`` (``dcgm-exporter-critical-pods``,
    :func:`~gpu_node_pool.gpu_agents.critical_quota.agent_quota`), and ``kubernetes.helm.v4.Chart`` ``<name>-chart``.

    Attributes:
        values: the chart values (plain). tolerations: the derived tolerations (Kubernetes objects).

    Raises:
        ConfigError: a second DcgmExporter for the same cluster in one program run, or a ``cluster_name``
            that is no name (see ``NvidiaDevicePlugin``). ValueError: no pool.
    """

    def __init__(self, name: str, args: DcgmExporterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        pools = [agent_pool(p) for p in args.pools]
        self.values = render.dcgm_values(pools, args.extra_tolerations, service_monitor=args.config.service_monitor)
        claim("DcgmExporter", name, args.cluster_name, args.cluster, opts, "DcgmExporterArgs")
        super().__init__(TYPE_TOKEN, name, {AGENT_NAMESPACE_PROP: args.config.namespace}, opts)

        self.tolerations = self.values["tolerations"]
        ns = chart_install.namespace(self, name, args.config.namespace)
        self.chart = chart_install.install_chart(
            self, name, chart=render.CHART, version=args.config.chart_version, repository=args.config.repository,
            namespace_name=args.config.namespace, values=self.values, depends_on=[ns],
            quota=agent_quota(pools, render.CHART, self.values.get("priorityClassName"), args.config.namespace),
        )
