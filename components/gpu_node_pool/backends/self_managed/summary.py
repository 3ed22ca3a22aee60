"""The self-managed pool in the plan: read back from its launch template user data and Auto Scaling
group tags, or from the exported bootstrap (``provider: none``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...k8s.wellknown import UNKNOWN
from . import BACKEND
from .read import registration_entry


def summarise(pool: Any, entry: dict[str, Any], index: Mapping[tuple[str, str], Any],
              by_type: Mapping[str, list[Any]], outputs: Mapping[str, Any]) -> None:
    """Read a self-managed pool back from its recorded LaunchTemplate user data and Auto Scaling group tags."""
    from .._shared import cluster_autoscaler as eks
    from .._shared import user_data as kubelet
    from . import render

    if f"{pool.name}.bootstrap" in outputs:  # provider none: rendered only, read from the exported bootstrap
        _summarise_bootstrap_output(pool, entry, outputs[f"{pool.name}.bootstrap"])
    template = index.get((BACKEND.child_type("launch_template"), BACKEND.child_name("launch_template", pool.name)))
    if template is None:
        return
    user_data = template.inputs.get("userData")
    fmt = kubelet.detect_format(user_data) or pool.format
    registration_entry(entry, fmt, {"userData": user_data}, "aws.ec2.LaunchTemplate userData (base64)")
    group = index.get((BACKEND.child_type("asg"), BACKEND.child_name("asg", pool.name)))
    image = template.inputs.get("imageId", UNKNOWN)
    entry["amiType"] = image if pool.ami_id else f"{image} ({pool.format} NVIDIA {pool.arch}, resolved from SSM)"
    entry["imds"] = template.inputs.get("metadataOptions", {})
    if group is None:
        return
    mixed = (group.inputs.get("mixedInstancesPolicy") or {}).get("launchTemplate") or {}
    entry["instanceTypes"] = (
        [o.get("instanceType") for o in mixed.get("overrides", [])] if mixed else [template.inputs.get("instanceType")]
    )
    entry["scaling"] = {"minSize": group.inputs.get("minSize"), "maxSize": group.inputs.get("maxSize")}
    tags = {
        t["key"]: t["value"]
        for t in group.inputs.get("tags") or []
        if t.get("key", "").startswith(render.CA_CLUSTER_TAG_PREFIX)
    }
    entry["scaleFromZeroTags"] = dict(sorted(tags.items()))
    ca_taints, ca_labels = eks.read_ca_node_template_tags(tags)
    entry["scaleFromZeroMatches"] = (
        sorted(map(str, ca_taints)) == sorted(entry["taints"]) and ca_labels == entry["labels"]
    )
    entry["scaleFromZeroSubject"] = "the kubelet registration's"


def _summarise_bootstrap_output(pool: Any, entry: dict[str, Any], files: Any) -> None:
    """Read a ``provider: none`` self-managed pool back from its exported bootstrap files."""
    if not isinstance(files, Mapping):
        return
    fmt = getattr(pool, "format", None) or "kubelet"
    registration_entry(entry, fmt, files, f"stack output {pool.name}.bootstrap ({', '.join(files)})")


def report(entry: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The pool's lines in the text plan: ``(before the taints, after the labels)``."""
    from .._shared import cluster_autoscaler as ca

    head, body = [], []
    if "instanceTypes" in entry:
        sc = entry.get("scaling", {})
        head.append(
            f"  instances       {', '.join(entry['instanceTypes'])}  ami {entry.get('amiType')}  "
            f"size {sc.get('minSize')}..{sc.get('maxSize')}"
        )
    if entry.get("registration"):
        reg = entry["registration"]
        body.append(f"  registration    {reg['format']}: taints in {reg['taintsField']}")
        body.append(f"                  read back from {reg['source']}")
        body += [f"    {line}" for line in reg["snippet"]]
    if entry.get("imds"):
        body.append("  instance metadata " + ", ".join(f"{k}={v}" for k, v in entry["imds"].items()))
    return head, body + ca.report_lines(entry)
