"""What a GKE pool with ``gpuDriverVersion: INSTALLATION_DISABLED`` needs, said once per setting.

GKE installs no NVIDIA driver on such a pool's nodes (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#installing_drivers),
so they advertise no ``nvidia.com/gpu`` until a driver installer DaemonSet has run on them. :func:`driver_warning` is
the pool's warning, true whatever installs the driver (a stack's ``gpuAgents.gkeDriverInstaller``, a program's
``GkeDriverInstaller``, the user's own ``kubectl apply``), naming the manifest the pool's node image needs (its
``imageType``, unset: GKE's default ``COS_CONTAINERD``, https://cloud.google.com/kubernetes-engine/docs/concepts/node-images):
Google's COS manifest as ``kube-system/nvidia-driver-installer``, Google's Ubuntu manifest as
``kube-system/nvidia-driver-installer-ubuntu`` (:mod:`gpu_node_pool.gpu_agents.gke_driver_installer.values`), and
what a pool whose image type is changed outside the stack then lacks; :func:`stack_warnings` adds, for a stack that
turned ``gpuAgents.gkeDriverInstaller`` off, that the stack installs none and which manifest each pool needs.

MIG on such a pool (:func:`ubuntu_mig_refusal`): GKE's ``gpu_partition_size`` only asks for partitions; on a node whose
driver GKE does not install, the one that creates them is the ``partition-gpus`` init container
(``gcr.io/gke-release/nvidia-partition-gpu``, GoogleCloudPlatform/container-engine-accelerators ``partition_gpu/``) of
Google's COS installer, run after the driver. Google's Ubuntu installer runs only the installer and pause, and GKE's
device plugin only counts the partitions that exist and fails when a GPU lacks them (``pkg/gpu/nvidia/mig/mig.go``
``DeviceManager.Start``), so ``mig`` on ``UBUNTU_CONTAINERD`` with ``INSTALLATION_DISABLED`` is refused. GPU sharing
(``gpuSharing``) is not: time-sharing and MPS are set up by GKE's device plugin from the node's GPU config
(``pkg/gpu/nvidia/manager.go``), and neither installer manifest (COS or Ubuntu) takes part in them.

NVIDIA's standalone device plugin on such a pool (:func:`toolkit_warnings`): when every pool it serves has one
driver root (COS: :data:`~gpu_node_pool.k8s.wellknown.GKE_NVIDIA_INSTALL_DIR`; Ubuntu: not stated by any public
source, :data:`.image.DRIVER_ROOT_SOURCE`) the stack sets its chart's ``nvidiaDriverRoot`` to it, so it loads NVML
and advertises the GPUs (:mod:`gpu_node_pool.gpu_agents.device_plugin.values`), else the warning says why it is left
out; either way it hands a GPU to a container only through the NVIDIA
container toolkit (:data:`TOOLKIT_SOURCE`), which GKE nodes do not run (GKE's own plugin mounts the driver and the
device nodes itself) and which the standalone chart does not install; the GPU Operator installs it.
"""

from __future__ import annotations

from typing import Any

from ...config.errors import ConfigIssue
from ...gpu_agents.gke_driver_installer import values as installer
from ...k8s.wellknown import GKE_NO_DEFAULT_PLUGIN_LABEL, GKE_NVIDIA_INSTALL_DIR
from ...text.listing import listed
from .image import COS, DRIVER_ROOT_SOURCE, NODE_IMAGES_SOURCE, UBUNTU, image_type_of

__all__ = ["DRIVER_DISABLED", "GKE_COS_DRIVER_INSTALLER", "GKE_DRIVER_INSTALLER_SOURCE", "PARTITIONER_SOURCE",
           "TOOLKIT_SOURCE", "driver_warning", "stack_warnings", "toolkit_warnings", "ubuntu_mig_refusal"]


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
#: GKE Standard's default node image, which a node pool that names no image type gets.
GKE_DEFAULT_IMAGE_SOURCE = NODE_IMAGES_SOURCE


def _image(image_type: str | None) -> tuple[installer.Manifest, str]:
    """The installer manifest of a pool's image and how the warning names that image."""
    if image_type is None:
        return installer.MANIFESTS[installer.DEFAULT_IMAGE], (
            f"the pool names no image type, so its nodes run GKE's default {installer.DEFAULT_IMAGE} "
            f"({GKE_DEFAULT_IMAGE_SOURCE})")
    return installer.MANIFESTS[image_type], f"the pool's imageType is {image_type}"


