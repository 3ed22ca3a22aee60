"""The GPU Operator's chart values, derived from the pools it serves. Pure, no Pulumi.

Chart ``gpu-operator`` (https://helm.ngc.nvidia.com/nvidia). What each key does (sources:
NVIDIA/gpu-operator@v26.7.0 ``deployments/gpu-operator/values.yaml``,
``deployments/gpu-operator/templates/clusterpolicy.yaml``, ``api/nvidia/v1/clusterpolicy_types.go`` and
``controllers/object_controls.go`` ``applyCommonDaemonsetConfig``):

* ``daemonsets.tolerations`` becomes ``ClusterPolicy.spec.daemonsets.tolerations``, which the operator
  puts on *every* operand DaemonSet (driver, toolkit, device plugin, GFD, DCGM exporter, MIG manager);
  a list replaces the default ``[nvidia.com/gpu Exists NoSchedule]``, so it is derived from the pools
  (one ``Exists`` toleration per pool taint key/effect, :func:`~gpu_node_pool.gpu_agents.placement.derived_tolerations`).
* ``node-feature-discovery.worker.tolerations``: the NFD worker labels the nodes
  (``feature.node.kubernetes.io/pci-10de.present``) from which the operator sets the
  ``nvidia.com/gpu.deploy.*`` labels that place the operands; derived the same way.
* No operand placement values: the ClusterPolicy has no affinity/nodeSelector for operands, and the
  chart's top-level ``affinity``/``nodeSelector`` belong to the operator Deployment.
* Per node image (one cluster, so an operand is switched off only when *every* pool's image provides it):
  EKS AL2023 NVIDIA and Bottlerocket NVIDIA AMIs ship the driver and the container toolkit
  (``driver.enabled``/``toolkit.enabled`` false; EKS user guide ``ml-eks-optimized-ami``), including the one
  Karpenter's ``al2023@...`` alias boots on GPU instances (the pool model's ``image_family``);
  Bottlerocket NVIDIA also ships the device plugin and its own MIG settings (``devicePlugin.enabled``,
  ``migManager.enabled`` false); ``devicePlugin.enabled`` is false too when every pool's image runs its own
  device plugin (two plugins registering ``nvidia.com/gpu`` with one kubelet flap). Pools whose driver the
  platform's installer puts in a platform directory (``AgentPool.driver_mount``: GKE, the driver from Google's
  installer, :func:`_platform_driver`): ``driver.enabled`` false and the driver/toolkit paths
  (``hostPaths.driverInstallDir``, ``toolkit.installDir``) set to the pools' one driver root
  (``AgentPool.driver_root``: ``/home/kubernetes/bin/nvidia`` on COS; left out when a pool is on Ubuntu, whose
  root no public source states, ``backends/gke/image.py`` ``DRIVER_ROOT_SOURCE``, or the roots differ), plus the
  ``gpu-operator-quota`` ResourceQuota (:func:`gke_resource_quota`) - NVIDIA cloud-native-docs ``gpu-operator/google-gke.rst`` ("Using the Google driver installer").
* ``gpuAgents`` map to operand enables: ``dcgmExporter.enabled`` and ``gfd.enabled`` (GFD also when a
  pool uses MPS: the MPS control daemon runs only on nodes GFD labels ``nvidia.com/mps.capable=true``,
  NVIDIA/gpu-operator@v26.7.0 ``assets/state-mps-control-daemon/0400_daemonset.yaml``).
* Time-slicing / MPS through ``devicePlugin.config`` (``create``, ``name``, ``default``, ``data``:
  the same named configs as the standalone plugin, selected by the node label
  ``nvidia.com/device-plugin.config``; values.yaml ``devicePlugin.config``).
* MIG per pool: when the operator partitions a pool (:func:`operator_mig_pools`), ``migManager.enabled`` and
  ``mig.strategy: ""``: the chart then writes no ``spec.mig.strategy`` (``templates/clusterpolicy.yaml``
  ``if .Values.mig.strategy``) and the operator sets no ``MIG_STRATEGY`` on the device plugin, GFD and MPS
  daemon ("let plugin decide this per node": ``controllers/object_controls.go`` ``applyMIGConfiguration``), so
  each pool's named config ``mig-<strategy>`` in ``devicePlugin.config`` (``flags.migStrategy``, selected by its
  nodes' ``nvidia.com/device-plugin.config`` label) decides; a ``single`` and a ``mixed`` pool share one
  cluster. The layout each node gets is its ``nvidia.com/mig.config`` label (``all-<profile>``), set by the
  pool; the MIG manager's ``config.default`` stays ``all-disabled``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...k8s.taints import Toleration
from ...k8s.wellknown import GKE_NVIDIA_INSTALL_DIR, GPU_OPERATOR_NAMESPACE
from ..critical_quota import critical_pods_quota
from ..placement import derived_tolerations
from ..pools import HOST_DRIVER_ROOT, AgentPool, shared_driver_root
from ..sharing_config import DEFAULT_CONFIG_NAME, config_documents, pool_setting

__all__ = [
    "NAMESPACE",
    "CHART",
    "CHART_REPO",
    "GKE_INSTALL_DIR",
    "PLUGIN_CONFIG_NAME",
    "operator_pools",
    "operator_mig_pools",
    "operator_values",
    "gke_resource_quota",
]

CHART = "gpu-operator"
CHART_REPO = "https://helm.ngc.nvidia.com/nvidia"
#: Where the program installs the operator (NVIDIA's install guide uses ``-n gpu-operator``).
NAMESPACE = GPU_OPERATOR_NAMESPACE
#: Where GKE's driver installer puts the driver (NVIDIA cloud-native-docs gpu-operator/google-gke.rst).
GKE_INSTALL_DIR = GKE_NVIDIA_INSTALL_DIR
#: The ConfigMap the operator's chart creates for the device plugin's named configs.
PLUGIN_CONFIG_NAME = "device-plugin-config"
_SHIPS_DRIVER_AND_TOOLKIT = ("al2023-nvidia", "bottlerocket-nvidia")


def operator_pools(pools: Sequence[AgentPool]) -> list[AgentPool]:
    """The pools the operator serves: every pool except those the platform's own device plugin serves (GKE's)."""
    return [p for p in pools if p.device_plugin != "platform"]


def operator_mig_pools(pools: Sequence[AgentPool]) -> list[AgentPool]:
    """The pools whose ``mig`` the operator's MIG manager partitions (their nodes carry ``nvidia.com/mig.config``):
    ``mig`` set, partitioned by a device plugin (not the platform), not on Bottlerocket (its own MIG manager)."""
    return [p for p in pools if p.mig is not None and p.mig_by == "device-plugin" and p.image_family != "bottlerocket-nvidia"]


def _platform_driver(pools: Sequence[AgentPool]) -> bool:
    """Every pool's driver is the platform installer's (``AgentPool.driver_mount`` set): NVIDIA's driver container
    has nothing to install. On GKE the pools the operator serves have GKE's plugin off, which needs
    ``gpuDriverVersion: INSTALLATION_DISABLED`` (backends/gke/config.py), so the driver comes from Google's driver
    installer DaemonSet - NVIDIA's documented GKE path ("Using the Google driver installer": ``driver.enabled=false``,
    NVIDIA cloud-native-docs ``gpu-operator/google-gke.rst``). Policy ``gpu-agents-cover-gpu-pools`` asks for that
    installer."""
    return bool(pools) and all(p.driver_mount is not None for p in pools)


#: The operator's quota on GKE: NVIDIA's documented name (gpu-operator/google-gke.rst).
QUOTA_NAME = "gpu-operator-quota"


def gke_resource_quota(namespace: str) -> dict[str, Any]:
    """The ResourceQuota that lets the operator's ``system-node-critical`` pods be created on GKE
    (:mod:`gpu_node_pool.gpu_agents.critical_quota`): NVIDIA's name ``gpu-operator-quota`` (gpu-operator/google-gke.rst),
    scoped to PriorityClass ``system-node-critical`` and ``system-cluster-critical``. ``hard.pods`` is GKE's own
    ``1G``, not the ``100`` of NVIDIA's example: every operand DaemonSet (driver, toolkit, device plugin, feature
    discovery, DCGM, validator, MIG manager...) runs a pod of those classes on each GPU node, so 100 would stop new
    nodes' operands at about a dozen nodes. Shape: a Kubernetes object (apiVersion, kind, metadata, spec)."""
    return critical_pods_quota(namespace, QUOTA_NAME)


