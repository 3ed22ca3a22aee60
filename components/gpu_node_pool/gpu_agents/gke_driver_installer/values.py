"""GKE's ``nvidia-driver-installer`` DaemonSet, written from Google's manifest and placed on the pools that need it.

A GKE node pool with ``accelerator.gpuDriverVersion: INSTALLATION_DISABLED`` gets no NVIDIA driver from GKE; GKE's
manual-driver setup applies Google's installer DaemonSet (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#installing_drivers),
and until it has run the nodes advertise no ``nvidia.com/gpu``. The DaemonSet here is
GoogleCloudPlatform/container-engine-accelerators ``nvidia-driver-installer/cos/daemonset-preloaded.yaml``
@ :data:`SOURCE_COMMIT` (:data:`COS_SOURCE`) as written there (name, namespace ``kube-system``, labels, selector,
``system-node-critical``, host network and PID, host paths, the ``cos-nvidia-installer:fixed`` init container GKE
preloads on COS nodes, the ``partition-gpus`` init container and the pause container, each with its pinned digest),
with two changes:

* ``tolerations``: the manifest's ``[{operator: Exists}]`` (every taint) is replaced by the derivation every agent
  of this package uses (:func:`gpu_node_pool.gpu_agents.placement.derived_tolerations`: ``CriticalAddonsOnly`` and one
  ``Exists`` toleration per key and effect of the served pools' taints, then the stack's extra tolerations).
* node affinity: the manifest's one ``nodeSelectorTerm`` (``cloud.google.com/gke-accelerator`` Exists,
  ``cloud.google.com/gke-gpu-driver-version`` and ``cloud.google.com/gke-confidential-nodes-instance-type``
  DoesNotExist) keeps its expressions and gets ``gpu-node-pools/pool In [<served pools>]`` ANDed to them, so the
  installer lands on exactly the served pools' nodes.

Node image: each served pool gets the manifest of its node image (``GkePool.image_type``; a pool that names none
runs GKE's default ``COS_CONTAINERD``, https://cloud.google.com/kubernetes-engine/docs/concepts/node-images), one
DaemonSet per image among the served pools (:func:`installer_daemonsets`):

* ``COS_CONTAINERD``: the COS manifest above, named as Google names it (:data:`NAME`), so an installer applied before
  with ``kubectl apply`` is the same object;
* ``UBUNTU_CONTAINERD``: ``nvidia-driver-installer/ubuntu/daemonset-preloaded.yaml`` @ :data:`SOURCE_COMMIT`
  (:data:`UBUNTU_SOURCE`; its init container ``gke-nvidia-installer:fixed`` triggers the install GKE ships on Ubuntu
  nodes, ``nvidia-driver-installer/ubuntu/README.md``; host paths ``/dev``, ``/boot``, ``/``; no host network or PID),
  with the same two changes, and renamed :data:`UBUNTU_NAME` (its ``k8s-app`` and ``name`` labels and its selector
  too). Google's two manifests are both ``kube-system/nvidia-driver-installer`` with the selector
  ``k8s-app: nvidia-driver-installer`` and select every GPU node without a driver GKE installed, with no node image
  label; two DaemonSets of one name cannot both exist, and two with one selector would each count the other's pods
  as its own (https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/#pod-selector). Each DaemonSet's
  ``gpu-node-pools/pool In`` lists only the pools of its image, so neither lands on the other's nodes.

Pure: plain Kubernetes objects, no Pulumi; the component (:mod:`.component`) declares the DaemonSet.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...k8s.taints import Toleration
from ...k8s.wellknown import (
    GKE_ACCELERATOR_LABEL,
    GKE_CONFIDENTIAL_NODES_LABEL,
    GKE_COS_IMAGE,
    GKE_DEFAULT_IMAGE,
    GKE_DRIVER_VERSION_LABEL,
    GKE_NVIDIA_CONTAINER_DIR,
    GKE_NVIDIA_INSTALL_DIR,
    GKE_UBUNTU_IMAGE,
    POOL_LABEL_KEY,
    SYSTEM_NODE_CRITICAL,
)
from ..placement import derived_tolerations
from ..pools import AgentPool

__all__ = ["SOURCE_REPO", "SOURCE_COMMIT", "COS_SOURCE", "UBUNTU_SOURCE", "COS_MANIFEST_URL", "UBUNTU_MANIFEST_URL",
           "NAME", "UBUNTU_NAME", "NAMESPACE", "MANIFESTS", "Manifest", "installer_pools", "installer_daemonset",
           "installer_daemonsets"]

SOURCE_REPO = "GoogleCloudPlatform/container-engine-accelerators"
#: The commit the DaemonSet is written from (the COS manifest last changed in f2cf4197, 2025-07-02).
SOURCE_COMMIT = "992db81257553607f1477945f1b3219632991829"
COS_SOURCE = f"{SOURCE_REPO} nvidia-driver-installer/cos/daemonset-preloaded.yaml@{SOURCE_COMMIT}"
UBUNTU_SOURCE = f"{SOURCE_REPO} nvidia-driver-installer/ubuntu/daemonset-preloaded.yaml@{SOURCE_COMMIT}"
_RAW = f"https://raw.githubusercontent.com/{SOURCE_REPO}/{SOURCE_COMMIT}/nvidia-driver-installer"
#: :data:`COS_SOURCE` and :data:`UBUNTU_SOURCE` as ``kubectl apply -f`` takes them.
COS_MANIFEST_URL = f"{_RAW}/cos/daemonset-preloaded.yaml"
UBUNTU_MANIFEST_URL = f"{_RAW}/ubuntu/daemonset-preloaded.yaml"
NAME = "nvidia-driver-installer"
#: The Ubuntu installer's name beside the COS one (Google's manifest names it :data:`NAME` too).
UBUNTU_NAME = f"{NAME}-ubuntu"
NAMESPACE = "kube-system"
_INSTALL_DIR = GKE_NVIDIA_INSTALL_DIR
_VULKAN_DIR = f"{_INSTALL_DIR}/vulkan/icd.d"
_COS_TOOLS = "/var/lib/cos-tools"
_PARTITION_IMAGE = ("gcr.io/gke-release/nvidia-partition-gpu@sha256:"
                    "de12f85ebfb4fb6c1893cd30c23aab662a72fa0448f97ef74fccb82d7522ef17")
_PAUSE_IMAGE = "gke.gcr.io/pause:3.8@sha256:880e63f94b145e46f1b1082bb71b85e21f16b99b180b9996407d61240ceb9830"
_INSTALL_SCRIPT = """\
echo "Checking for existing GPU driver modules"
if lsmod | grep nvidia; then
  echo "GPU driver is already installed, the installed version may or may not be the driver version being tried to install, skipping installation"
  exit 0