def driver_warning(*, gke_plugin: bool, image_type: str | None = None) -> str:
    """The warning of a pool with ``gpuDriverVersion: INSTALLATION_DISABLED`` (``gke_plugin``: GKE's device plugin
    serves it; ``image_type``: its ``imageType``, None when unset): no ``nvidia.com/gpu`` until an installer has run,
    which of Google's manifests the pool's image needs and under which name a stack's ``gpuAgents.gkeDriverInstaller``
    (on unless turned off) or a program's ``GkeDriverInstaller`` installs it, what a change of the image type outside
    the stack leaves, and GKE's own drivers. True whichever installs it; :func:`stack_warnings` says what a stack that
    turned its installer off must do."""
    plugin = "GKE's device plugin" if gke_plugin else "NVIDIA's device plugin"
    manifest, image = _image(image_type)
    ubuntu = image_type == UBUNTU
    other = installer.MANIFESTS[installer.DEFAULT_IMAGE if ubuntu else UBUNTU]
    return (f"{DRIVER_DISABLED}: GKE installs no NVIDIA driver on these nodes ({GKE_DRIVER_INSTALLER_SOURCE}), "
            f"so {plugin} finds no GPU and the nodes advertise no nvidia.com/gpu until a driver installer has run on "
            "them. A stack's gpuAgents.gkeDriverInstaller (on unless enabled: false) or a program's GkeDriverInstaller "
            f"installs Google's {'Ubuntu' if ubuntu else 'COS'} installer on "
            f"the pool as {installer.NAMESPACE}/{manifest.name} ({manifest.source}, with tolerations of the pool's "
            f"taints and a node affinity to its nodes): {image}. If the image type is changed outside the stack, that "
            f"installer no longer fits the nodes ({'COS' if ubuntu else 'Ubuntu'} nodes need kubectl apply -f "
            f"{other.url}): set imageType in the stack instead. Or let GKE install the driver (gpuDriverVersion LATEST or DEFAULT)")


#: Who creates GKE's MIG partitions on a node whose driver GKE does not install, and who only counts them.
PARTITIONER_SOURCE = (
    f"{installer.COS_SOURCE} initContainers partition-gpus (gcr.io/gke-release/nvidia-partition-gpu), absent from "
    f"{installer.UBUNTU_SOURCE}; {installer.SOURCE_REPO} pkg/gpu/nvidia/mig/mig.go@{installer.SOURCE_COMMIT} "
    "DeviceManager.Start; https://cloud.google.com/kubernetes-engine/docs/how-to/gpus-multi"
)


def ubuntu_mig_refusal(image_type: str | None, driver_version: str, profile: str) -> str | None:
    """Why ``mig`` (its ``profile``) is refused on a pool of ``image_type`` (None: GKE's default COS) whose
    ``gpuDriverVersion`` is ``driver_version``: on ``UBUNTU_CONTAINERD`` with ``INSTALLATION_DISABLED`` nothing
    creates the partitions (:data:`PARTITIONER_SOURCE`); None for any other pool."""
    if image_type != UBUNTU or driver_version != DRIVER_DISABLED:
        return None
    return (f"{profile!r} partitions on imageType {UBUNTU} with accelerator.gpuDriverVersion {DRIVER_DISABLED}: "
            "nothing would create them. gpu_partition_size only asks for them; on nodes whose driver GKE does not "
            "install, they are created by the partition-gpus init container of Google's COS installer, which Google's "
            "Ubuntu installer (the one these nodes get) lacks, and GKE's device plugin only counts existing partitions "
            f"and fails when a GPU has none ({PARTITIONER_SOURCE}), so the nodes would advertise no nvidia.com/gpu. "
            "Let GKE install the driver (accelerator.gpuDriverVersion: DEFAULT, the value GKE documents for Ubuntu), "
            f"or use COS (imageType: {installer.DEFAULT_IMAGE}, or leave imageType out), or remove mig")


#: What NVIDIA's plugin needs to give a container its GPU, what GKE's plugin does instead, and who installs the
#: toolkit on GKE.
TOOLKIT_SOURCE = (
    "NVIDIA/k8s-device-plugin@v0.20.0 README.md Prerequisites (nvidia-container-toolkit, nvidia-container-runtime as "
    "the default low-level runtime) and internal/plugin/server.go getAllocateResponse; "
    f"{installer.SOURCE_REPO} cmd/nvidia_gpu/nvidia_gpu.go@{installer.SOURCE_COMMIT} -host-path; NVIDIA "
    f"cloud-native-docs gpu-operator/google-gke.rst (toolkit.installDir {GKE_NVIDIA_INSTALL_DIR})"
)