def operator_values(
    pools: Sequence[AgentPool],
    *,
    dcgm_exporter: bool = False,
    feature_discovery: bool = False,
    extra_tolerations: Sequence[Toleration] = (),
) -> dict[str, Any]:
    """The ``gpu-operator`` chart values for ``pools`` (see the module docstring for each key's source).

    Args:
        pools: the stack's pools (:class:`AgentPool`); pools GKE's plugin serves are left out.
        dcgm_exporter: ``gpuAgents.dcgmExporter.enabled``.
        feature_discovery: ``gpuAgents.featureDiscovery.enabled`` (GFD is also on with an MPS pool).
        extra_tolerations: ``devicePlugin.extraTolerations`` (taints of nodes outside the stack).

    Returns:
        ``{daemonsets: {tolerations}, node-feature-discovery: {worker: {tolerations}}, driver: {enabled},
        toolkit: {enabled[, installDir]}, devicePlugin: {enabled[, config]}, migManager: {enabled},
        dcgmExporter: {enabled}, gfd: {enabled}[, hostPaths: {driverInstallDir}][, mig: {strategy: ""}]}``.
    """
    served = operator_pools(pools)
    tolerations = [t.to_k8s() for t in derived_tolerations(served, extra_tolerations)]
    families = {p.image_family for p in served}
    ships = bool(served) and families <= set(_SHIPS_DRIVER_AND_TOOLKIT)
    bottlerocket = bool(served) and families == {"bottlerocket-nvidia"}
    own_plugin = bool(served) and all(p.device_plugin == "image" for p in served)  # every image runs its own plugin
    platform_driver = _platform_driver(served)
    mps = any(p.sharing is not None and p.sharing.strategy == "mps" for p in served)
    values: dict[str, Any] = {
        "daemonsets": {"tolerations": tolerations},
        "node-feature-discovery": {"worker": {"tolerations": list(tolerations)}},
        "driver": {"enabled": not (ships or platform_driver)},
        "toolkit": {"enabled": not ships},
        "devicePlugin": {"enabled": not (bottlerocket or own_plugin)},
        "migManager": {"enabled": not bottlerocket},
        "dcgmExporter": {"enabled": bool(dcgm_exporter)},
        "gfd": {"enabled": bool(feature_discovery or mps)},
    }
    root, _ = shared_driver_root(served)
    if platform_driver and root not in (None, HOST_DRIVER_ROOT):  # one stated root (COS); Ubuntu's is stated nowhere
        values["hostPaths"] = {"driverInstallDir": root}
        values["toolkit"]["installDir"] = root
    mig_pools = operator_mig_pools(served)
    documents = config_documents(
        s for p in served if (s := pool_setting(p, mig_in_plugin=p in mig_pools)) is not None
    )
    if documents and not (bottlerocket or own_plugin):
        values["devicePlugin"]["config"] = {
            "create": True,
            "name": PLUGIN_CONFIG_NAME,
            "default": DEFAULT_CONFIG_NAME,
            "data": documents,
        }
    if mig_pools:  # each pool's strategy comes from its named config, none cluster-wide
        values["mig"] = {"strategy": ""}
        values["migManager"]["enabled"] = True
    return values
