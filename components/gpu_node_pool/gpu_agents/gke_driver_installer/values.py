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

Node image: the COS manifest is the one for GKE's default node image, ``cos_containerd``, which a node pool gets when
it names no image type (https://cloud.google.com/kubernetes-engine/docs/concepts/node-images); the pool model has no
image type and the node pool is rendered without one (``backends/gke/render.py``), so every served pool is COS. Ubuntu
nodes need ``nvidia-driver-installer/ubuntu/daemonset-preloaded.yaml`` (:data:`UBUNTU_SOURCE`; its init container
``gke-nvidia-installer:fixed`` triggers the install GKE ships on Ubuntu nodes, ``nvidia-driver-installer/ubuntu/README.md``).
It is not written here: no pool of the stack can be on Ubuntu, and Google's two manifests do not tell the node images
apart themselves: both are ``kube-system/nvidia-driver-installer`` and both select every GPU node without a driver GKE
installed (``cloud.google.com/gke-accelerator`` Exists, ``cloud.google.com/gke-gpu-driver-version`` DoesNotExist; the
COS one also ``cloud.google.com/gke-confidential-nodes-instance-type`` DoesNotExist), with no node image label. A pool
whose image type is set to Ubuntu outside the stack is not served by this DaemonSet (the config warning of every
``INSTALLATION_DISABLED`` pool says so, with :data:`UBUNTU_MANIFEST_URL`).

Pure: plain Kubernetes objects, no Pulumi; the component (:mod:`.component`) declares the DaemonSet.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ...k8s.taints import Toleration
from ...k8s.wellknown import (
    GKE_ACCELERATOR_LABEL,
    GKE_CONFIDENTIAL_NODES_LABEL,
    GKE_DRIVER_VERSION_LABEL,
    POOL_LABEL_KEY,
    SYSTEM_NODE_CRITICAL,
)
from ..placement import derived_tolerations
from ..pools import AgentPool

__all__ = ["SOURCE_REPO", "SOURCE_COMMIT", "COS_SOURCE", "UBUNTU_SOURCE", "COS_MANIFEST_URL", "UBUNTU_MANIFEST_URL",
           "NAME", "NAMESPACE", "installer_pools", "installer_daemonset"]

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
NAMESPACE = "kube-system"
_APP = {"k8s-app": NAME}
_INSTALL_DIR = "/home/kubernetes/bin/nvidia"
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
    """The pools GKE's installer serves: on GKE's node image (``image_family`` ``gke``) with no driver installed by
    anyone (``driver`` ``none``: ``gpuDriverVersion: INSTALLATION_DISABLED``, ``GkePool.driver_source``)."""
    return [p for p in pools if p.image_family == "gke" and p.driver == "none"]


def _volume(name: str, path: str) -> dict[str, Any]:
    return {"name": name, "hostPath": {"path": path}}


def _env(pairs: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in pairs]


def _affinity(pools: Sequence[AgentPool]) -> dict[str, Any]:
    expressions = [
        {"key": GKE_ACCELERATOR_LABEL, "operator": "Exists"},
        {"key": GKE_DRIVER_VERSION_LABEL, "operator": "DoesNotExist"},
        {"key": GKE_CONFIDENTIAL_NODES_LABEL, "operator": "DoesNotExist"},
        {"key": POOL_LABEL_KEY, "operator": "In", "values": sorted({p.name for p in pools})},
    ]
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": expressions}]}}}


def installer_daemonset(pools: Sequence[AgentPool], extra_tolerations: Sequence[Toleration] = ()) -> dict[str, Any]:
    """The ``apps/v1`` DaemonSet ``kube-system/nvidia-driver-installer`` (:data:`COS_SOURCE`) on the pools of
    :func:`installer_pools` among ``pools``: ``{apiVersion, kind, metadata, spec}``.

    Raises:
        ValueError: no pool of ``pools`` needs it (a node affinity with no pool would select nothing: the caller
            declares no installer then).
    """
    served = installer_pools(pools)
    if not served:
        raise ValueError("installer_daemonset: no GKE pool with gpuDriverVersion INSTALLATION_DISABLED to serve")
    installer = {
        "image": "cos-nvidia-installer:fixed",
        "imagePullPolicy": "Never",
        "name": NAME,
        "resources": {"requests": {"cpu": "150m"}},
        "securityContext": {"privileged": True},
        "env": _env([("NVIDIA_INSTALL_DIR_HOST", _INSTALL_DIR), ("NVIDIA_INSTALL_DIR_CONTAINER", "/usr/local/nvidia"),
                     ("VULKAN_ICD_DIR_HOST", _VULKAN_DIR), ("VULKAN_ICD_DIR_CONTAINER", "/etc/vulkan/icd.d"),
                     ("ROOT_MOUNT_DIR", "/root"), ("COS_TOOLS_DIR_HOST", _COS_TOOLS),
                     ("COS_TOOLS_DIR_CONTAINER", "/build/cos-tools")]),
        "volumeMounts": [{"name": "nvidia-install-dir-host", "mountPath": "/usr/local/nvidia"},
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
        "volumeMounts": [{"name": "nvidia-install-dir-host", "mountPath": "/usr/local/nvidia"},
                         {"name": "dev", "mountPath": "/dev"},
                         {"name": "nvidia-config", "mountPath": "/etc/nvidia"}],
    }
    pod_spec = {
        "priorityClassName": SYSTEM_NODE_CRITICAL,
        "affinity": _affinity(served),
        "tolerations": [t.to_k8s() for t in derived_tolerations(served, extra_tolerations)],
        "hostNetwork": True,
        "hostPID": True,
        "volumes": [_volume("dev", "/dev"), _volume("vulkan-icd-mount", _VULKAN_DIR),
                    _volume("nvidia-install-dir-host", _INSTALL_DIR), _volume("root-mount", "/"),
                    _volume("cos-tools", _COS_TOOLS), _volume("nvidia-config", "/etc/nvidia")],
        "initContainers": [installer, partition],
        "containers": [{"image": _PAUSE_IMAGE, "name": "pause"}],
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": NAME, "namespace": NAMESPACE, "labels": dict(_APP)},
        "spec": {
            "selector": {"matchLabels": dict(_APP)},
            "updateStrategy": {"type": "RollingUpdate"},
            "template": {"metadata": {"labels": {"name": NAME, **_APP}}, "spec": pod_spec},
        },
    }
