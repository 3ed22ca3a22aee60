"""The eks-auto pool in the plan: read back from its recorded NodePool (and NodeClass) inputs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._shared.nodepool_detect import startup_taints_line, summarise_nodepool_taints
from . import BACKEND
from .feasibility import feasibility_summary
from .limits import BUILT_IN_NODE_CLASS

#: What the plan says serves the pool's GPUs (EKS user guide automode/auto-accelerated.adoc).
DEVICE_PLUGIN = "built into the Auto Mode node image (NVIDIA driver and device plugin; no DaemonSet to install)"


def summarise(pool: Any, entry: dict[str, Any], index: Mapping[tuple[str, str], Any],
              by_type: Mapping[str, list[Any]], outputs: Mapping[str, Any]) -> None:
    """Fill the plan entry from the recorded NodePool/NodeClass CustomResource inputs; the NodePool's taint lists by
    :func:`~gpu_node_pool.backends._shared.nodepool_detect.summarise_nodepool_taints`, as for every NodePool pool.

    Raises:
        TaintError: a taint list the API server refuses (the problem names it), which the component never renders.
    """
    from . import read

    nodepool = index.get((BACKEND.child_type("nodepool"), BACKEND.child_name("nodepool", pool.name)))
    entry["devicePlugin"] = DEVICE_PLUGIN
    entry["candidateTypes"] = feasibility_summary(pool)
    if nodepool is None:
        return
    summarise_nodepool_taints(entry, nodepool.inputs)
    entry["labels"] = dict(sorted(read.read_labels(nodepool.inputs).items()))
    entry["requirements"] = read.read_requirements(nodepool.inputs)
    entry["limits"] = read.read_limits(nodepool.inputs)
    entry["disruption"] = (nodepool.inputs.get("spec") or {}).get("disruption", {})
    ref = read.read_node_class_ref(nodepool.inputs)
    created = index.get((BACKEND.child_type("nodeclass"), BACKEND.child_name("nodeclass", pool.name)))
    entry["nodeClass"] = {
        "group": ref.get("group"),
        "kind": ref.get("kind"),
        "name": ref.get("name"),
        "created": created is not None,
        "builtIn": created is None and ref.get("name") == BUILT_IN_NODE_CLASS,
    }


def report(entry: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The pool's lines in the text plan: ``(before the taints, after the labels)``."""
    body: list[str] = startup_taints_line(entry)
    for i, req in enumerate(entry.get("requirements", [])):
        values = f" [{', '.join(req['values'])}]" if req.get("values") else ""
        body.append(f"  {'requirements' if i == 0 else '':<15} {req['key']} {req['operator']}{values}")
    if "nodeClass" in entry:
        nc = entry["nodeClass"]
        how = ("created by this stack" if nc["created"] else
               "built in, created by EKS with the built-in node pools" if nc["builtIn"] else "existing, not managed by this stack")
        body.append(f"  node class      {nc['group']} {nc['kind']} {nc['name']} ({how})")
    if entry.get("limits"):
        body.append("  limits          " + ", ".join(f"{k}={v}" for k, v in entry["limits"].items()))
    if entry.get("disruption"):
        d = entry["disruption"]
        body.append(f"  disruption      {d.get('consolidationPolicy')} after {d.get('consolidateAfter')}")
    body.append(f"  candidate types {entry.get('candidateTypes', '(not read)')}")
    return [], body
