"""``EfaDevicePlugin``: AWS's EFA device plugin chart, once per cluster, for the stack's EFA pools.

A thin shell over :func:`gpu_node_pool.gpu_agents.efa_device_plugin.values.efa_plugin_values`: the
chart ``aws-efa-k8s-device-plugin`` from https://aws.github.io/eks-charts as a ``kubernetes.helm.v4.Chart``
(rendered client-side, so its DaemonSet is a child that the policies judge at preview). Without it an EFA
node advertises no ``vpc.amazonaws.com/efa`` and no pod asking for EFA interfaces schedules (EKS user
guide, https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi

from ...config import PoolConfig
from ...config.agents import EfaDevicePluginConfig
from ...k8s.taints import Toleration
from ...k8s.wellknown import AGENT_NAMESPACE_PROP, EFA_DEVICE_PLUGIN_TYPE
from .. import chart_install
from ..once import claim
from . import checks
from . import values as render

__all__ = ["EfaDevicePlugin", "EfaDevicePluginArgs", "TYPE_TOKEN"]

TYPE_TOKEN = EFA_DEVICE_PLUGIN_TYPE


@dataclass(frozen=True)
class EfaDevicePluginArgs:
    """Arguments of :class:`EfaDevicePlugin`.

    Attributes:
        cluster_name: the cluster all ``pools`` belong to (see ``NvidiaDevicePluginArgs``).
        pools: the pools' validated models (``GpuNodePool.spec``); those with ``efa.enabled`` are served.
        config: stack ``gpuAgents.efaDevicePlugin`` (namespace, chart version, repository).
        extra_tolerations: tolerations for taints of nodes outside the stack.
        cluster: optional cluster resource the once-per-cluster guard is keyed on.
    """

    cluster_name: Any
    pools: Sequence[PoolConfig]
    config: EfaDevicePluginConfig = field(default_factory=EfaDevicePluginConfig)
    extra_tolerations: Sequence[Toleration] = ()
    cluster: Any = None


class EfaDevicePlugin(pulumi.ComponentResource):
    """The ``aws-efa-k8s-device-plugin`` chart 0.5.30 with tolerations derived from the EFA pools' taints.

    Children: ``kubernetes.helm.v4.Chart`` ``<name>-chart`` in ``config.namespace`` (``kube-system`` by
    default, which exists in every cluster; another namespace gets a ``<name>-namespace`` Namespace).

    Attributes:
        values: the chart values (plain). tolerations: the derived tolerations (Kubernetes objects).

    Raises:
        ConfigError: before anything is registered: ``pools`` with no pool with ``efa.enabled`` (an empty list,
            pools without EFA or of a backend without it), a ``GpuNodePool`` in ``pools`` instead of its ``.spec``
            (:func:`.checks.served_pools`), a second EfaDevicePlugin for the same cluster in one program run, or a
            ``cluster_name`` that is no name (see ``NvidiaDevicePlugin``).
    """

    def __init__(self, name: str, args: EfaDevicePluginArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        self.values = render.efa_plugin_values(checks.served_pools(args.pools), args.extra_tolerations)
        claim("EfaDevicePlugin", name, args.cluster_name, args.cluster, opts, "EfaDevicePluginArgs",
              path="gpuAgents.efaDevicePlugin", what="the EFA device plugin")
        super().__init__(TYPE_TOKEN, name, {AGENT_NAMESPACE_PROP: args.config.namespace}, opts)

        self.tolerations = self.values["tolerations"]
        depends: list[pulumi.Resource] = []
        if args.config.namespace != "kube-system":
            depends.append(chart_install.namespace(self, name, args.config.namespace))
        self.chart = chart_install.install_chart(
            self, name, chart=render.CHART, version=args.config.chart_version, repository=args.config.repository,
            namespace_name=args.config.namespace, values=self.values, depends_on=depends,
        )
