"""``NvidiaDevicePlugin``: the NVIDIA device plugin chart, once per cluster, for all its GPU pools.

A thin shell over :func:`gpu_node_pool.gpu_agents.device_plugin.values.chart_values`. The chart is a
``kubernetes.helm.v4.Chart`` (rendered client-side, so its DaemonSet is a real child that
policies check at preview), in its own namespace; its pods run at ``system-node-critical``, so on GKE that
namespace gets the quota GKE requires for the class (:mod:`gpu_node_pool.gpu_agents.critical_quota`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi

from ...config import ConfigError, ConfigIssue, DevicePluginConfig, PoolConfig
from ...k8s.wellknown import AGENT_NAMESPACE_PROP
from .. import chart_install, once
from ..critical_quota import agent_quota
from ..validate import served_pool_issues
from . import checks
from . import values as render

__all__ = ["NvidiaDevicePlugin", "NvidiaDevicePluginArgs"]

TYPE_TOKEN = "gpu-node-pools:index:NvidiaDevicePlugin"


@dataclass(frozen=True)
class NvidiaDevicePluginArgs:
    """Arguments of :class:`NvidiaDevicePlugin`.

    Attributes:
        cluster_name: the cluster all ``pools`` belong to; one plugin per cluster in a program run.
            A plain string, a ``pulumi.Input`` (``eks_cluster.name``), or the cluster resource
            itself (then it is also ``cluster``). The once-per-cluster guard is keyed on the
            kubernetes provider in ``opts.providers``, else ``cluster``, else this value: a string
            by value, an Output by object identity. Two different Outputs naming the same cluster
            cannot be compared (unknown at preview), so a second plugin declared with another
            Output of the same name is not caught: pass ``cluster`` or the provider for that.
            The chart is installed through the kubernetes provider in ``opts.providers`` (build it
            from your cluster's kubeconfig; the component builds none).
        pools: the pools' validated models (``GpuNodePool.spec``) the plugin serves; pools that
            ship their own plugin (Bottlerocket NVIDIA) are skipped by the renderer.
        config: chart settings (namespace, version, image digest, extra tolerations): a ``DevicePluginConfig``,
            or its camelCase mapping as the stack's ``devicePlugin`` (``{"namespace": "gpu"}``), validated
            as the stack config is.
        cluster: optional cluster resource (``aws.eks.Cluster``, ``gcp.container.Cluster``...)
            the once-per-cluster guard is keyed on (a kubernetes provider in ``opts.providers``
            takes precedence).
        feature_discovery: also run GPU Feature Discovery and its NFD worker (``gfd.enabled``), with
            the derived tolerations; on anyway when a served pool uses MPS (:mod:`.discovery`).
    """

    cluster_name: Any
    pools: Sequence[PoolConfig]
    config: DevicePluginConfig | Mapping[str, Any] = field(default_factory=DevicePluginConfig)
    cluster: Any = None
    feature_discovery: bool = False


class NvidiaDevicePlugin(pulumi.ComponentResource):
    """The ``nvidia-device-plugin`` chart 0.20.0 with tolerations and affinity derived from the pools.

    Children: ``kubernetes.core.v1.Namespace`` ``<name>-namespace``, on GKE (outside ``kube-system``) a
    ``kubernetes.core.v1.ResourceQuota`` ``<name>-quota`` (``nvidia-device-plugin-critical-pods``,
    :func:`~gpu_node_pool.gpu_agents.critical_quota.agent_quota`), and ``kubernetes.helm.v4.Chart`` ``<name>-chart``.

    Attributes:
        values: the chart values (plain, known at preview).
        tolerations: the derived tolerations (Kubernetes objects).

    Raises:
        ConfigError: before anything is registered: a second plugin for the same cluster in one
            program run (the chart must be installed once per cluster, serving all its pools), no
            pool needs it, a ``GpuNodePool`` in ``pools`` instead of its ``.spec``, a ``config`` that is neither
            a ``DevicePluginConfig`` nor a valid mapping of one (:mod:`.checks`), a served pool's MIG that
            nothing partitions, or a ``cluster_name`` that is no name (``None``, ``""``).
    """

    def __init__(self, name: str, args: NvidiaDevicePluginArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        config = checks.plugin_config(args.config)
        served = checks.served_pools(args.pools)
        # what partitions the MIG pools it serves; each issue at the pool's index in args.pools
        refused = served_pool_issues(args.pools, "nvidia-device-plugin", checks.SOURCE, judged=served)
        if refused is not None:
            raise refused
        # NvidiaDevicePluginArgs(cluster_name=eks_cluster, ...): the resource keys the guard like ``cluster``
        cluster = args.cluster if args.cluster is not None or not isinstance(args.cluster_name, pulumi.Resource) else (
            args.cluster_name
        )
        other = once.served_clusters_problem(served, args.cluster_name, cluster)
        if other is not None:
            raise ConfigError([ConfigIssue(*other)], f"NvidiaDevicePlugin {name!r}")
        once.claim("NvidiaDevicePlugin", name, args.cluster_name, cluster, opts, "NvidiaDevicePluginArgs",
                   path="devicePlugin", what="the NVIDIA device plugin")
        super().__init__(TYPE_TOKEN, name, {AGENT_NAMESPACE_PROP: config.namespace}, opts)

        self.values = render.chart_values(served, config, args.feature_discovery)
        self.tolerations = self.values["tolerations"]
        ns = chart_install.namespace(self, name, config.namespace)
        self.chart = chart_install.install_chart(
            self, name, chart=render.CHART, version=config.chart_version, repository=config.repository,
            namespace_name=config.namespace, values=self.values, depends_on=[ns],
            quota=agent_quota(args.pools, render.CHART, self.values.get("priorityClassName"), config.namespace),
        )
