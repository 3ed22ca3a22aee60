"""The Gatekeeper engine: a ``ConstraintTemplate`` (``templates.gatekeeper.sh/v1``, Rego v1 from :mod:`.rego`)
and its Constraint (``constraints.gatekeeper.sh/v1beta1``) per rule, parameters rendered from the pools
(pure: no Pulumi, no I/O).

``enforcementAction`` from ``admission.action``: ``audit`` -> ``dryrun`` (Gatekeeper's audit records the
violations in the Constraint's status, nothing is refused), ``warn`` -> ``warn``, ``deny`` -> ``deny``;
the warn-only rules never get ``deny`` (https://open-policy-agent.github.io/gatekeeper/website/docs/violations/).
The GPU toleration allow-list's Constraint also lists the allowed namespaces in ``match.excludedNamespaces``.
Gatekeeper's audit re-judges objects from its cache without a requester or an old object, so the Node rule
judges UPDATE requests at admission only.
"""

from __future__ import annotations

from typing import Any

from ..k8s.effective import is_extended_resource_name
from ..k8s.labels import DEFAULT_GPU_LABEL
from ..k8s.taints import (
    DAEMONSET_CONTROLLER_TOLERATIONS,
    HOST_NETWORK_DAEMON_TOLERATIONS,
    Taint,
    TaintEffect,
    decimal_integer,
    tolerates,
)
from ..k8s.wellknown import POOL_LABEL_KEY
from . import rego
from .model import AdmissionModel, PoolFacts
from .objects import MANAGED_BY, AdmissionObject
from .vap_daemonsets import DAEMONSET_POLICY
from .vap_nodes import NODE_POLICY
from .vap_pods import DAEMONSET_CONTROLLER_USERS, REACH_POLICY, TOLERATION_POLICY

__all__ = ["TEMPLATE_API_VERSION", "CONSTRAINT_API_VERSION", "ENFORCEMENT", "KINDS", "gatekeeper_objects"]

TEMPLATE_API_VERSION = "templates.gatekeeper.sh/v1"
CONSTRAINT_API_VERSION = "constraints.gatekeeper.sh/v1beta1"
TARGET = "admission.k8s.gatekeeper.sh"
#: ``admission.action`` -> ``enforcementAction`` (refusing rules, then warn-only rules).
ENFORCEMENT = {"audit": "dryrun", "warn": "warn", "deny": "deny"}
WARN_ONLY_ENFORCEMENT = {"audit": "dryrun", "warn": "warn", "deny": "warn"}

#: Rule (policy name) -> (Constraint kind, its Rego, the kinds it matches as (apiGroup, kind)).
_PODS = [("", "Pod"), ("apps", "Deployment"), ("apps", "StatefulSet"), ("apps", "ReplicaSet"), ("apps", "DaemonSet"),
         ("batch", "Job"), ("batch", "CronJob")]
KINDS: dict[str, tuple[str, str, list[tuple[str, str]]]] = {
    TOLERATION_POLICY: ("GpuNodePoolsTolerationAllowlist", rego.TOLERATION_REGO, _PODS),
    NODE_POLICY: ("GpuNodePoolsNodeTaints", rego.NODE_REGO, [("", "Node")]),
    DAEMONSET_POLICY: ("GpuNodePoolsDaemonSets", rego.DAEMONSET_REGO, [("apps", "DaemonSet")]),
    REACH_POLICY: ("GpuNodePoolsReachTheirPool", rego.REACH_REGO, [g for g in _PODS if g[1] != "DaemonSet"]),
}
_WARN_ONLY = {DAEMONSET_POLICY, REACH_POLICY}

_STR = {"type": "string"}
_STRS = {"type": "array", "items": _STR}
_FREE = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
_TAINT = {"type": "object", "properties": {
    "key": _STR, "value": _STR, "effect": _STR, "text": _STR, "whose": _STR,
    "evicts": {"type": "boolean"}, "number": {"type": "integer"}, "extendedResource": {"type": "boolean"}, "hostNetwork": {"type": "boolean"}}}
_POOL = {"type": "object", "properties": {
    "name": _STR, "text": _STR, "fix": _STR, "labels": {"type": "object", "additionalProperties": _STR},
    "taints": {"type": "array", "items": _TAINT}}}
_SCHEMA = {"type": "object", "properties": {
    "allowedNamespaces": _STRS, "daemonSetControllerUsers": _STRS, "users": _STRS, "groups": _STRS,
    "declaredKeys": _STRS, "extendedResourceToleration": {"type": "boolean"}, "fix": _STR, "selectMessage": _STR,
    "tolerateMessage": _STR, "notJudgedMessage": _STR, "taints": {"type": "array", "items": _TAINT},
    "pools": {"type": "array", "items": _POOL}}}


def _taint(taint: Taint, *, daemon: bool = False) -> dict[str, Any]:
    number = decimal_integer(taint.value)
    return {"key": taint.key, "value": taint.value or "", "effect": taint.effect.value, "text": str(taint),
            "evicts": taint.effect.evicts, **({} if number is None else {"number": number}),
            "extendedResource": taint.effect is TaintEffect.NO_SCHEDULE and is_extended_resource_name(taint.key),
            "hostNetwork": daemon and any(tolerates(t, taint) for t in HOST_NETWORK_DAEMON_TOLERATIONS)}


