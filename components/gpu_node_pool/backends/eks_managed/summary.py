"""The eks-managed pool in the plan: read back from its recorded NodeGroup and Auto Scaling group tags."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import BACKEND


def summarise(pool: Any, entry: dict[str, Any], index: Mapping[tuple[str, str], Any],
              by_type: Mapping[str, list[Any]], outputs: Mapping[str, Any]) -> None:
    """Read an eks-managed pool back from its recorded NodeGroup and ASG Tag inputs."""
    from .._shared import cluster_autoscaler as ca
    from . import read

    node_group = index.get((BACKEND.child_type("node_group"), BACKEND.child_name("node_group", pool.name)))
    if node_group is None:
        return
    taints = read.read_node_group_taints(node_group.inputs)
    entry["taints"] = [str(t) for t in taints]
    entry["providerTaints"] = node_group.inputs.get("taints", [])
    entry["providerField"] = "aws.eks.NodeGroup.taints"
    entry["labels"] = dict(sorted((node_group.inputs.get("labels") or {}).items()))
    entry["instanceTypes"] = node_group.inputs.get("instanceTypes", [])
    entry["amiType"] = node_group.inputs.get("amiType")
    entry["scaling"] = node_group.inputs.get("scalingConfig", {})
    passed = pass_through_entry(pool)
    if passed:
        entry["passThrough"] = passed
    tag_type, prefix = BACKEND.child_type("ca_tag"), BACKEND.child_name("ca_tag", pool.name)  # once, not per resource
    # the pool's own tags: children of its component, like its node group (pool "a" and pool "a-ca-x" share a prefix)
    tags = {r.inputs["tag"]["key"]: r.inputs["tag"]["value"] for r in _children(by_type, tag_type, node_group.parent)
            if r.name.startswith(prefix)}
    entry["scaleFromZeroTags"] = dict(sorted(tags.items()))
    if tags:
        ca_taints, ca_labels = ca.read_ca_node_template_tags(tags)
        entry["scaleFromZeroMatches"] = (
            sorted(map(str, ca_taints)) == sorted(map(str, taints)) and ca_labels == entry["labels"]
        )


def _children(by_type: Mapping[str, list[Any]], type_token: str, parent: str) -> list[Any]:
    """The records of ``type_token`` under ``parent``, in recording order: from the plan's grouping when
    ``by_type`` offers one (``children``), else by reading them all."""
    children = getattr(by_type, "children", None)
    if children is not None:
        return children(type_token, parent)
    return [r for r in by_type.get(type_token, ()) if r.parent == parent]


def pass_through_entry(pool: Any) -> dict[str, list[dict[str, str]]]:
    """Which of the node group's taints and labels came from a pass-through field (:mod:`.pass_through`):
    ``{"taints": [{"taint": "k=v:Effect", "from": "kubelet.flags[0]"}], "labels": [{"label": "k=v", "from": ...}]}``,
    each list left out when empty; ``{}`` when none did (or the pool has no pass-through fields)."""
    from . import pass_through

    if getattr(pool, "kubelet", None) is None and getattr(pool, "bottlerocket", None) is None:
        return {}
    out: dict[str, list[dict[str, str]]] = {}
    taints = [{"taint": str(p.taint), "from": p.path} for p in pass_through.passed_taints(pool)]
    labels = [{"label": f"{p.key}={p.value}", "from": p.path} for p in pass_through.passed_labels(pool)]
    if taints:
        out["taints"] = taints
    if labels:
        out["labels"] = labels
    return out


def report(entry: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The pool's lines in the text plan: ``(before the taints, after the labels)``."""
    from .._shared import cluster_autoscaler as ca

    sc = entry.get("scaling", {})
    head = []
    if "instanceTypes" in entry:
        head.append(
            f"  instances       {', '.join(entry['instanceTypes'])}  ami {entry.get('amiType')}  "
            f"size {sc.get('minSize')}..{sc.get('maxSize')}"
        )
    passed = entry.get("passThrough") or {}
    tail = []
    if passed:
        tail.append("  pass-through    (declared on the node group with the pool's own; not written again in user data)")
        tail += [f"    taint {t['taint']}  from {t['from']}" for t in passed.get("taints", [])]
        tail += [f"    label {t['label']}  from {t['from']}" for t in passed.get("labels", [])]
    return head, tail + ca.report_lines(entry)
