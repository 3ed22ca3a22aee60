"""The pod-template rules: the GPU toleration allow-list (refuses) and GPU workloads reach their pool (warns).

* ``gpu-node-pools-gpu-toleration-allowlist`` (preview rule ``gpu-toleration-allowlist``): a Pod, or the
  pod template of a Deployment, StatefulSet, ReplicaSet, Job or CronJob, that requests no GPU resource
  (``nvidia.com/gpu``, ``nvidia.com/gpu.shared``, ``nvidia.com/mig-*`` above zero in any container's limits
  or requests) but tolerates a GPU pool taint, or carries a catch-all toleration (``operator: Exists``, no
  key) whatever it requests, outside the allowed namespaces. One validation per GPU taint, so the message
  names the taint and its pools. Validating admission runs after mutating admission, so a Pod is judged
  with the tolerations ExtendedResourceToleration added: a Pod requesting GPUs is a GPU workload wherever
  it lives. DaemonSets, and Pods the DaemonSet controller creates, are node agents: the pack leaves them to
  ``daemonsets-tolerate-gpu-taints`` (:mod:`.vap_daemonsets`).
* ``gpu-node-pools-gpu-workloads-reach-their-pool`` (preview rules ``gpu-workloads-select-gpu-nodes`` and
  ``gpu-workloads-tolerate-their-pool``): a Pod or template that requests GPUs but selects no GPU pool, or
  does not tolerate every repelling taint of any pool it selects. Warn only: ``failurePolicy: Ignore`` and
  never ``Deny`` (:data:`.model.WARN_ONLY_ACTIONS`). A selection that uses ``matchFields``, ``Gt``/``Lt`` or
  keys a pool does not label is "not judged at admission" and the warning says so.
"""

from __future__ import annotations

from typing import Any

from ..config.defaults import PROJECT
from ..k8s.effective import is_extended_resource_name
from ..k8s.taints import TaintEffect
from ..k8s.wellknown import POOL_LABEL_KEY
from . import cel
from .model import AdmissionModel, PoolFacts
from .objects import policy, resource_rules

__all__ = ["TOLERATION_POLICY", "REACH_POLICY", "WORKLOADS", "toleration_policy", "reach_policy",
           "DAEMONSET_CONTROLLER_USERS", "NAMESPACE_NAME_LABEL"]

TOLERATION_POLICY = f"{PROJECT}-gpu-toleration-allowlist"
REACH_POLICY = f"{PROJECT}-gpu-workloads-reach-their-pool"

#: Kinds whose pod template the pod rules read (group, version, resource).
WORKLOADS = (
    ("", "v1", "pods"),
    ("apps", "v1", "deployments"),
    ("apps", "v1", "statefulsets"),
    ("apps", "v1", "replicasets"),
    ("apps", "v1", "daemonsets"),
    ("batch", "v1", "jobs"),
    ("batch", "v1", "cronjobs"),
)

#: Who creates a DaemonSet's Pods: the controller's own service account when kube-controller-manager
#: runs with ``--use-service-account-credentials`` (kubeadm and EKS do), else the controller manager's
#: identity (https://kubernetes.io/docs/reference/access-authn-authz/rbac/#controller-roles).
DAEMONSET_CONTROLLER_USERS = ("system:serviceaccount:kube-system:daemon-set-controller", "system:kube-controller-manager")

#: The label the API server sets on every Namespace to its name (GA in 1.22:
#: https://kubernetes.io/docs/reference/labels-annotations-taints/#kubernetes-io-metadata-name).
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"

_NOT_A_NODE_AGENT = (
    "object.kind != 'DaemonSet' && !(object.kind == 'Pod' && has(object.metadata.ownerReferences) && "
    "object.metadata.ownerReferences.exists(o, o.kind == 'DaemonSet') && "
    f"request.userInfo.username in {cel.list_lit(DAEMONSET_CONTROLLER_USERS)})"
)


def outside_allowed(allowed: tuple[str, ...]) -> dict[str, Any]:
    """The binding's ``matchResources``: namespaces other than ``allowed`` (by their name label)."""
    return {"namespaceSelector": {"matchExpressions": [
        {"key": NAMESPACE_NAME_LABEL, "operator": "NotIn", "values": list(allowed)}]}}


