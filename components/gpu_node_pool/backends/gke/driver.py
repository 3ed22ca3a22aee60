"""What a GKE pool with ``gpuDriverVersion: INSTALLATION_DISABLED`` needs, said once per setting.

GKE installs no NVIDIA driver on such a pool's nodes (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#installing_drivers),
so they advertise no ``nvidia.com/gpu`` until a driver installer DaemonSet has run on them. :func:`driver_warning` is
the pool's warning, true whatever installs the driver (a stack's ``gpuAgents.gkeDriverInstaller``, a program's
``GkeDriverInstaller``, the user's own ``kubectl apply``); :func:`stack_warnings` adds, for a stack that turned
``gpuAgents.gkeDriverInstaller`` off, that the stack installs none and what to do. The installer the package writes is
Google's COS manifest (a pool that names no image type gets GKE's default node image ``cos_containerd``,
https://cloud.google.com/kubernetes-engine/docs/concepts/node-images); Google's Ubuntu manifest has the same name and
node selection, so it is named as the user's own to apply.
"""

from __future__ import annotations

from typing import Any

from ...config.errors import ConfigIssue
from ...gpu_agents.gke_driver_installer import values as installer
from ...text.listing import listed

__all__ = ["DRIVER_DISABLED", "GKE_COS_DRIVER_INSTALLER", "GKE_DRIVER_INSTALLER_SOURCE", "driver_warning",
           "stack_warnings"]

#: The ``accelerator.gpuDriverVersion`` that leaves the driver to the user.
DRIVER_DISABLED = "INSTALLATION_DISABLED"
#: With ``INSTALLATION_DISABLED`` the driver comes from GKE's ``nvidia-driver-installer`` DaemonSet
#: (it selects GPU nodes without ``cloud.google.com/gke-gpu-driver-version``, the label GKE sets when it installs one).
GKE_DRIVER_INSTALLER_SOURCE = (
    "https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#installing_drivers; GoogleCloudPlatform/"
    "container-engine-accelerators nvidia-driver-installer/cos/daemonset-preloaded.yaml"
)
#: GKE's COS installer as ``kubectl apply -f`` takes it, at the commit ``gpuAgents.gkeDriverInstaller`` is written from.
GKE_COS_DRIVER_INSTALLER = installer.COS_MANIFEST_URL
#: GKE Standard's default node image, which a node pool that names no image type gets (the pool model names none).
GKE_DEFAULT_IMAGE_SOURCE = "https://cloud.google.com/kubernetes-engine/docs/concepts/node-images"


def driver_warning(*, gke_plugin: bool) -> str:
    """The warning of a pool with ``gpuDriverVersion: INSTALLATION_DISABLED`` (``gke_plugin``: GKE's device plugin
    serves it): no ``nvidia.com/gpu`` until an installer has run, what installs Google's COS installer (a stack's
    ``gpuAgents.gkeDriverInstaller``, on unless turned off; a program's ``GkeDriverInstaller``), Ubuntu's manifest,
    and GKE's own drivers. True whichever installs it; :func:`stack_warnings` says what a stack that turned its
    installer off must do."""
    plugin = "GKE's device plugin" if gke_plugin else "NVIDIA's device plugin"
    return (f"{DRIVER_DISABLED}: GKE installs no NVIDIA driver on these nodes ({GKE_DRIVER_INSTALLER_SOURCE}), "
            f"so {plugin} finds no GPU and the nodes advertise no nvidia.com/gpu until a driver installer has run on "
            "them. A stack's gpuAgents.gkeDriverInstaller (on unless enabled: false) or a program's GkeDriverInstaller "
            f"installs Google's COS installer on the pool ({installer.COS_SOURCE}, with tolerations of the pool's "
            "taints): the pool names no image type, so its nodes run GKE's default image cos_containerd "
            f"({GKE_DEFAULT_IMAGE_SOURCE}). A pool moved to Ubuntu outside the stack needs Google's Ubuntu installer "
            f"instead (kubectl apply -f {installer.UBUNTU_MANIFEST_URL}; it is named nvidia-driver-installer too, so "
            "turn the stack's off). Or let GKE install the driver (gpuDriverVersion LATEST or DEFAULT)")


def stack_warnings(stack: Any) -> list[ConfigIssue]:
    """``gpuAgents.gkeDriverInstaller.enabled: false`` in a stack with pools of ``INSTALLATION_DISABLED``: the stack
    installs no driver installer for them; the fix (apply :data:`GKE_COS_DRIVER_INSTALLER` or turn it on) and the
    mandatory policy that reports such a pool. Nothing when the installer is on or no pool leaves the driver to the
    user."""
    agents = getattr(stack, "gpu_agents", None)
    config = getattr(agents, "gke_driver_installer", None)
    if config is None or config.enabled:
        return []
    pools = [f"pools[{i}] {p.name!r}" for i, p in enumerate(stack.pools)
             if getattr(getattr(p, "accelerator", None), "gpu_driver_version", None) == DRIVER_DISABLED]
    if not pools:
        return []
    return [ConfigIssue("gpuAgents.gkeDriverInstaller.enabled", (
        f"false: the stack installs no NVIDIA driver installer, so {listed(pools)} ({DRIVER_DISABLED}) get no driver "
        f"from it: apply one yourself (on COS nodes: kubectl apply -f {GKE_COS_DRIVER_INSTALLER}) or set "
        "gpuAgents.gkeDriverInstaller.enabled: true; the mandatory policy gpu-agents-cover-gpu-pools reports such a "
        "pool unless the program declares an installer that reaches its nodes"))]