else
  echo "No GPU driver module detected, installing now"
  /cos-gpu-installer install || exit 1
fi
"""


def installer_pools(pools: Iterable[AgentPool]) -> list[AgentPool]:
    """The pools GKE's installer serves: on a node image one of Google's manifests is for (``node_image`` a key of
    :data:`MANIFESTS`) with no driver installed by anyone (``driver`` ``none``: ``gpuDriverVersion:
    INSTALLATION_DISABLED``, ``GkePool.driver_source``)."""
    return [p for p in pools if p.node_image in MANIFESTS and p.driver == "none"]


def _volume(name: str, path: str) -> dict[str, Any]:
    return {"name": name, "hostPath": {"path": path}}


def _env(pairs: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in pairs]


def _affinity(pools: Sequence[AgentPool], *, confidential: bool) -> dict[str, Any]:
    """The manifest's node affinity (``confidential``: the COS one's ``gke-confidential-nodes-instance-type``
    DoesNotExist) with ``gpu-node-pools/pool In [<pools>]`` ANDed to it."""
    expressions = [
        {"key": GKE_ACCELERATOR_LABEL, "operator": "Exists"},
        {"key": GKE_DRIVER_VERSION_LABEL, "operator": "DoesNotExist"},
        *([{"key": GKE_CONFIDENTIAL_NODES_LABEL, "operator": "DoesNotExist"}] if confidential else []),
        {"key": POOL_LABEL_KEY, "operator": "In", "values": sorted({p.name for p in pools})},
    ]
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": expressions}]}}}


def _cos_pod(pools: Sequence[AgentPool], tolerations: list[dict[str, Any]]) -> dict[str, Any]:
    """The pod spec of :data:`COS_SOURCE` on ``pools``."""
    installer = {
        "image": "cos-nvidia-installer:fixed",
        "imagePullPolicy": "Never",
        "name": NAME,
        "resources": {"requests": {"cpu": "150m"}},
        "securityContext": {"privileged": True},
        "env": _env([("NVIDIA_INSTALL_DIR_HOST", _INSTALL_DIR), ("NVIDIA_INSTALL_DIR_CONTAINER", GKE_NVIDIA_CONTAINER_DIR),
                     ("VULKAN_ICD_DIR_HOST", _VULKAN_DIR), ("VULKAN_ICD_DIR_CONTAINER", "/etc/vulkan/icd.d"),
                     ("ROOT_MOUNT_DIR", "/root"), ("COS_TOOLS_DIR_HOST", _COS_TOOLS),
                     ("COS_TOOLS_DIR_CONTAINER", "/build/cos-tools")]),
        "volumeMounts": [{"name": "nvidia-install-dir-host", "mountPath": GKE_NVIDIA_CONTAINER_DIR},
                         {"name": "vulkan-icd-mount", "mountPath": "/etc/vulkan/icd.d"},
                         {"name": "dev", "mountPath": "/dev"},
                         {"name": "root-mount", "mountPath": "/root"},
                         {"name": "cos-tools", "mountPath": "/build/cos-tools"}],
        "command": ["bash", "-c", _INSTALL_SCRIPT],
    }
    partition = {
        "image": _PARTITION_IMAGE,
        "name": "partition-gpus",
        "env": _env([("LD_LIBRARY_PATH", "/usr/local/nvidia/lib64")]),
        "resources": {"requests": {"cpu": "150m"}},
        "securityContext": {"privileged": True},
        "volumeMounts": [{"name": "nvidia-install-dir-host", "mountPath": GKE_NVIDIA_CONTAINER_DIR},
                         {"name": "dev", "mountPath": "/dev"},
                         {"name": "nvidia-config", "mountPath": "/etc/nvidia"}],
    }
    return {
        "priorityClassName": SYSTEM_NODE_CRITICAL,
        "affinity": _affinity(pools, confidential=True),
        "tolerations": tolerations,
        "hostNetwork": True,
        "hostPID": True,
        "volumes": [_volume("dev", "/dev"), _volume("vulkan-icd-mount", _VULKAN_DIR),
                    _volume("nvidia-install-dir-host", _INSTALL_DIR), _volume("root-mount", "/"),
                    _volume("cos-tools", _COS_TOOLS), _volume("nvidia-config", "/etc/nvidia")],
        "initContainers": [installer, partition],
        "containers": [{"image": _PAUSE_IMAGE, "name": "pause"}],
    }


def _ubuntu_pod(pools: Sequence[AgentPool], tolerations: list[dict[str, Any]]) -> dict[str, Any]:
    """The pod spec of :data:`UBUNTU_SOURCE` on ``pools``."""
    installer = {
        "image": "gke-nvidia-installer:fixed",
        "name": NAME,
        "resources": {"requests": {"cpu": "150m"}},
        "securityContext": {"privileged": True},
        "volumeMounts": [{"name": "boot", "mountPath": "/boot"},
                         {"name": "dev", "mountPath": "/dev"},
                         {"name": "root-mount", "mountPath": "/root"}],
    }
    return {
        "priorityClassName": SYSTEM_NODE_CRITICAL,
        "affinity": _affinity(pools, confidential=False),
        "tolerations": tolerations,
        "volumes": [_volume("dev", "/dev"), _volume("boot", "/boot"), _volume("root-mount", "/")],
        "initContainers": [installer],
        "containers": [{"image": _PAUSE_IMAGE, "name": "pause"}],
    }


@dataclass(frozen=True)
class Manifest:
    """One of Google's installer manifests as written here: the DaemonSet's ``name`` (also its ``k8s-app`` label and
    selector), its ``source`` (repo path@commit), its ``url`` for ``kubectl apply -f``, its pod spec ``pod(pools,
    tolerations)`` and the suffix of the Pulumi child that declares it (``<component>-<child>``)."""

    name: str
    source: str
    url: str
    pod: Callable[[Sequence[AgentPool], list[dict[str, Any]]], dict[str, Any]]
    child: str


#: GKE node image (``node_config.image_type``) -> the installer manifest its nodes need; COS first.
MANIFESTS: dict[str, Manifest] = {
    GKE_COS_IMAGE: Manifest(NAME, COS_SOURCE, COS_MANIFEST_URL, _cos_pod, "daemonset"),
    GKE_UBUNTU_IMAGE: Manifest(UBUNTU_NAME, UBUNTU_SOURCE, UBUNTU_MANIFEST_URL, _ubuntu_pod, "ubuntu-daemonset"),
}
#: The image of a pool that names none: GKE's default.
DEFAULT_IMAGE = GKE_DEFAULT_IMAGE


def installer_daemonset(pools: Sequence[AgentPool], extra_tolerations: Sequence[Toleration] = (),
                        image_type: str = DEFAULT_IMAGE) -> dict[str, Any]:
    """The ``apps/v1`` DaemonSet of ``image_type``'s manifest (:data:`MANIFESTS`: ``kube-system/nvidia-driver-installer``
    for ``COS_CONTAINERD``, ``kube-system/nvidia-driver-installer-ubuntu`` for ``UBUNTU_CONTAINERD``) on the pools of
    :func:`installer_pools` among ``pools``, which the caller gives as the pools on that image:
    ``{apiVersion, kind, metadata, spec}``.

    Raises:
        ValueError: no pool of ``pools`` needs it (a node affinity with no pool would select nothing: the caller
            declares no installer then).
        KeyError: ``image_type`` is not a key of :data:`MANIFESTS`.
    """
    manifest = MANIFESTS[image_type]
    served = installer_pools(pools)
    if not served:
        raise ValueError("installer_daemonset: no GKE pool with gpuDriverVersion INSTALLATION_DISABLED to serve")
    app = {"k8s-app": manifest.name}
    tolerations = [t.to_k8s() for t in derived_tolerations(served, extra_tolerations)]
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": manifest.name, "namespace": NAMESPACE, "labels": dict(app)},
        "spec": {
            "selector": {"matchLabels": dict(app)},
            "updateStrategy": {"type": "RollingUpdate"},
            "template": {"metadata": {"labels": {"name": manifest.name, **app}},
                         "spec": manifest.pod(served, tolerations)},
        },
    }


def installer_daemonsets(pools: Sequence[AgentPool], image_types: Mapping[str, str],
                         extra_tolerations: Sequence[Toleration] = ()) -> list[tuple[str, dict[str, Any]]]:
    """``[(image type, DaemonSet)]``: one :func:`installer_daemonset` per node image among the pools of
    :func:`installer_pools` (``image_types``: pool name -> its ``node_config.image_type``; a pool not in it runs
    :data:`DEFAULT_IMAGE`), in :data:`MANIFESTS` order, each on the pools of its image only. Empty when no pool is
    served.

    Raises:
        KeyError: a served pool's image type is not a key of :data:`MANIFESTS`.
    """
    served = installer_pools(pools)
    images = {p.name: image_types.get(p.name) or DEFAULT_IMAGE for p in served}
    unknown = sorted({image for image in images.values() if image not in MANIFESTS})
    if unknown:
        raise KeyError(f"installer_daemonsets: no driver installer manifest for image type(s) {unknown}; "
                       f"known: {list(MANIFESTS)}")
    return [(image, installer_daemonset([p for p in served if images[p.name] == image], extra_tolerations, image))
            for image in MANIFESTS if image in images.values()]
