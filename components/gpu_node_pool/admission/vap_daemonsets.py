"""``gpu-node-pools-daemonsets-tolerate-gpu-taints`` (preview rule ``daemonsets-tolerate-gpu-taints``).

A DaemonSet (CREATE or UPDATE) that, for some declared pool, neither tolerates every repelling taint of
the pool (with what the DaemonSet controller adds, and ExtendedResourceToleration for the extended
resources it requests) nor keeps off the pool's nodes by ``nodeSelector`` or required node affinity.
One validation per pool, so the warning names the pool and its taints. Where the DaemonSet's selection
is beyond what the rule evaluates (``matchFields``, ``Gt``/``Lt``, or keys the pool does not label, whose
value on the pool's nodes is not known when rendering), the message says "not judged at admission"
instead of passing.

Warn only (:data:`.model.WARN_ONLY_ACTIONS`, ``failurePolicy: Ignore``): a DaemonSet that does not
tolerate a GPU pool is missing from its nodes, not a danger to them, and refusing it would also keep
it off every other node; the preview pack, ``gpupool plan`` and ``gpupool audit`` keep it mandatory.
"""

from __future__ import annotations

from typing import Any

from ..config.defaults import PROJECT
from ..k8s.effective import is_extended_resource_name
from ..k8s.labels import DEFAULT_GPU_LABEL
from ..k8s.taints import DAEMONSET_CONTROLLER_TOLERATIONS, HOST_NETWORK_DAEMON_TOLERATIONS, TaintEffect, tolerates
from . import cel
from .model import AdmissionModel, PoolFacts
from .objects import policy, resource_rules

__all__ = ["DAEMONSET_POLICY", "daemonset_policy"]

DAEMONSET_POLICY = f"{PROJECT}-daemonsets-tolerate-gpu-taints"

_HOST_NETWORK = "(has(variables.podSpec.hostNetwork) && variables.podSpec.hostNetwork == true)"


def _tolerated(pool: PoolFacts, ert: bool) -> str:
    parts = []
    for taint in pool.repelling:
        if any(tolerates(t, taint) for t in DAEMONSET_CONTROLLER_TOLERATIONS):
            continue  # the controller adds it to every daemon pod
        stays = cel.stays_for("variables.tolerations", taint)
        if any(tolerates(t, taint) for t in HOST_NETWORK_DAEMON_TOLERATIONS):
            stays = f"({stays} || {_HOST_NETWORK})"
        if ert and taint.effect is TaintEffect.NO_SCHEDULE and is_extended_resource_name(taint.key):
            stays = f"({stays} || {cel.requests_resource(taint.key)})"
        parts.append(stays)
    return " && ".join(parts) or "true"


def daemonset_policy(model: AdmissionModel) -> dict[str, Any]:
    """The policy (module docstring); one validation per pool with a repelling taint."""
    fix = (f"Tolerate each taint (operator Exists with the taint's key and effect) or keep the DaemonSet off GPU "
           f"nodes with a required node affinity ({DEFAULT_GPU_LABEL[0]} NotIn [{DEFAULT_GPU_LABEL[1]}]).")
    validations = []
    for pool in model.pools:
        if not pool.repelling:
            continue
        taints = ", ".join(map(str, pool.repelling))
        validations.append({
            "expression": f"({_tolerated(pool, model.extended_resource_toleration)}) || {cel.selection_false(pool.labels)}",
            "messageExpression": (
                f"{cel.selection_true(pool.labels)} ? "
                "variables.workload + "
                + cel.lit(f" will not run on GPU nodes of pool {pool.name} and does not keep off them: "
                          f"{taints} not tolerated. {fix}")
                + " : variables.workload + "
                + cel.lit(f" does not tolerate {taints} of pool {pool.name}; whether its node selection keeps it off "
                          "that pool is not judged at admission (matchFields, Gt/Lt, or label keys the pool does not "
                          "declare): gpupool plan and audit judge it")),
            "reason": "Invalid",
        })
    variables = list(cel.POD_SPEC_VARIABLES)
    rules = resource_rules((("apps", "v1", "daemonsets"),), ["CREATE", "UPDATE"])
    return policy(DAEMONSET_POLICY, rules, match_conditions=[], variables=variables, validations=validations,
                  failure_policy="Ignore")