def toleration_policy(model: AdmissionModel) -> dict[str, Any]:
    """The ``gpu-toleration-allowlist`` policy (module docstring)."""
    allowed = list(model.allowed_namespaces)
    variables = [*cel.POD_SPEC_VARIABLES, {"name": "requestsGpu", "expression": cel.requests_gpu()}]
    tail = (" + ', but namespace ' + request.namespace + "
            + cel.lit(f" is not allowed to tolerate GPU taints (allowedNamespaces: [{', '.join(allowed)}]). A "
                      "toleration only permits; remove it, or add the namespace to allowedNamespaces if it runs GPU "
                      "work or node agents."))
    catch_all = "(!has(t.key) || t.key == '') && has(t.operator) && t.operator == 'Exists'"
    validations = [{
        "expression": f"!variables.tolerations.exists(t, {catch_all})",
        "messageExpression": "variables.workload + "
                             + cel.lit(" carries a catch-all toleration (operator Exists, no key), which tolerates "
                                       "every GPU pool taint") + tail,
        "reason": "Forbidden",
    }]
    for taint, pools in model.taint_pools():
        whose = f"pool {', '.join(pools)}" if pools else "the pack's extraTaints"
        validations.append({
            "expression": f"variables.requestsGpu || !variables.tolerations.exists(t, {cel.tolerates('t', taint)})",
            "messageExpression": "variables.workload + "
                                 + cel.lit(f" requests no GPU but tolerates the GPU taint {taint} ({whose})") + tail,
            "reason": "Forbidden",
        })
    conditions = [
        {"name": "outside-allowed-namespaces", "expression": f"!(request.namespace in {cel.list_lit(allowed)})"},
        # Node agents are not judged by the allow-list (the pack leaves DaemonSets alone). A Pod counts as a
        # DaemonSet's only when the DaemonSet controller creates it: an owner reference alone is no proof.
        {"name": "not-a-node-agent", "expression": _NOT_A_NODE_AGENT},
    ]
    return policy(TOLERATION_POLICY, resource_rules(WORKLOADS, ["CREATE", "UPDATE"]), match_conditions=conditions,
                  variables=variables, validations=validations)


def pool_tolerated(pool: PoolFacts, ert: bool) -> str:
    """CEL: ``variables.tolerations`` (plus what ExtendedResourceToleration adds when ``ert``) keep a pod on
    ``pool``'s nodes: every repelling taint tolerated for good."""
    parts = []
    for taint in pool.repelling:
        stays = cel.stays_for("variables.tolerations", taint)
        if ert and taint.effect is TaintEffect.NO_SCHEDULE and is_extended_resource_name(taint.key):
            stays = f"({stays} || {cel.requests_resource(taint.key)})"
        parts.append(stays)
    return " && ".join(parts) or "true"


def reach_policy(model: AdmissionModel) -> dict[str, Any]:
    """The warn-only ``gpu-workloads-reach-their-pool`` policy (module docstring)."""
    pools = [p for p in model.pools]
    selects = "(size(variables.nodeSelector) > 0 || size(variables.terms) > 0)"
    any_selected = " || ".join(f"!{cel.selection_false(p.labels)}" for p in pools) or "false"
    surely = [(p, cel.selection_true(p.labels)) for p in pools]
    reaches = " || ".join(f"({sel} && {pool_tolerated(p, model.extended_resource_toleration)})" for p, sel in surely) or "false"
    any_surely = " || ".join(sel for _, sel in surely) or "false"
    names = ", ".join(p.name for p in pools)
    fix_select = (f" requests GPUs but selects no GPU pool of this stack ({names}): select one "
                  f"(nodeSelector {POOL_LABEL_KEY}: <pool>) and tolerate its taints, so the pod lands on the pool "
                  "meant for it")
    validations = [
        {"expression": f"!variables.requestsGpu || ({selects} && ({any_selected}))",
         "messageExpression": "variables.workload + " + cel.lit(fix_select), "reason": "Invalid"},
        {"expression": f"!variables.requestsGpu || !{selects} || !({any_selected}) || ({reaches})",
         "messageExpression": (
             f"({any_surely}) ? variables.workload + "
             + cel.lit(" requests GPUs and selects GPU pools but tolerates the repelling taints of none of them, "
                       "so its pods stay Pending: " + "; ".join(f"pool {p.name}: {', '.join(map(str, p.repelling)) or 'no taint'}"
                                                                for p in pools)
                       + ". Add the pool's tolerations (operator Exists with the taint's key and effect).")
             + " : variables.workload + "
             + cel.lit(" requests GPUs; whether it reaches a GPU pool is not judged at admission: its node selection "
                       "uses matchFields, Gt/Lt or label keys the pools do not declare (gpupool plan and audit judge it)")),
         "reason": "Invalid"},
    ]
    variables = [*cel.POD_SPEC_VARIABLES, {"name": "requestsGpu", "expression": cel.requests_gpu()}]
    conditions = [{"name": "not-a-daemonset", "expression": "object.kind != 'DaemonSet'"}]
    return policy(REACH_POLICY, resource_rules(WORKLOADS, ["CREATE", "UPDATE"]), match_conditions=conditions,
                  variables=variables, validations=validations, failure_policy="Ignore")
