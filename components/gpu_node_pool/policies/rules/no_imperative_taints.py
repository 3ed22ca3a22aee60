"""Policy ``no-imperative-taints``: node taints are declared in the pool definition, never set with ``kubectl taint``, a Node patch or a boot script (mandatory)."""

from __future__ import annotations

from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
)

from ...k8s.images import runs_kubectl
from ...k8s.taints import Taint, TaintError
from ...sdk.props import UnknownValueError, dig, items, plain, text
from ..imperative import imperative_taint_commands, user_data_texts
from ..pools import (
    EC2_INSTANCE,
    LAUNCH_TEMPLATE,
)
from ..workloads import (
    WORKLOAD_POD_SPEC_PATHS,
    containers,
    kind_of,
    workload_of,
)
from ._shared import _DECLARE

_NODE_TYPES = ("kubernetes:core/v1:Node", "kubernetes:core/v1:NodePatch")
_NODE_LIST = "kubernetes:core/v1:NodeList"
_COMMANDS = ("command:local:Command", "command:remote:Command")
_GCE_STARTUP = (
    "gcp:compute/instanceTemplate:InstanceTemplate",
    "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
    "gcp:compute/instance:Instance",
)


def judges(resource_type: str) -> bool:
    """Whether :func:`validate_no_imperative_taints` reads a resource of this type (it returns at once for
    any other): Nodes, commands, launch templates and instances (user data), GCE templates, pod templates."""
    return (
        resource_type in _NODE_TYPES
        or resource_type == _NODE_LIST
        or resource_type in _COMMANDS
        or resource_type in (LAUNCH_TEMPLATE, EC2_INSTANCE)
        or resource_type in _GCE_STARTUP
        or kind_of(resource_type) in WORKLOAD_POD_SPEC_PATHS
    )


def _may_taint(container: Any) -> bool:
    """False only when no word of the container's ``command``/``args`` contains "taint", which every
    imperative taint command does: a quick test on a plain copy before the exact reading."""
    try:
        return "taint" in repr((plain(dig(container, "command")), plain(dig(container, "args"))))
    except UnknownValueError:
        return True  # the exact reading decides, and meets the same unknown


def _node_taints(spec_taints: Any) -> list[str]:
    shown = []
    for item in items(spec_taints):
        try:
            shown.append(str(Taint.from_k8s(plain(item))))
        except TaintError:
            shown.append(repr(plain(item)))
    return shown


def validate_no_imperative_taints(args: ResourceValidationArgs, report: ReportViolation) -> None:
    """Flag node taints set outside the pool definition (Node/NodePatch, commands, user data, containers)."""
    t, props = args.resource_type, args.props
    found: list[str] = []
    if t in _NODE_TYPES:
        taints = _node_taints(dig(props, "spec", "taints"))
        if taints:
            found.append(f"spec.taints = [{', '.join(taints)}] on Node {text(dig(props, 'metadata', 'name')) or args.name!r}")
    elif t == _NODE_LIST:
        for i, node in enumerate(items(dig(props, "items"))):
            taints = _node_taints(dig(node, "spec", "taints"))
            if taints:
                found.append(f"items[{i}].spec.taints = [{', '.join(taints)}]")
    elif t in _COMMANDS:
        for field in ("create", "update", "delete"):
            for line in imperative_taint_commands(text(dig(props, field)) or ""):
                found.append(f"{field}: {line}")
    elif t in (LAUNCH_TEMPLATE, EC2_INSTANCE):
        for field in ("userData", "userDataBase64"):
            for body in user_data_texts(dig(props, field)):
                found += [f"{field}: {line}" for line in imperative_taint_commands(body)]
    elif t in _GCE_STARTUP:
        sources = {"metadataStartupScript": dig(props, "metadataStartupScript")}
        for key in ("startup-script", "user-data"):
            sources[f"metadata.{key}"] = dig(props, "metadata", key)
        for field, value in sources.items():
            for body in user_data_texts(value):
                found += [f"{field}: {line}" for line in imperative_taint_commands(body)]
    else:
        workload = workload_of(t, props, args.name)
        if workload is not None:
            for path, container in containers(workload.pod_spec):
                if not _may_taint(container):
                    continue
                command = [str(w) for w in items(dig(container, "command"))]
                if not command and runs_kubectl(plain(dig(container, "image"))):  # the image's entrypoint
                    command = ["kubectl"]
                words = command + [str(w) for w in items(dig(container, "args"))]
                for line in imperative_taint_commands(" ".join(words)):
                    found.append(f"{path} ({text(dig(container, 'name')) or '?'}) runs: {line}")
    found = list(dict.fromkeys(found))
    if found:
        report(
            f"{t} {args.name!r} changes node taints imperatively ({'; '.join(found)}). Nodes that an autoscaler "
            f"creates later come up without these taints. {_DECLARE}",
            None,
        )


POLICY = ResourceValidationPolicy(
    name="no-imperative-taints",
    description="Node taints are declared in the pool definition, never set with kubectl taint, Node patches or boot scripts.",
    validate=validate_no_imperative_taints,
    enforcement_level=EnforcementLevel.MANDATORY,
    remediation_steps=(
        "Remove the kubectl taint / Node patch / user-data step and declare the taint on the pool: GpuNodePool "
        "`taints` (EKS NodeGroup.taints, GKE node_config.taints, Karpenter NodePool spec.template.spec.taints, "
        "self-managed kubelet registerWithTaints)."
    ),
)
