"""GPU-starved nodes: GPU nodes where no GPU resource is allocatable, and why.

A GPU node advertises ``nvidia.com/gpu`` (or ``gpu.shared``, ``mig-*``) only when a device
plugin runs on it and finds a working driver. The reasons looked for, in order:

1. No device plugin DaemonSet covers the node: each one is kept off or stopped by a taint (the
   taint and the toleration to add are named). Bottlerocket NVIDIA variants ship their own
   plugin (``status.nodeInfo.osImage``), so there the built-in plugin is the suspect.
2. The plugin's pod on the node is missing or not Ready (its waiting reason is quoted).
3. GKE: the node has ``cloud.google.com/gke-accelerator`` but neither
   ``cloud.google.com/gke-gpu-driver-version`` (GKE installs the driver) nor a driver installer
   DaemonSet that runs there: the driver is missing (GKE installs the driver only when the node pool sets a
   driver version: https://cloud.google.com/kubernetes-engine/docs/how-to/gpus; GoogleCloudPlatform/
   container-engine-accelerators ``nvidia-driver-installer/cos/daemonset-preloaded.yaml`` skips nodes
   labelled ``cloud.google.com/gke-gpu-driver-version``).
4. Otherwise: the plugin runs and is Ready but registers nothing: the plugin log says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..k8s.wellknown import GKE_ACCELERATOR_LABEL, GKE_DRIVER_VERSION_LABEL
from ..policies.daemonset_nodes import DaemonSet, NodeVerdict
from .cluster import Node
from .drifted import DriftedTaints, taint_fix

__all__ = ["is_device_plugin", "is_driver_installer", "starved_reason"]

_PLUGIN_IMAGES = ("k8s-device-plugin", "nvidia-gpu-device-plugin")
_PLUGIN_NAMES = ("nvidia-device-plugin", "nvidia-gpu-device-plugin")
_DRIVER_NAMES = ("nvidia-driver-installer", "nvidia-driver-daemonset")


def is_device_plugin(ds: DaemonSet) -> bool:
    """NVIDIA's device plugin (chart, static manifest, GPU Operator) or GKE's, by image or name."""
    return any(any(p in image for p in _PLUGIN_IMAGES) for image in ds.images) or ds.name.startswith(_PLUGIN_NAMES)


def is_driver_installer(ds: DaemonSet) -> bool:
    """GKE's driver installer DaemonSet or the GPU Operator's driver DaemonSet, by name."""
    return ds.name.startswith(_DRIVER_NAMES)


def starved_reason(
    node: Node,
    verdicts: Mapping[str, NodeVerdict],
    daemonsets: list[DaemonSet],
    pod_states: Mapping[tuple[Any, Any, Any], str] | None,
    drifted: DriftedTaints | None = None,
) -> tuple[str, str]:
    """``(reason, fix)`` for a starved node. ``verdicts``: DaemonSet display -> its verdict on the node;
    ``pod_states``: (namespace, DaemonSet name, node name) -> '' when its pod there is Ready, else why
    not (``pod_states`` of :class:`gpu_node_pool.audit.snapshot.Snapshot`); None when the pods could not be listed.
    ``drifted``: the taints drift reports (``--stack``): a device plugin stopped by one is told what drift says
    (:func:`.drifted.taint_fix`), not to tolerate it."""
    drifted = drifted if drifted is not None else DriftedTaints()
    plugins = [ds for ds in daemonsets if is_device_plugin(ds)]
    if "bottlerocket" in node.os_image.lower():
        return (f"Bottlerocket ({node.os_image}) runs its own NVIDIA device plugin and it registers no GPU",
                "check the node's settings.kubelet-device-plugins and the host containers' logs")
    running = [ds for ds in plugins if verdicts[ds.display].status == "runs"]
    if not running:
        if not plugins:
            return ("no NVIDIA device plugin DaemonSet is in the cluster",
                    "install the device plugin (NvidiaDevicePlugin, or GKE's managed one)")
        parts, fixes = [], []
        for ds in plugins:
            v = verdicts[ds.display]
            if v.status == "doesNotRun":
                parts.append(f"{ds.display} does not run here ({v.reason})")
                stays = v.stays or (None,) * len(v.missing)
                fixes += [f"{ds.display}: {taint_fix(ds, taint, tol, stay, [node.name], drifted)[0]}"
                          for (taint, tol), stay in zip(v.missing, stays, strict=True)]
            else:
                parts.append(f"{ds.display} is {'kept off by its selection' if v.status == 'keptOff' else 'not judged'}"
                             + (f" ({v.reason})" if v.reason else ""))
                fixes.append(f"make {ds.display} select this node's pool")
        return "no device plugin covers the node: " + "; ".join(parts), "; ".join(fixes)
    if pod_states is None:
        return ("a device plugin should run here, but no pods were read to see whether it is Ready",
                "include the pods (kubectl get nodes,daemonsets,pods,events -A -o json), or grant list pods "
                "(gpupool audit --print-rbac)")
    states = {ds.display: pod_states.get((ds.namespace, ds.name, node.name)) for ds in running}
    broken = {k: v for k, v in states.items() if v}
    if broken:
        return ("device plugin pod not Ready: " + "; ".join(f"{k} {v}" for k, v in broken.items()),
                "kubectl describe the pod and read its log")
    if all(v is None for v in states.values()):
        return (f"{', '.join(states)} should run here but has no pod on the node",
                "kubectl describe daemonset; look for FailedCreate events")
    labels = node.labels
    if GKE_ACCELERATOR_LABEL in labels and GKE_DRIVER_VERSION_LABEL not in labels:
        installers = [ds for ds in daemonsets if is_driver_installer(ds) and verdicts[ds.display].status == "runs"]
        if not installers:
            return ("driver missing on GKE: the node has no cloud.google.com/gke-gpu-driver-version label "
                    "(GKE does not install the driver) and no driver installer DaemonSet runs on it",
                    "create the pool with gpu-driver-version=default/latest, or apply GKE's nvidia-driver-installer DaemonSet")
    return ("the device plugin pod is Ready but registers no GPU", "read the plugin's log; run nvidia-smi on the node")
