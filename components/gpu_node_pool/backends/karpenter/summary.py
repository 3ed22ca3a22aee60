"""The karpenter pool in the plan: read back from its recorded NodePool (and EC2NodeClass) inputs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._shared.nodepool_detect import startup_taints_line, summarise_nodepool_taints
from . import BACKEND


def summarise(pool: Any, entry: dict[str, Any], index: Mapping[tuple[str, str], Any],
              by_type: Mapping[str, list[Any]], outputs: Mapping[str, Any]) -> None:
    """Read a karpenter pool back from its recorded NodePool (and EC2NodeClass) CustomResource inputs; its taint lists
    by :func:`~gpu_node_pool.backends._shared.nodepool_detect.summarise_nodepool_taints`, as for every NodePool pool.

    Raises:
        TaintError: a taint list the API server refuses (the problem names it), which the component never renders.
    """
    from . import read as karpenter

    nodepool = index.get((BACKEND.child_type("nodepool"), BACKEND.child_name("nodepool", pool.name)))
    if nodepool is None:
        return
    summarise_nodepool_taints(entry, nodepool.inputs)
    if pool.node_class is not None and pool.node_class.user_data is not None:  # merged into the NodePool's taints/labels
        entry["fromUserData"] = {"taints": [str(t) for t in pool.user_data_taints],
                                 "labels": dict(pool.user_data_labels)}
    entry["labels"] = dict(sorted(karpenter.read_nodepool_labels(nodepool.inputs).items()))
    entry["requirements"] = karpenter.read_nodepool_requirements(nodepool.inputs)
    entry["limits"] = karpenter.read_nodepool_limits(nodepool.inputs)
    entry["disruption"] = (nodepool.inputs.get("spec") or {}).get("disruption", {})
    from .feasibility import candidates_summary  # what Karpenter could launch, from the recorded NodePool

    entry["candidateTypes"] = candidates_summary(entry["requirements"], entry["limits"])
    ref = karpenter.read_nodepool_node_class_ref(nodepool.inputs)
    node_class = index.get((BACKEND.child_type("ec2nodeclass"), BACKEND.child_name("ec2nodeclass", pool.name)))
    entry["nodeClass"] = {
        "kind": ref.get("kind"),
        "name": ref.get("name"),
        "created": node_class is not None,
        "amiAlias": karpenter.read_ec2nodeclass_ami_alias(node_class.inputs) if node_class is not None else None,
    }
    _overlay_summary(pool, entry, nodepool, by_type)
    if not pool.uses_nvidia_device_plugin:
        entry["devicePlugin"] = "ships its own (Bottlerocket NVIDIA AMI includes NVIDIA's device plugin)"


def _overlay_summary(pool: Any, entry: dict[str, Any], nodepool: Any, by_type: Mapping[str, list[Any]]) -> None:
    """``nodeOverlays`` and ``karpenterCapacity`` (:func:`.node_overlay.karpenter_view`): every recorded NodeOverlay
    that selects the NodePool, the pool's and hand-written ones, and Karpenter's assumed capacity against what the
    node advertises. Only for a pool that shares or partitions GPUs, or that some NodeOverlay selects. The
    overlays in recording order, by API version in the order each was first recorded."""
    from .node_overlay import karpenter_view

    overlays = [(r.name, dict(r.inputs)) for type_, group in by_type.items()
                if type_.startswith("kubernetes:karpenter.sh/") and type_.endswith(":NodeOverlay") for r in group]
    if not overlays and pool.gpu_sharing is None and pool.mig is None:
        return
    view = karpenter_view(pool, dict(nodepool.inputs), overlays)
    if view["overlays"]:
        entry["nodeOverlays"] = view["overlays"]
    entry["karpenterCapacity"] = {k: view[k] for k in ("groups", "agrees", "differs", "notJudged")}


def report(entry: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The pool's lines in the text plan: ``(before the taints, after the labels)``."""
    body: list[str] = startup_taints_line(entry)
    merged = entry.get("fromUserData") or {}
    if merged.get("taints") or merged.get("labels"):
        shown = ", ".join([*merged.get("taints", []), *(f"{k}={v}" for k, v in merged.get("labels", {}).items())])
        body.append(f"  from userData   {shown}  (registered by nodeClass.userData; merged into the NodePool)")
    for i, req in enumerate(entry.get("requirements", [])):
        values = f" [{', '.join(req['values'])}]" if req.get("values") else ""
        min_values = f" minValues {req['minValues']}" if "minValues" in req else ""
        body.append(f"  {'requirements' if i == 0 else '':<15} {req['key']} {req['operator']}{values}{min_values}")
    if "nodeClass" in entry:
        nc = entry["nodeClass"]
        how = f"created, ami alias {nc['amiAlias']}" if nc["created"] else "existing, not managed by this stack"
        body.append(f"  node class      {nc['kind']} {nc['name']} ({how})")
    if entry.get("limits"):
        body.append("  limits          " + ", ".join(f"{k}={v}" for k, v in entry["limits"].items()))
    if entry.get("candidateTypes"):
        body.append(f"  candidate types {entry['candidateTypes']}")
    for overlay in entry.get("nodeOverlays", []):
        capacity = ", ".join(f"{k}: {v}" for k, v in overlay["capacity"].items())
        who = "rendered" if overlay["created"] else "not this pool's"
        types = ", ".join(overlay["instanceTypes"] or []) or "requirements as written"
        body.append(f"  node overlay    {overlay['name']} ({who}): {capacity} on {types}")
    for line in (entry.get("karpenterCapacity") or {}).get("differs", []):
        body.append(f"  overlay DIFFERS {line}")
    if entry.get("disruption"):
        d = entry["disruption"]
        budgets = "; ".join(
            "nodes " + b.get("nodes", "") + (f" from '{b['schedule']}' for {b['duration']}" if "schedule" in b else "")
            + (f" ({', '.join(b['reasons'])})" if b.get("reasons") else "")
            for b in d.get("budgets", [])
        )
        body.append(
            f"  disruption      {d.get('consolidationPolicy')} after {d.get('consolidateAfter')}"
            + (f"; budgets: {budgets}" if budgets else "")
        )
    return [], body