def toolkit_warnings(stack: Any) -> list[ConfigIssue]:
    """One warning per gke pool served by the stack's standalone NVIDIA device plugin (``nvidiaDevicePlugin: true``,
    ``devicePlugin`` enabled with provider ``nvidia-device-plugin``): its containers get no GPU without the NVIDIA
    container toolkit, which neither GKE nor the chart installs (:data:`TOOLKIT_SOURCE`); the fix names the GPU
    Operator and GKE's own plugin; when the chart's ``nvidiaDriverRoot`` is left out (the served pools have no one
    driver root, :func:`gpu_node_pool.gpu_agents.device_plugin.values.driver_root`), why and what follows. At
    ``pools[<i>].nvidiaDevicePlugin``."""
    from ...gpu_agents.device_plugin.values import driver_root

    plugin = getattr(stack, "device_plugin", None)
    if plugin is None or not plugin.enabled or plugin.provider != "nvidia-device-plugin":
        return []
    root, why = driver_root(stack.pools)
    found = (f"the stack points its chart's nvidiaDriverRoot at {root}, where Google's installer puts the driver, so "
             "it finds the GPUs and the nodes advertise nvidia.com/gpu" if root else
             f"{why} ({DRIVER_ROOT_SOURCE}), so the plugin looks for the driver's NVML under / and the nodes advertise "
             f"no nvidia.com/gpu unless it is there; serve only pools of imageType {COS} with it (the driver under "
             f"{GKE_NVIDIA_INSTALL_DIR})")
    return [ConfigIssue(f"pools[{i}].nvidiaDevicePlugin", (
        f"true: NVIDIA's standalone device plugin serves this GKE pool; {found}; and it hands a GPU to a container "
        "only through the NVIDIA container toolkit (nvidia-container-runtime or CDI hooks), which GKE nodes do not run and the chart does not install (GKE's own "
        f"plugin mounts the driver and device nodes itself) ({TOOLKIT_SOURCE}), so pods would get these GPUs and see "
        "none. Set devicePlugin.provider: gpu-operator (it installs the toolkit), or "
        f"remove nvidiaDevicePlugin and the label {GKE_NO_DEFAULT_PLUGIN_LABEL} to keep GKE's plugin"))
        for i, p in enumerate(stack.pools)
        if getattr(p, "image_family", None) == "gke" and getattr(p, "uses_nvidia_device_plugin", False)]


def stack_warnings(stack: Any) -> list[ConfigIssue]:
    """``gpuAgents.gkeDriverInstaller.enabled: false`` in a stack with pools of ``INSTALLATION_DISABLED``: the stack
    installs no driver installer for them; the fix (apply the manifest of each pool's image, :data:`GKE_COS_DRIVER_INSTALLER`
    for COS, or turn it on) and the mandatory policy that reports such a pool (nothing when the installer is on or no
    pool leaves the driver to the user); then :func:`toolkit_warnings`."""
    return _installer_off(stack) + toolkit_warnings(stack)


def _installer_off(stack: Any) -> list[ConfigIssue]:
    """The warning of ``gpuAgents.gkeDriverInstaller.enabled: false`` described in :func:`stack_warnings`."""
    agents = getattr(stack, "gpu_agents", None)
    config = getattr(agents, "gke_driver_installer", None)
    if config is None or config.enabled:
        return []
    by_image: dict[str, list[str]] = {}
    for i, p in enumerate(stack.pools):
        if getattr(getattr(p, "accelerator", None), "gpu_driver_version", None) == DRIVER_DISABLED:
            image = image_type_of(p)
            by_image.setdefault(image, []).append(f"pools[{i}] {p.name!r}")
    if not by_image:
        return []
    pools = [pool for names in by_image.values() for pool in names]
    apply = "; ".join(f"on {'Ubuntu' if image == UBUNTU else 'COS'} nodes ({listed(names)}): kubectl apply -f "
                      f"{installer.MANIFESTS[image].url}" for image, names in by_image.items())
    both = (f" (Google names both DaemonSets {installer.NAMESPACE}/{installer.NAME}: apply the Ubuntu one under "
            f"another name, as the stack's {installer.UBUNTU_NAME})") if len(by_image) > 1 else ""
    return [ConfigIssue("gpuAgents.gkeDriverInstaller.enabled", (
        f"false: the stack installs no NVIDIA driver installer, so {listed(pools)} ({DRIVER_DISABLED}) get no driver "
        f"from it: apply one yourself ({apply}){both} or set gpuAgents.gkeDriverInstaller.enabled: true; the "
        "mandatory policy gpu-agents-cover-gpu-pools reports such a pool unless the program declares an installer "
        "that reaches its nodes"))]
