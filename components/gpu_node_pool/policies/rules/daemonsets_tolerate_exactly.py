"""Policy ``daemonsets-tolerate-exactly``: a DaemonSet outside the allowed namespaces tolerates the GPU pools' taints
by key, not with a catch-all toleration (advisory).

``gpu-toleration-allowlist`` judges workloads and leaves node agents (DaemonSets) alone, because a node agent that
tolerates the taints of the pools it serves is doing what ``daemonsets-tolerate-gpu-taints`` and
``gpu-agents-cover-gpu-pools`` ask. A catch-all toleration (``operator: Exists`` with no key) does more: it also
tolerates every other taint, including ``NoExecute`` taints that drain a node (``node.kubernetes.io/unreachable``,
``not-ready``) and the taints that keep pods off cordoned or special nodes (Kubernetes docs, "Taints and
Tolerations": "An empty key with operator Exists matches all keys, values and effects which means this will
tolerate everything", https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/). That is a
choice for a cluster's own system namespaces, so outside them it is advised against, not refused.
"""

from __future__ import annotations

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    StackValidationArgs,
    StackValidationPolicy,
)

from ...k8s.taints import TaintEffect
from ...sdk.props import Undecided, UnknownValueError
from ...text.listing import listed
from ..gpu_agents import installed_agent_namespaces
from ..stack import stack_index
from ..workloads import read_tolerations, tolerations_refused_text
from ._shared import CONFIG_DEFAULTS, NAMESPACE_LIST, REFUSED_FIX, _config, _resource, _stack_gpu_taints

NAME = "daemonsets-tolerate-exactly"


def validate_daemonsets_tolerate_exactly(args: StackValidationArgs, report: ReportViolation) -> None:
    """Each DaemonSet outside ``allowedNamespaces`` (and the product's agent namespaces) with a catch-all
    toleration is reported once, naming the pool taints to tolerate instead."""
    config = _config(args, NAME)
    index = stack_index(args)
    allowed = set(config.get("allowedNamespaces") or []) | installed_agent_namespaces(index)
    undecided = Undecided()
    taints = None
    for res, workload, read_error in index.workloads():
        try:
            if read_error is not None and res.resource_type.endswith(":DaemonSet"):
                raise read_error
            if workload is None or workload.kind != "DaemonSet" or workload.namespace in allowed:
                continue
            tolerations, refused = read_tolerations(workload.pod_spec)
        except UnknownValueError as err:
            undecided.add(_resource(res), err)
            continue
        catch_all = [t for t in tolerations if t.is_catch_all]
        if not catch_all:
            continue
        if refused:  # the API server creates no such object: the finding would not be true
            undecided.not_judged(workload.display, f"not judged: {tolerations_refused_text(workload.pod_spec, refused)}", REFUSED_FIX)
            continue
        taints = taints if taints is not None else _stack_gpu_taints(args, {"extraTaints": []}, undecided)
        instead = sorted({f"{{key: {t.key}, operator: Exists, effect: {t.effect.value}}}" for t in taints})
        what = (f"every taint with effect {catch_all[0].effect.value}" if catch_all[0].effect is not None else
                f"every taint (also the {TaintEffect.NO_EXECUTE.value} eviction taints of unreachable or not-ready nodes)")
        report(
            f"{workload.display} carries the catch-all toleration {catch_all[0]}, which tolerates {what}, in namespace "
            f"{workload.namespace!r} outside allowedNamespaces [{listed(sorted(allowed))}]. Tolerate the GPU pools' taints "
            f"exactly instead: {', '.join(instead) or 'one Exists toleration per pool taint key and effect'}.",
            res.urn,
        )
    undecided.raise_if_any()


POLICY = StackValidationPolicy(
    name=NAME,
    description="DaemonSets outside the allowed namespaces tolerate the GPU pools' taints by key, not with a "
    "catch-all toleration (operator Exists, no key).",
    validate=validate_daemonsets_tolerate_exactly,
    enforcement_level=EnforcementLevel.ADVISORY,
    config_schema=PolicyConfigSchema(
        properties={
            "allowedNamespaces": {
                **NAMESPACE_LIST,
                "description": "Namespaces whose DaemonSets may tolerate every taint (the cluster's system namespaces).",
                "default": CONFIG_DEFAULTS[NAME]["allowedNamespaces"],
            },
        }
    ),
    remediation_steps=(
        "Replace the catch-all toleration with one Exists toleration per GPU pool taint key and effect (what the "
        "product derives for its own agents); gpu-toleration-allowlist does not judge DaemonSets, so a node agent "
        "that tolerates the pool taints exactly passes both rules."
    ),
)
