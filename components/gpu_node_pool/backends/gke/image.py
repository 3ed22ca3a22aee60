"""The node image of a gke pool (``imageType``, ``node_config.image_type``) and what it decides.

GKE Standard node images (https://cloud.google.com/kubernetes-engine/docs/concepts/node-images): Container-Optimized
OS with containerd (``COS_CONTAINERD``, what a node pool gets when it names no image type), Ubuntu with containerd
(``UBUNTU_CONTAINERD``) and Windows Server (``WINDOWS_LTSC_CONTAINERD``, ...). A pool takes:

* ``COS_CONTAINERD`` or ``UBUNTU_CONTAINERD`` (:data:`GkeImageType`), written to ``node_config.image_type`` only when
  set; unset, GKE gives the pool ``COS_CONTAINERD``;
* no Windows Server image: refused (:func:`windows_refusal`). GPU node pools on Windows are not this product's scope:
  the GPU agents it installs are Linux DaemonSets, and Google's driver installers exist for COS and Ubuntu only
  (GoogleCloudPlatform/container-engine-accelerators ``nvidia-driver-installer/cos`` and ``nvidia-driver-installer/ubuntu``);
* any other value: refused by the loader with the allowed values and a did-you-mean (``cos_containerd`` ->
  ``COS_CONTAINERD``).

The driver installer of an ``INSTALLATION_DISABLED`` pool follows its image: Google's COS manifest or Google's Ubuntu
manifest (:mod:`gpu_node_pool.gpu_agents.gke_driver_installer.values`, which names them by these image types).

``gpuDriverVersion`` on Ubuntu: the GKE API reference describes ``LATEST`` as '"Latest" GPU driver in COS' and
``DEFAULT`` as '"Default" GPU driver in COS and Ubuntu' (:data:`DRIVER_VERSIONS_SOURCE`). It does not say that GKE
refuses ``LATEST`` on Ubuntu, so it is not refused: :func:`ubuntu_latest_warning` says what the reference documents
and that ``DEFAULT`` is the value it names for Ubuntu. Pure.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from ...config.common import fail
from ...k8s.wellknown import (
    GKE_COS_IMAGE,
    GKE_DEFAULT_IMAGE,
    GKE_NVIDIA_CONTAINER_DIR,
    GKE_NVIDIA_INSTALL_DIR,
    GKE_UBUNTU_IMAGE,
)

__all__ = ["COS", "DRIVER_MOUNT", "DRIVER_ROOTS", "DRIVER_ROOT_SOURCE", "DRIVER_VERSIONS_SOURCE", "GkeImageType", "IMAGE_TYPES",
           "NODE_IMAGES_SOURCE", "UBUNTU", "driver_root_of", "image_type_of", "ubuntu_latest_warning",
           "windows_refusal"]

#: The node images a gke pool takes, as ``node_config.image_type`` spells them.
GkeImageType = Literal[GKE_COS_IMAGE, GKE_UBUNTU_IMAGE]  # type: ignore[valid-type]
IMAGE_TYPES: tuple[str, ...] = get_args(GkeImageType)
COS, UBUNTU = IMAGE_TYPES
#: GKE's node images and the default one.
NODE_IMAGES_SOURCE = "https://cloud.google.com/kubernetes-engine/docs/concepts/node-images"
#: The GKE API's ``GPUDriverInstallationConfig.GPUDriverVersion``, whose descriptions name the images of each value.
DRIVER_VERSIONS_SOURCE = (
    "GKE API reference GPUDriverInstallationConfig.GPUDriverVersion, "
    "https://cloud.google.com/ruby/docs/reference/google-cloud-container-v1/latest/"
    "Google-Cloud-Container-V1-GPUDriverInstallationConfig-GPUDriverVersion"
)
#: Google's driver installer manifests: one per Linux node image, none for Windows.
_INSTALLERS_SOURCE = ("GoogleCloudPlatform/container-engine-accelerators nvidia-driver-installer/cos and "
                      "nvidia-driver-installer/ubuntu")

#: Where the NVIDIA driver lies on the host of each node image, as Google's installer manifests at the pinned commit
#: state it; None: no public source states it.
DRIVER_ROOT_SOURCE = (
    "GoogleCloudPlatform/container-engine-accelerators@992db81257553607f1477945f1b3219632991829: "
    "nvidia-driver-installer/cos/daemonset-preloaded.yaml sets NVIDIA_INSTALL_DIR_HOST=/home/kubernetes/bin/nvidia; "
    "nvidia-driver-installer/ubuntu/daemonset-preloaded.yaml sets no NVIDIA_INSTALL_DIR_HOST and runs "
    "gke-nvidia-installer:fixed, the installer GKE preloads on Ubuntu nodes (nvidia-driver-installer/ubuntu/README.md), "
    "whose source is not public (nvidia-driver-installer/ubuntu/entrypoint.sh belongs to the experimental "
    "ubuntu/daemonset.yaml, not to it)"
)
DRIVER_ROOTS: dict[str, str | None] = {COS: GKE_NVIDIA_INSTALL_DIR, UBUNTU: None}
#: The driver directory GKE's own device plugin mounts into GPU containers, whatever the image: its ``-host-path`` and
#: ``-container-path`` defaults (GoogleCloudPlatform/container-engine-accelerators ``cmd/nvidia_gpu/nvidia_gpu.go``).
DRIVER_MOUNT = (GKE_NVIDIA_INSTALL_DIR, GKE_NVIDIA_CONTAINER_DIR)


def image_type_of(pool: Any) -> str:
    """The node image a gke pool's nodes run: its ``image_type``, else GKE's default ``COS_CONTAINERD``."""
    return getattr(pool, "image_type", None) or GKE_DEFAULT_IMAGE


def driver_root_of(pool: Any) -> str | None:
    """The host directory holding the NVIDIA driver on a gke pool's nodes (:data:`DRIVER_ROOTS` of
    :func:`image_type_of`): ``/home/kubernetes/bin/nvidia`` on COS, None on Ubuntu (:data:`DRIVER_ROOT_SOURCE`)."""
    return DRIVER_ROOTS[image_type_of(pool)]


def windows_refusal(value: Any) -> Any:
    """``imageType`` before the allowed values are judged: a Windows Server image (any spelling starting with
    ``windows``) is refused here, naming the source; anything else is returned for the loader's literal check.

    Raises:
        ValueError: (through pydantic) ``value`` names a Windows Server image.
    """
    if isinstance(value, str) and value.strip().casefold().startswith("windows"):
        raise fail(
            f"{value!r} is a Windows Server node image ({NODE_IMAGES_SOURCE}), and GPU node pools on Windows are not "
            "this product's scope: the GPU agents it installs run as Linux DaemonSets, and Google publishes NVIDIA "
            f"driver installers for COS and Ubuntu only ({_INSTALLERS_SOURCE}); "
            f"write {' or '.join(IMAGE_TYPES)}, or leave imageType out for GKE's default {COS}"
        )
    return value


def ubuntu_latest_warning(image_type: str | None, driver_version: str) -> str | None:
    """The warning of a pool on ``UBUNTU_CONTAINERD`` whose ``gpuDriverVersion`` is ``LATEST`` (also the default when
    none is written), else None."""
    if image_type != UBUNTU or driver_version != "LATEST":
        return None
    return (f"LATEST with imageType {UBUNTU}: the GKE API reference describes LATEST as '\"Latest\" GPU driver in COS' "
            f"and DEFAULT as '\"Default\" GPU driver in COS and Ubuntu' ({DRIVER_VERSIONS_SOURCE}); it does not say "
            "that GKE takes LATEST on Ubuntu nodes. Write gpuDriverVersion: DEFAULT for the driver it documents on "
            "Ubuntu (or INSTALLATION_DISABLED to install the driver with Google's Ubuntu installer)")
