"""``GkeDriverInstaller``: GKE's NVIDIA driver installer DaemonSet, once per cluster, for the GKE pools with
``gpuDriverVersion: INSTALLATION_DISABLED``.

A thin shell over :func:`gpu_node_pool.gpu_agents.gke_driver_installer.values.installer_daemonsets`: the DaemonSet
Google publishes for each node image of the served pools (GoogleCloudPlatform/container-engine-accelerators
``nvidia-driver-installer/cos/daemonset-preloaded.yaml`` for COS, ``.../ubuntu/daemonset-preloaded.yaml`` for
Ubuntu) declared as a ``kubernetes.apps.v1.DaemonSet`` child,
written in the package (nothing is fetched at run time), so the policies judge it at preview. Without it those
pools' nodes advertise no ``nvidia.com/gpu`` (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#installing_drivers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pulumi

from ...config import PoolConfig
from ...k8s.taints import Toleration
from ...k8s.wellknown import AGENT_NAMESPACE_PROP, GKE_DRIVER_INSTALLER_TYPE
from ...sdk.provider_sdk import provider_sdk
from ..once import claim
from . import checks
from . import values as render

__all__ = ["GkeDriverInstaller", "GkeDriverInstallerArgs", "TYPE_TOKEN"]

TYPE_TOKEN = GKE_DRIVER_INSTALLER_TYPE


@dataclass(frozen=True)
class GkeDriverInstallerArgs:
    """Arguments of :class:`GkeDriverInstaller`.

    Attributes:
        cluster_name: the cluster all ``pools`` belong to (see ``NvidiaDevicePluginArgs``).
        pools: the pools' validated models (``GpuNodePool.spec``); the GKE pools with ``gpuDriverVersion:
            INSTALLATION_DISABLED`` are served (:func:`~gpu_node_pool.gpu_agents.gke_driver_installer.values.installer_pools`),
            each by the installer of its ``image_type`` (unset: ``COS_CONTAINERD``).
        extra_tolerations: tolerations for taints of nodes outside the stack.
        cluster: optional cluster resource the once-per-cluster guard is keyed on.
    """

    cluster_name: Any
    pools: Sequence[PoolConfig]
    extra_tolerations: Sequence[Toleration] = ()
    cluster: Any = None


class GkeDriverInstaller(pulumi.ComponentResource):
    """GKE's driver installer DaemonSets in ``kube-system``, one per node image of the served pools, each with
    tolerations derived from its pools' taints and a node affinity to its pools' nodes only.

    Children: ``kubernetes.apps.v1.DaemonSet`` ``<name>-daemonset`` (``kube-system/nvidia-driver-installer``, Google's
    COS manifest under the name it gives it, so an installer applied before with ``kubectl apply`` is the same
    object) when a served pool runs ``COS_CONTAINERD``, and ``<name>-ubuntu-daemonset``
    (``kube-system/nvidia-driver-installer-ubuntu``, Google's Ubuntu manifest renamed beside it) when one runs
    ``UBUNTU_CONTAINERD``.

    Attributes:
        manifests: ``{image type: DaemonSet}`` (plain). manifest: the first of them (COS when a served pool is on
        COS). daemonsets: ``{image type: DaemonSet resource}``; daemonset: the first of them. tolerations: the tolerations of every DaemonSet's
        pods, each once, in order (Kubernetes objects).

    Raises:
        ConfigError: before anything is registered: ``pools`` with no GKE pool with ``INSTALLATION_DISABLED`` (an
            empty list, pools of another backend, GKE pools whose driver GKE installs), a ``GpuNodePool`` in
            ``pools`` instead of its ``.spec`` (:func:`.checks.served_pools`), a second GkeDriverInstaller for the
            same cluster in one program run, or a ``cluster_name`` that is no name (see ``NvidiaDevicePlugin``).
    """

    def __init__(self, name: str, args: GkeDriverInstallerArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        images = {p.name: getattr(p, "image_type", None) for p in args.pools if isinstance(p, PoolConfig)}
        self.manifests = dict(render.installer_daemonsets(checks.served_pools(args.pools), images,
                                                          args.extra_tolerations))
        self.manifest = next(iter(self.manifests.values()))
        claim("GkeDriverInstaller", name, args.cluster_name, args.cluster, opts, "GkeDriverInstallerArgs",
              path="gpuAgents.gkeDriverInstaller", what="GKE's NVIDIA driver installer")
        super().__init__(TYPE_TOKEN, name, {AGENT_NAMESPACE_PROP: render.NAMESPACE}, opts)

        self.tolerations: list[dict[str, Any]] = []
        for manifest in self.manifests.values():
            self.tolerations += [t for t in manifest["spec"]["template"]["spec"]["tolerations"]
                                 if t not in self.tolerations]
        k8s = provider_sdk("pulumi_kubernetes", "GKE's NVIDIA driver installer")
        self.daemonsets = {
            image: k8s.apps.v1.DaemonSet(
                f"{name}-{render.MANIFESTS[image].child}", metadata=manifest["metadata"], spec=manifest["spec"],
                opts=pulumi.ResourceOptions(parent=self))
            for image, manifest in self.manifests.items()
        }
        self.daemonset = next(iter(self.daemonsets.values()))
        self.register_outputs({"namespace": render.NAMESPACE, "tolerations": self.tolerations})
