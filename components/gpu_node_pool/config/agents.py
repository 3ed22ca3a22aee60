"""Config of the GPU agents: pool ``gpuSharing`` and ``mig``, stack ``gpuAgents``, plugin providers.

Pure pydantic models; the rules that need the whole pool or stack (a partitioner for MIG, a
MIG-capable GPU from the instance catalog, replica limits per backend) are applied by
:func:`gpu_node_pool.gpu_agents.validate.stack_issues`, which :func:`.stack.stack_issues` calls.

Sources:

* Time-slicing / MPS config of NVIDIA's device plugin: ``version: v1`` with
  ``sharing.timeSlicing|mps.resources[{name: nvidia.com/gpu, replicas}]``, one named config per
  node chosen by the node label ``nvidia.com/device-plugin.config`` (NVIDIA/k8s-device-plugin@v0.20.0
  README.md, "Shared Access to GPUs" and "Updating Per-Node Configuration With a Node Label").
* MIG strategies ``single`` / ``mixed`` (same README, ``--mig-strategy``; ``internal/rm/rm.go``).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ..k8s.names import DNS1123_LABEL_RE
from ..k8s.wellknown import GPU_OPERATOR_NAMESPACE
from .chart_repository import ChartRepository
from .chart_versions import pinned_chart_version
from .common import GpuSharingConfig, MigConfig, Model
from .errors import ConfigIssue
from .messages import show
from .sharing_names import sharing_config_name

__all__ = [
    "PLUGIN_PROVIDERS",
    "GpuSharingConfig",
    "MigConfig",
    "DcgmExporterConfig",
    "FeatureDiscoveryConfig",
    "EfaDevicePluginConfig",
    "GkeDriverInstallerConfig",
    "GpuAgentsConfig",
    "OPERATOR_OPERANDS",
    "operator_unused_issues",
    "sharing_config_name",
]

#: ``devicePlugin.provider``: NVIDIA's standalone chart, or the GPU Operator (which runs the plugin,
#: GFD, DCGM exporter and MIG manager as its operands).
PLUGIN_PROVIDERS = ("nvidia-device-plugin", "gpu-operator")

#: The dcgm-exporter chart version whose values the component writes
#: (``gpu_node_pool.gpu_agents.dcgm_exporter.values.CHART_VERSION``); ``v4.8.2`` is read as it.
_DCGM_CHART = "4.8.2"
_DcgmChartVersion = pinned_chart_version(
    "dcgm-exporter", _DCGM_CHART,
    writes="tolerations, affinity, priorityClassName, serviceMonitor.enabled, and on GKE extraHostVolumes, "
    "extraVolumeMounts and extraEnv",
    source=f"NVIDIA/dcgm-exporter@4.5.3-{_DCGM_CHART} deployment/, chart {_DCGM_CHART}",
    enabled_key="gpuAgents.dcgmExporter.enabled", judged_by="gpu-agents-cover-gpu-pools",
)

#: The aws-efa-k8s-device-plugin chart version whose values the component writes and whose supported instance types
#: the plan reads (``gpu_node_pool.gpu_agents.efa_device_plugin.values``); ``v0.5.30`` is read as it.
_EFA_CHART = "0.5.30"
_EfaChartVersion = pinned_chart_version(
    "aws-efa-k8s-device-plugin", _EFA_CHART,
    writes="tolerations, which the template renders after its own CriticalAddonsOnly toleration; the instance types "
    "the plan says it reaches are that version's supportedInstanceLabels",
    source=f"aws/eks-charts@v0.0.241 stable/aws-efa-k8s-device-plugin (Chart.yaml version: v{_EFA_CHART}), served "
    "by the Helm repository https://aws.github.io/eks-charts",
    enabled_key="gpuAgents.efaDevicePlugin.enabled", judged_by="gpu-agents-cover-gpu-pools",
)


class DcgmExporterConfig(Model):
    """``gpuAgents.dcgmExporter``: NVIDIA's DCGM exporter (GPU metrics), placed on every GPU pool.

    ``serviceMonitor`` (default false): also render the chart's Prometheus Operator ``ServiceMonitor``
    (``monitoring.coreos.com/v1``); set it only where the Prometheus Operator's CRDs are installed, or
    the install fails. ``namespace`` joins the ``gpu-toleration-allowlist`` automatically. With
    ``devicePlugin.provider: gpu-operator`` the operator runs its own exporter and only ``enabled`` is read: another
    setting is refused (:func:`operator_unused_issues`).
    """

    enabled: bool = False
    service_monitor: bool = False
    namespace: str = Field("gpu-monitoring", pattern=DNS1123_LABEL_RE.pattern)
    chart_version: _DcgmChartVersion = _DCGM_CHART  # type: ignore[valid-type]
    repository: ChartRepository = "https://nvidia.github.io/dcgm-exporter/helm-charts"


class FeatureDiscoveryConfig(Model):
    """``gpuAgents.featureDiscovery``: GPU Feature Discovery (and its NFD worker) on every GPU pool."""

    enabled: bool = False


class EfaDevicePluginConfig(Model):
    """``gpuAgents.efaDevicePlugin``: AWS's EFA device plugin (chart ``aws-efa-k8s-device-plugin`` from
    https://aws.github.io/eks-charts), which advertises ``vpc.amazonaws.com/efa`` on EFA nodes.

    Installed once per cluster when a pool has ``efa.enabled`` (default ``enabled: true``; false when the
    cluster runs its own). ``namespace`` defaults to ``kube-system``, where the chart's README installs it
    (aws/eks-charts@v0.0.241 ``stable/aws-efa-k8s-device-plugin/README.md``), and joins the
    ``gpu-toleration-allowlist`` automatically.
    """

    enabled: bool = True
    namespace: str = Field("kube-system", pattern=DNS1123_LABEL_RE.pattern)
    chart_version: _EfaChartVersion = _EFA_CHART  # type: ignore[valid-type]
    repository: ChartRepository = "https://aws.github.io/eks-charts"


class GkeDriverInstallerConfig(Model):
    """``gpuAgents.gkeDriverInstaller``: GKE's NVIDIA driver installer DaemonSet (``kube-system/nvidia-driver-installer``,
    GoogleCloudPlatform/container-engine-accelerators ``nvidia-driver-installer/cos/daemonset-preloaded.yaml``), for the
    GKE pools with ``accelerator.gpuDriverVersion: INSTALLATION_DISABLED``.

    Installed once per cluster when such a pool exists (default ``enabled: true``): GKE installs no driver on those
    nodes, and until the installer runs they advertise no ``nvidia.com/gpu``
    (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#installing_drivers). ``false`` when the cluster gets
    its installer another way (applied with ``kubectl``, another stack); the policy ``gpu-agents-cover-gpu-pools``
    then reports the pools unless the program declares an installer that reaches them.
    """

    enabled: bool = True


class GpuAgentsConfig(Model):
    """Stack ``gpuAgents``: the GPU agents besides the device plugin, each derived from the pools."""

    dcgm_exporter: DcgmExporterConfig = Field(default_factory=DcgmExporterConfig)
    feature_discovery: FeatureDiscoveryConfig = Field(default_factory=FeatureDiscoveryConfig)
    efa_device_plugin: EfaDevicePluginConfig = Field(default_factory=EfaDevicePluginConfig)
    gke_driver_installer: GkeDriverInstallerConfig = Field(default_factory=GkeDriverInstallerConfig)


#: The ``gpuAgents`` entries the GPU Operator runs as its own operands when ``devicePlugin.provider: gpu-operator``
#: (attribute -> (stack key, the operand's ClusterPolicy/chart key)): of each, the operator's values read ``enabled``
#: alone (``gpu_agents/gpu_operator/values.py``: ``dcgmExporter.enabled``, ``gfd.enabled``); the operand runs in the
#: operator's namespace with the operator's image and settings (NVIDIA/gpu-operator@v26.7.0
#: ``deployments/gpu-operator/values.yaml`` ``dcgmExporter``, ``gfd``; ``api/nvidia/v1/clusterpolicy_types.go``
#: ``DCGMExporterSpec``, ``GPUFeatureDiscoverySpec``). The other entries (``efaDevicePlugin``,
#: ``gkeDriverInstaller``) are installed whichever provider serves the GPUs. The GPU Operator's MIG manager has no
#: ``gpuAgents`` entry: a pool's ``mig`` turns it on.
OPERATOR_OPERANDS: dict[str, tuple[str, str]] = {
    "dcgm_exporter": ("dcgmExporter", "dcgmExporter"),
    "feature_discovery": ("featureDiscovery", "gfd"),
}

#: The namespace the GPU Operator's chart and operands go to (``gpu_node_pool.gpu_agents.gpu_operator.values.NAMESPACE``).
_OPERATOR_NAMESPACE = GPU_OPERATOR_NAMESPACE


def operator_unused_issues(stack: Any) -> list[ConfigIssue]:
    """With ``devicePlugin.provider: gpu-operator`` (and ``devicePlugin.enabled``, when the program installs the
    operator: ``gpu_agents.installed.installed_agents``), one :class:`ConfigIssue` per setting of a
    :data:`OPERATOR_OPERANDS` entry other than ``enabled`` that differs from its default, at
    ``gpuAgents.<entry>.<key>``: the operator runs that agent itself and never reads the setting (e.g.
    ``gpuAgents.dcgmExporter.namespace: mon``: the operator's DCGM exporter runs in ``gpu-operator``). The fix:
    keep only ``enabled`` (it turns the operand on or off), or use ``provider: nvidia-device-plugin`` to install
    the standalone agent with these settings. Empty otherwise."""
    plugin, agents = getattr(stack, "device_plugin", None), getattr(stack, "gpu_agents", None)
    if plugin is None or agents is None or not plugin.enabled or plugin.provider != "gpu-operator":
        return []
    issues = []
    for attr, (key, operand) in OPERATOR_OPERANDS.items():
        entry = getattr(agents, attr)
        fields = type(entry).model_fields
        for name, info in fields.items():
            value = getattr(entry, name)
            if name == "enabled" or value == info.get_default(call_default_factory=True):
                continue
            setting = info.alias or name
            where = (f"; the operator's exporter runs in its own namespace {_OPERATOR_NAMESPACE}"
                     if name == "namespace" else "")
            issues.append(ConfigIssue(
                f"gpuAgents.{key}.{setting}",
                f"{show(value)} is not used: with devicePlugin.provider gpu-operator the GPU Operator runs its own "
                f"{key} as an operand, set by its chart's {operand}.* values (ClusterPolicy spec.{operand}: "
                f"NVIDIA/gpu-operator@v26.7.0 deployments/gpu-operator/values.yaml), of which the component writes "
                f"{operand}.enabled alone, from gpuAgents.{key}.enabled{where}; remove {setting} (keep enabled), or "
                f"set devicePlugin.provider: nvidia-device-plugin to install the standalone {key} with it",
            ))
    return issues