def _pool(pool: PoolFacts, *, daemon: bool) -> dict[str, Any]:
    taints = [t for t in pool.repelling if not (daemon and any(tolerates(x, t) for x in DAEMONSET_CONTROLLER_TOLERATIONS))]
    return {"name": pool.name, "labels": dict(pool.labels), "text": ", ".join(map(str, pool.repelling)),
            "taints": [_taint(t, daemon=daemon) for t in taints]}


def _fix(pool: str) -> str:
    return ("Nodes that an autoscaler creates later come up with the declared taints only; change taints in the "
            f"pool definition (gpu-node-pools:pools, pool {pool}, taints), or exempt the requester in "
            "gpu-node-pools:admission.exempt.")


def parameters(rule: str, model: AdmissionModel) -> dict[str, Any]:
    """The Constraint's ``spec.parameters`` of ``rule``, from the pools and settings."""
    if rule == TOLERATION_POLICY:
        return {"allowedNamespaces": list(model.allowed_namespaces),
                "daemonSetControllerUsers": list(DAEMONSET_CONTROLLER_USERS),
                "taints": [{**_taint(t), "whose": f"pool {', '.join(p)}" if p else "the pack's extraTaints"}
                           for t, p in model.taint_pools()]}
    if rule == NODE_POLICY:
        return {"users": list(model.users), "groups": list(model.groups), "declaredKeys": model.declared_keys(),
                "pools": [{"name": p.name, "text": ", ".join(map(str, p.taints)), "fix": _fix(p.name),
                           "labels": dict(p.labels), "taints": [_taint(t) for t in p.taints]}
                          for p in model.pools if p.taints]}
    if rule == DAEMONSET_POLICY:
        return {"extendedResourceToleration": model.extended_resource_toleration,
                "fix": "Tolerate each taint (operator Exists with the taint's key and effect) or keep the DaemonSet "
                       f"off GPU nodes with a required node affinity ({DEFAULT_GPU_LABEL[0]} NotIn [{DEFAULT_GPU_LABEL[1]}]).",
                "pools": [_pool(p, daemon=True) for p in model.pools if p.repelling]}
    names = ", ".join(p.name for p in model.pools)
    return {"extendedResourceToleration": model.extended_resource_toleration,
            "pools": [_pool(p, daemon=False) for p in model.pools],
            "selectMessage": f" requests GPUs but selects no GPU pool of this stack ({names}): select one (nodeSelector "
                             f"{POOL_LABEL_KEY}: <pool>) and tolerate its taints, so the pod lands on the pool meant for it",
            "tolerateMessage": " requests GPUs and selects GPU pools but tolerates the repelling taints of none of them, "
                               "so its pods stay Pending. Add the pool's tolerations (operator Exists with the taint's "
                               "key and effect).",
            "notJudgedMessage": " requests GPUs; whether it reaches a GPU pool is not judged at admission: its node "
                                "selection uses matchFields, Gt/Lt or label keys the pools do not declare (gpupool plan "
                                "and audit judge it)"}


def template(rule: str) -> dict[str, Any]:
    """The ConstraintTemplate of ``rule``: its Constraint kind, parameter schema and Rego v1 source."""
    kind, source, _ = KINDS[rule]
    return {
        "apiVersion": TEMPLATE_API_VERSION,
        "kind": "ConstraintTemplate",
        "metadata": {"name": kind.lower(), "labels": dict(MANAGED_BY)},
        "spec": {
            "crd": {"spec": {"names": {"kind": kind}, "validation": {"openAPIV3Schema": _SCHEMA}}},
            "targets": [{"target": TARGET, "code": [{"engine": "Rego", "source": {"version": "v1", "rego": source}}]}],
        },
    }


def constraint(rule: str, model: AdmissionModel) -> dict[str, Any]:
    """The Constraint of ``rule``: ``enforcementAction``, ``match`` and ``parameters``."""
    kind, _, kinds = KINDS[rule]
    groups: dict[str, list[str]] = {}
    for group, k in kinds:
        groups.setdefault(group, []).append(k)
    match: dict[str, Any] = {"kinds": [{"apiGroups": [g], "kinds": ks} for g, ks in groups.items()]}
    if rule == TOLERATION_POLICY:
        match["excludedNamespaces"] = list(model.allowed_namespaces)
    action = (WARN_ONLY_ENFORCEMENT if rule in _WARN_ONLY else ENFORCEMENT)[model.action]
    return {
        "apiVersion": CONSTRAINT_API_VERSION,
        "kind": kind,
        "metadata": {"name": rule, "labels": dict(MANAGED_BY)},
        "spec": {"enforcementAction": action, "match": match, "parameters": parameters(rule, model)},
    }


def gatekeeper_objects(model: AdmissionModel) -> list[AdmissionObject]:
    """Every ConstraintTemplate and its Constraint, template first, in rule order."""
    out: list[AdmissionObject] = []
    for rule in KINDS:
        out += [AdmissionObject(rule, template(rule)), AdmissionObject(rule, constraint(rule, model))]
    return out
