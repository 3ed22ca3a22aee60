"""The gke pool in the plan: read back from its recorded NodePool inputs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import BACKEND


def summarise(pool: Any, entry: dict[str, Any], index: Mapping[tuple[str, str], Any],
              by_type: Mapping[str, list[Any]], outputs: Mapping[str, Any]) -> None:
    """Read a gke pool back from its recorded ``gcp:container/nodePool:NodePool`` inputs."""
    from . import read as gke
    from .render import PROVIDER_FIELD

    node_pool = index.get((BACKEND.child_type("node_pool"), BACKEND.child_name("node_pool", pool.name)))
    if node_pool is None:
        return
    node_config = node_pool.inputs.get("nodeConfig") or {}
    entry["taints"] = [str(t) for t in gke.read_node_pool_taints(node_pool.inputs)]
    entry["providerTaints"] = node_config.get("taints", [])
    entry["providerField"] = PROVIDER_FIELD
    entry["labels"] = dict(sorted(gke.read_node_pool_labels(node_pool.inputs).items()))
    entry["machineType"] = node_config.get("machineType")
    entry["accelerators"] = gke.read_node_pool_accelerators(node_pool.inputs)
    entry["spot"] = node_config.get("spot", False)
    entry["nodeLocations"] = node_pool.inputs.get("nodeLocations", [])
    entry["autoscaling"] = node_pool.inputs.get("autoscaling", {})
    if not pool.uses_nvidia_device_plugin:
        entry["devicePlugin"] = "managed by GKE (its nvidia-gpu-device-plugin DaemonSet in kube-system)"
    else:
        entry["devicePlugin"] = "nvidia-device-plugin chart (GKE's plugin and driver install are off)"


def report(entry: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The pool's lines in the text plan: ``(before the taints, after the labels)``."""
    if "machineType" not in entry:
        return [], []
    sc = entry.get("autoscaling", {})
    gpus = ", ".join(
        f"{a.get('count')}x {a.get('type')} driver "
        f"{(a.get('gpuDriverInstallationConfig') or {}).get('gpuDriverVersion', 'unspecified')}"
        for a in entry.get("accelerators", [])
    )
    return [
        f"  machine         {entry['machineType']}{' (spot)' if entry.get('spot') else ''}  {gpus}  "
        f"total size {sc.get('totalMinNodeCount')}..{sc.get('totalMaxNodeCount')}  "
        f"zones {', '.join(entry.get('nodeLocations') or []) or '(cluster default)'}"
    ], []
