"""ValidatingAdmissionPolicy objects rendered from the declared pools (pure: no Pulumi, no I/O).

Two rules of the policy pack, enforced again by the API server for what never passes through
``pulumi preview`` (Helm, Argo CD, operators, ``kubectl``):

* ``gpu-node-pools-gpu-toleration-allowlist`` (preview rule ``gpu-toleration-allowlist``): a Pod,
  or the pod template of a Deployment, StatefulSet, ReplicaSet, DaemonSet, Job or CronJob, that
  requests no GPU resource (``nvidia.com/gpu``, ``nvidia.com/gpu.shared``, ``nvidia.com/mig-*``
  above zero in any container's limits or requests: :func:`gpu_node_pool.k8s.wellknown.is_gpu_resource`)
  but tolerates a GPU pool taint, or carries a catch-all toleration (``operator: Exists``, no key)
  whatever it requests, outside the allowed namespaces. One validation per GPU taint, so the
  message names the taint and its pools.
* ``gpu-node-pools-no-imperative-taints`` (preview rule ``no-imperative-taints``, at run time): an
  UPDATE of a Node labelled ``gpu-node-pools/pool=<a declared pool>`` that removes or changes one of
  that pool's declared taints (present on the old Node exactly as declared, missing from the new
  one with that key, value and effect) is refused unless the requester is the node's own kubelet
  (user ``system:node:<node name>``; the NodeRestriction plugin keeps a kubelet to its own Node) or
  exempt (``admission.exempt``). Taints with other keys are never judged; a declared taint whose
  value already differs on the old Node is not judged either (it was not as declared).

Toleration matching is Kubernetes' ``ToleratesTaint`` as :func:`gpu_node_pool.k8s.taints.tolerates`
words it, written out in CEL per taint (the taints are known when rendering, so no nested loop).

``validationActions`` from ``admission.action``: ``audit`` -> ``[Audit]``, ``warn`` -> ``[Warn, Audit]``,
``deny`` -> ``[Deny, Audit]``; ``failurePolicy: Fail`` (an expression error counts as a violation
under the binding's actions). CEL stays within the Kubernetes CEL environment: ``has``, ``exists``,
``all``, ``startsWith``, ``matches``, ``in`` over literal lists, one comprehension level.
Source: https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/ (GA in 1.30).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..config.defaults import DEFAULT_TAINT, GPU_TOLERATION_ALLOWED_NAMESPACES, PROJECT
from ..gpu_agents.installed import agent_namespaces
from ..k8s.taints import Taint, decimal_integer
from ..k8s.wellknown import (
    NVIDIA_GPU_RESOURCE,
    NVIDIA_MIG_RESOURCE_PREFIX,
    NVIDIA_SHARED_GPU_RESOURCE,
    POOL_LABEL_KEY,
)

if TYPE_CHECKING:
    from ..config.stack import StackConfig

__all__ = ["API_VERSION", "ACTIONS", "RULES", "AdmissionObject", "admission_objects", "render_stack"]

API_VERSION = "admissionregistration.k8s.io/v1"
#: ``admission.action`` -> the binding's ``validationActions``.
ACTIONS: dict[str, list[str]] = {"audit": ["Audit"], "warn": ["Warn", "Audit"], "deny": ["Deny", "Audit"]}
#: Policy name -> the preview rule it enforces again.
RULES = {
    f"{PROJECT}-gpu-toleration-allowlist": "gpu-toleration-allowlist",
    f"{PROJECT}-no-imperative-taints": "no-imperative-taints",
}
_TOLERATION, _NODE_TAINTS = RULES

#: Kinds whose pod template the toleration rule reads (group, version, resource, kind).
_WORKLOADS = (
    ("", "v1", "pods"),
    ("apps", "v1", "deployments"),
    ("apps", "v1", "statefulsets"),
    ("apps", "v1", "replicasets"),
    ("apps", "v1", "daemonsets"),
    ("batch", "v1", "jobs"),
    ("batch", "v1", "cronjobs"),
)
#: A zero (or negative) quantity in Kubernetes' quantity syntax: it requests nothing.
_NOT_ABOVE_ZERO = r"^(-.*|[+]?(0+[.]?0*|[.]0+)([eE][+-]?[0-9]+|[numkMGTPE]|[KMGTPE]i)?)$"


#: A canonical decimal integer of at most 19 digits (k8s.io/apimachinery content.IsDecimalInteger).
_DECIMAL_INTEGER = "^(0|-?[1-9][0-9]{0,18})$"


def _lit(value: str) -> str:
    """A CEL string literal (JSON's escapes are CEL's for these characters)."""
    return json.dumps(value)


def _list(values: Iterable[str]) -> str:
    return "[" + ", ".join(_lit(v) for v in values) + "]"


def _opt(var: str, field: str) -> str:
    """``var.field`` or ``""`` when unset."""
    return f"(has({var}.{field}) ? {var}.{field} : '')"


def tolerates_cel(var: str, taint: Taint) -> str:
    """CEL: toleration ``var`` tolerates ``taint`` (:func:`gpu_node_pool.k8s.taints.tolerates`).

    ``Gt``/``Lt`` tolerate only a taint whose value is a 64-bit decimal integer, compared as
    integers; the API server has checked a Gt/Lt toleration's value is one before validating
    admission runs, and the ``matches`` guard keeps ``int()`` from failing on anything else.
    """
    operator, value = _opt(var, "operator"), _opt(var, "value")
    by_value = f"(({operator} == '' || {operator} == 'Equal') && {value} == {_lit(taint.value or '')})"
    number = decimal_integer(taint.value)
    numeric = ""
    if number is not None:
        guard = f"{value}.matches({_lit(_DECIMAL_INTEGER)})"
        numeric = (f" || ({operator} == 'Gt' && {guard} && int({value}) < {number})"
                   f" || ({operator} == 'Lt' && {guard} && int({value}) > {number})")
    return (
        f"({_opt(var, 'effect')} == '' || {var}.effect == {_lit(taint.effect.value)}) && "
        f"({_opt(var, 'key')} == '' || {var}.key == {_lit(taint.key)}) && "
        f"({operator} == 'Exists' || {by_value}{numeric})"
    )


def _gpu_resource_cel(var: str) -> str:
    return (f"({var} == {_lit(NVIDIA_GPU_RESOURCE)} || {var} == {_lit(NVIDIA_SHARED_GPU_RESOURCE)} || "
            f"{var}.startsWith({_lit(NVIDIA_MIG_RESOURCE_PREFIX)}))")


def _requests_gpu_cel() -> str:
    def field(name: str) -> str:
        m = f"c.resources.{name}"
        return (f"(has({m}) && {m}.exists(r, {_gpu_resource_cel('r')} && "
                f"!string({m}[r]).matches({_lit(_NOT_ABOVE_ZERO)})))")

    return f"variables.containers.exists(c, has(c.resources) && ({field('limits')} || {field('requests')}))"


@dataclass(frozen=True)
class AdmissionObject:
    """One rendered object: ``rule`` (the policy name it belongs to) and the Kubernetes ``body``."""

    rule: str
    body: dict[str, Any]

    @property
    def kind(self) -> str:
        return self.body["kind"]

    @property
    def name(self) -> str:
        return self.body["metadata"]["name"]


#: Who creates a DaemonSet's Pods: the controller's own service account when kube-controller-manager
#: runs with ``--use-service-account-credentials`` (kubeadm and EKS do), else the controller manager's
#: identity (https://kubernetes.io/docs/reference/access-authn-authz/rbac/#controller-roles).
DAEMONSET_CONTROLLER_USERS = ("system:serviceaccount:kube-system:daemon-set-controller", "system:kube-controller-manager")


def _policy(name: str, rules: list[dict[str, Any]], *, match_conditions: list[dict[str, str]],
            variables: list[dict[str, str]], validations: list[dict[str, str]]) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/managed-by": PROJECT}},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {"resourceRules": rules},
            "matchConditions": match_conditions,
            "variables": variables,
            "validations": validations,
        },
    }


def _binding(policy: str, action: str) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": policy, "labels": {"app.kubernetes.io/managed-by": PROJECT}},
        "spec": {"policyName": policy, "validationActions": list(ACTIONS[action])},
    }


def toleration_policy(taint_pools: Sequence[tuple[Taint, Sequence[str]]], allowed: Sequence[str]) -> dict[str, Any]:
    """The ``gpu-toleration-allowlist`` policy.

    Args:
        taint_pools: each GPU taint with the pools that declare it (empty: the pack's ``extraTaints``).
        allowed: the namespaces exempt from the rule (``allowedNamespaces``).
    """
    rules = [{"apiGroups": [g], "apiVersions": [v], "operations": ["CREATE", "UPDATE"], "resources": [r]}
             for g, v, r in _WORKLOADS]
    spec = ("object.kind == 'Pod' ? object.spec : object.kind == 'CronJob' ? "
            "object.spec.jobTemplate.spec.template.spec : object.spec.template.spec")
    group = "(has(variables.podSpec.{0}) ? variables.podSpec.{0} : [])"
    variables = [
        {"name": "podSpec", "expression": spec},
        {"name": "containers", "expression": " + ".join(group.format(g) for g in ("initContainers", "containers", "ephemeralContainers"))},
        {"name": "tolerations", "expression": group.format("tolerations")},
        {"name": "requestsGpu", "expression": _requests_gpu_cel()},
        {"name": "workload", "expression": "object.kind + ' ' + request.namespace + '/' + "
                                           "(has(object.metadata.name) ? object.metadata.name : "
                                           "(has(object.metadata.generateName) ? object.metadata.generateName : ''))"},
    ]
    tail = (" + ', but namespace ' + request.namespace + "
            + _lit(f" is not allowed to tolerate GPU taints (allowedNamespaces: [{', '.join(sorted(allowed))}]). A "
                   "toleration only permits; remove it, or add the namespace to allowedNamespaces if it runs GPU "
                   "work or node agents."))
    catch_all = "(!has(t.key) || t.key == '') && has(t.operator) && t.operator == 'Exists'"
    validations = [{
        "expression": f"!variables.tolerations.exists(t, {catch_all})",
        "messageExpression": "variables.workload + "
                             + _lit(" carries a catch-all toleration (operator Exists, no key), which tolerates every "
                                    "GPU pool taint") + tail,
        "reason": "Forbidden",
    }]
    for taint, pools in taint_pools:
        whose = f"pool {', '.join(pools)}" if pools else "the pack's extraTaints"
        validations.append({
            "expression": f"variables.requestsGpu || !variables.tolerations.exists(t, {tolerates_cel('t', taint)})",
            "messageExpression": "variables.workload + "
                                 + _lit(f" requests no GPU but tolerates the GPU taint {taint} ({whose})") + tail,
            "reason": "Forbidden",
        })
    conditions = [
        {"name": "outside-allowed-namespaces", "expression": f"!(request.namespace in {_list(allowed)})"},
        # Node agents are not judged by the allow-list (the pack's gpu-toleration-allowlist leaves
        # DaemonSets alone). A Pod counts as a DaemonSet's only when the DaemonSet controller creates
        # it: an owner reference alone is written by whoever creates the Pod, so it is no proof.
        {"name": "not-a-node-agent", "expression": "object.kind != 'DaemonSet' && !(object.kind == 'Pod' && "
                                                   "has(object.metadata.ownerReferences) && "
                                                   "object.metadata.ownerReferences.exists(o, o.kind == 'DaemonSet') && "
                                                   f"request.userInfo.username in {_list(DAEMONSET_CONTROLLER_USERS)})"},
    ]
    return _policy(_TOLERATION, rules, match_conditions=conditions, variables=variables, validations=validations)


def node_taints_policy(pools: Sequence[tuple[str, Sequence[Taint]]], users: Sequence[str],
                       groups: Sequence[str]) -> dict[str, Any]:
    """The run-time ``no-imperative-taints`` policy: declared taints of pool nodes stay as declared.

    Args:
        pools: ``(pool name, declared taints)``; pools without taints are left out.
        users: exempt user names (service accounts as ``system:serviceaccount:<ns>:<name>``).
        groups: exempt groups.
    """
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["UPDATE"], "resources": ["nodes"]}]
    judged = [(name, taints) for name, taints in pools if taints]
    label = f"oldObject.metadata.labels[{_lit(POOL_LABEL_KEY)}]"
    conditions = [
        {"name": "declared-pool-node", "expression": f"has(oldObject.metadata.labels) && {_lit(POOL_LABEL_KEY)} in "
                                                     f"oldObject.metadata.labels && {label} in {_list(n for n, _ in judged)}"},
        {"name": "not-exempt", "expression": (
            "request.userInfo.username != 'system:node:' + oldObject.metadata.name"
            + (f" && !(request.userInfo.username in {_list(users)})" if users else "")
            + (f" && !(has(request.userInfo.groups) && request.userInfo.groups.exists(g, g in {_list(groups)}))"
               if groups else "")
        )},
    ]
    variables = [
        {"name": "pool", "expression": label},
        {"name": "oldTaints", "expression": "has(oldObject.spec.taints) ? oldObject.spec.taints : []"},
        {"name": "newTaints", "expression": "has(object.spec.taints) ? object.spec.taints : []"},
    ]
    validations = []
    for name, taints in judged:
        for taint in taints:
            same = (f"t.key == {_lit(taint.key)} && t.effect == {_lit(taint.effect.value)} && "
                    f"{_opt('t', 'value')} == {_lit(taint.value or '')}")
            validations.append({
                "expression": f"variables.pool != {_lit(name)} || !variables.oldTaints.exists(t, {same}) || "
                              f"variables.newTaints.exists(t, {same})",
                "messageExpression": (
                    "'Node ' + oldObject.metadata.name + " + _lit(f" of pool {name}: ") + " + request.userInfo.username + "
                    + _lit(f" removes or changes the declared taint {taint}. Nodes that an autoscaler creates later "
                           f"come up with the declared taints only; change taints in the pool definition "
                           f"(gpu-node-pools:pools, pool {name}, taints), or exempt the requester in "
                           "gpu-node-pools:admission.exempt.")
                ),
                "reason": "Forbidden",
            })
    return _policy(_NODE_TAINTS, rules, match_conditions=conditions, variables=variables, validations=validations)


def admission_objects(pools: Sequence[tuple[str, Sequence[Taint]]], *, action: str = "audit",
                      allowed_namespaces: Sequence[str] = GPU_TOLERATION_ALLOWED_NAMESPACES,
                      extra_taints: Sequence[Taint] = (DEFAULT_TAINT,), users: Sequence[str] = (),
                      groups: Sequence[str] = ()) -> list[AdmissionObject]:
    """Every policy and its binding, policy first, in :data:`RULES` order.

    Args:
        pools: ``(pool name, declared taints)`` in config order.
        action: ``audit`` | ``warn`` | ``deny`` (:data:`ACTIONS`).
        allowed_namespaces, extra_taints: the ``gpu-toleration-allowlist`` pack config (its defaults).
        users, groups: exempt requesters of the Node rule.

    Raises:
        ValueError: an unknown ``action``.
    """
    if action not in ACTIONS:
        raise ValueError(f"action {action!r} is not one of {sorted(ACTIONS)}")
    by_taint: dict[Taint, list[str]] = {}
    for name, taints in pools:
        for taint in taints:
            by_taint.setdefault(taint, []).append(name)
    for taint in extra_taints:
        by_taint.setdefault(taint, [])
    policies = [
        toleration_policy(list(by_taint.items()), list(allowed_namespaces)),
        node_taints_policy(pools, users, groups),
    ]
    out: list[AdmissionObject] = []
    for policy in policies:
        name = policy["metadata"]["name"]
        out += [AdmissionObject(name, policy), AdmissionObject(name, _binding(name, action))]
    return out


def render_stack(stack: StackConfig, pack_config: Mapping[str, Any] | None = None) -> list[AdmissionObject]:
    """:func:`admission_objects` for a validated stack: its pools' declared taints, ``admission.action`` and
    ``admission.exempt``, and the ``gpu-toleration-allowlist`` entry of ``pack_config`` (the policy pack
    config; ``allowedNamespaces`` and ``extraTaints`` in kubelet form, default the pack's defaults). The namespaces
    of the agents the program installs (:func:`gpu_node_pool.gpu_agents.installed.agent_namespaces`) are allowed
    too, as in the pack, so the cluster admits the product's own agents."""
    entry = dict((pack_config or {}).get("gpu-toleration-allowlist") or {})
    allowed = entry.get("allowedNamespaces")
    extra = entry.get("extraTaints")
    admission = stack.admission
    return admission_objects(
        [(p.name, p.taint_list) for p in stack.pools],
        action=admission.action,
        allowed_namespaces=sorted({*(GPU_TOLERATION_ALLOWED_NAMESPACES if allowed is None else allowed),
                                   *agent_namespaces(stack)}),
        extra_taints=[DEFAULT_TAINT] if extra is None else [Taint.parse(t) for t in extra],
        users=admission.exempt.usernames(),
        groups=list(admission.exempt.groups),
    )
