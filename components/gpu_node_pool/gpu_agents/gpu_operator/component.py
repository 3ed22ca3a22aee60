"""``GpuOperator``: NVIDIA's GPU Operator chart, once per cluster, with values derived from the pools.

A thin shell over :func:`gpu_node_pool.gpu_agents.gpu_operator.values.operator_values`. The chart is a
``kubernetes.helm.v4.Chart`` (rendered client-side, so its ``ClusterPolicy`` is a real child that the
policies check at preview), in its own namespace; on GKE also the ``gpu-operator-quota`` ResourceQuota
NVIDIA documents (cloud-native-docs ``gpu-operator/google-gke.rst``), which GKE requires for the operands'
``system-node-critical`` class (:mod:`gpu_node_pool.gpu_agents.critical_quota`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi

from ...config import ConfigError, ConfigIssue, DevicePluginConfig, PoolConfig
from ...config.agents import GpuAgentsConfig
from ...k8s.wellknown import AGENT_NAMESPACE_PROP, GPU_OPERATOR_TYPE, SYSTEM_NODE_CRITICAL
from .. import chart_install
from ..critical_quota import needs_critical_pods_quota
from ..once import claim
from ..pools import agent_pool
from ..validate import served_pool_issues
from . import values as render

__all__ = ["GpuOperator", "GpuOperatorArgs", "TYPE_TOKEN"]

TYPE_TOKEN = GPU_OPERATOR_TYPE
SOURCE = "GpuOperatorArgs"
#: The chart version the values were checked against (NVIDIA/gpu-operator tag v26.7.0).
CHART_VERSION = "v26.7.0"
#: The priority class of the operator and its operands (NVIDIA/gpu-operator@v26.7.0
#: ``deployments/gpu-operator/values.yaml`` ``daemonsets.priorityClassName``).
PRIORITY_CLASS = SYSTEM_NODE_CRITICAL


@dataclass(frozen=True)
class GpuOperatorArgs:
    """Arguments of :class:`GpuOperator`.

    Attributes:
        cluster_name: the cluster all ``pools`` belong to: a string, or a ``pulumi.Input``
            (``eks_cluster.name``); see ``NvidiaDevicePluginArgs`` for how the once-per-cluster
            guard compares them.
        pools: the pools' validated models (``GpuNodePool.spec``); pools GKE's own plugin serves are skipped.
        agents: stack ``gpuAgents`` (DCGM exporter, feature discovery) mapped to the operand enables: a
            ``GpuAgentsConfig``, or its camelCase mapping (``{"dcgmExporter": {"enabled": True}}``).
        config: stack ``devicePlugin`` (its ``extraTolerations`` are added to the operands'): a
            ``DevicePluginConfig``, or its camelCase mapping (``provider`` defaults to ``gpu-operator`` there).
            Mappings are validated as the stack config is.
        namespace: where the chart is installed (default ``gpu-operator``, NVIDIA's docs).
        version: the chart version (default :data:`CHART_VERSION`).
        cluster: optional cluster resource the once-per-cluster guard is keyed on.
    """

    cluster_name: Any
    pools: Sequence[PoolConfig]
    agents: GpuAgentsConfig | Mapping[str, Any] = field(default_factory=GpuAgentsConfig)
    config: DevicePluginConfig | Mapping[str, Any] = field(default_factory=lambda: DevicePluginConfig(provider="gpu-operator"))
    namespace: str = render.NAMESPACE
    version: str = CHART_VERSION
    cluster: Any = None


def _sections(args: GpuOperatorArgs) -> tuple[GpuAgentsConfig, DevicePluginConfig]:
    """``args.agents`` and ``args.config`` as models (:func:`~gpu_node_pool.config.loading.component_section`).

    Raises:
        ConfigError: every mistake in either, each at ``agents...`` or ``config...``.
    """
    from ...config.loading import component_section

    issues: list[ConfigIssue] = []
    found: list[Any] = []
    for value, key, argument, example, defaults in (
        (args.agents, "gpuAgents", "agents", "{'dcgmExporter': {'enabled': True}}", None),
        (args.config, "devicePlugin", "config", "{'extraTolerations': [{'key': 'dedicated', 'operator': 'Exists'}]}",
         {"provider": "gpu-operator"}),
    ):
        try:
            found.append(component_section(value, key, argument, SOURCE, example=example, defaults=defaults))
        except ConfigError as err:
            issues += err.issues
    if issues:
        raise ConfigError(issues, SOURCE)
    return found[0], found[1]


class GpuOperator(pulumi.ComponentResource):
    """The ``gpu-operator`` chart with ``daemonsets.tolerations`` and NFD worker tolerations derived from the pools.

    Children: ``kubernetes.core.v1.Namespace`` ``<name>-namespace``, on GKE a
    ``kubernetes.core.v1.ResourceQuota`` ``<name>-quota``, and ``kubernetes.helm.v4.Chart`` ``<name>-chart``.

    Attributes:
        values: the chart values (plain, known at preview).
        tolerations: the operands' derived tolerations (Kubernetes objects).

    Raises:
        ConfigError: a second GpuOperator for the same cluster in one program run, a ``cluster_name``
            that is no name (see ``NvidiaDevicePlugin``), an ``agents`` or ``config`` that is neither its model
            nor a valid mapping of one, or a pool's MIG its MIG manager cannot partition.
    """

    def __init__(self, name: str, args: GpuOperatorArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        agents, config = _sections(args)
        refused = served_pool_issues(args.pools, "gpu-operator", SOURCE)  # what its MIG manager can partition
        if refused is not None:
            raise refused
        claim("GpuOperator", name, args.cluster_name, args.cluster, opts, SOURCE)
        super().__init__(TYPE_TOKEN, name, {AGENT_NAMESPACE_PROP: args.namespace}, opts)
        every = [agent_pool(p) for p in args.pools]
        pools = render.operator_pools(every)
        self.values = render.operator_values(
            pools,
            dcgm_exporter=agents.dcgm_exporter.enabled,
            feature_discovery=agents.feature_discovery.enabled,
            extra_tolerations=[t.to_toleration() for t in config.extra_tolerations],
        )
        self.tolerations = self.values["daemonsets"]["tolerations"]
        namespace = chart_install.namespace(self, name, args.namespace)
        quota = (render.gke_resource_quota(args.namespace)
                 if needs_critical_pods_quota(every, PRIORITY_CLASS, args.namespace) else None)
        self.chart = chart_install.install_chart(
            self, name, chart=render.CHART, version=args.version, repository=render.CHART_REPO,
            namespace_name=args.namespace, values=self.values, depends_on=[namespace], quota=quota,
        )
