"""The admission objects rendered from the declared pools (pure: no Pulumi, no I/O), for either engine.

Rules (policy name -> the preview rule it enforces again at the API server, :data:`RULES`):

* :mod:`.vap_pods`: the GPU toleration allow-list (refuses) and GPU workloads reach their pool (warns);
* :mod:`.vap_daemonsets`: DaemonSets on GPU pools (warns);
* :mod:`.vap_nodes`: declared taints are owned by the pool (refuses).

``engine: validating-admission-policy`` renders a ValidatingAdmissionPolicy and its Binding per rule
(``admissionregistration.k8s.io/v1``, GA in Kubernetes 1.30); ``engine: gatekeeper`` a ConstraintTemplate
and its Constraint per rule (:mod:`.gatekeeper`). ``admission.action`` maps to ``validationActions``
(:data:`.model.ACTIONS`, warn-only rules :data:`.model.WARN_ONLY_ACTIONS`) or Gatekeeper's
``enforcementAction`` (``dryrun``/``warn``/``deny``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .model import ACTIONS, WARN_ONLY_ACTIONS, AdmissionModel, model_of_stack
from .objects import API_VERSION, AdmissionObject, binding
from .vap_daemonsets import DAEMONSET_POLICY, daemonset_policy
from .vap_nodes import NODE_POLICY, node_taints_policy
from .vap_pods import REACH_POLICY, TOLERATION_POLICY, outside_allowed, reach_policy, toleration_policy

if TYPE_CHECKING:
    from ..config.stack import StackConfig

__all__ = ["API_VERSION", "ACTIONS", "RULES", "WARN_ONLY", "AdmissionObject", "admission_objects", "render_stack",
           "actions_of"]

#: Policy name -> the preview rule(s) it enforces again, in render order.
RULES: dict[str, str] = {
    TOLERATION_POLICY: "gpu-toleration-allowlist",
    NODE_POLICY: "no-imperative-taints",
    DAEMONSET_POLICY: "daemonsets-tolerate-gpu-taints",
    REACH_POLICY: "gpu-workloads-select-gpu-nodes, gpu-workloads-tolerate-their-pool",
}
#: The rules that only ever warn (never Deny, ``failurePolicy: Ignore``).
WARN_ONLY = frozenset({DAEMONSET_POLICY, REACH_POLICY})


def actions_of(rule: str, action: str) -> list[str]:
    """The ``validationActions`` of ``rule`` under ``admission.action`` ``action``."""
    return list((WARN_ONLY_ACTIONS if rule in WARN_ONLY else ACTIONS)[action])


def vap_objects(model: AdmissionModel) -> list[AdmissionObject]:
    """Every ValidatingAdmissionPolicy and its binding, policy first, in :data:`RULES` order."""
    policies = [toleration_policy(model), node_taints_policy(model), daemonset_policy(model), reach_policy(model)]
    out: list[AdmissionObject] = []
    for body in policies:
        name = body["metadata"]["name"]
        scope = outside_allowed(model.allowed_namespaces) if name == TOLERATION_POLICY else None
        out += [AdmissionObject(name, body), AdmissionObject(name, binding(name, actions_of(name, model.action), scope))]
    return out


def admission_objects(model: AdmissionModel) -> list[AdmissionObject]:
    """The objects of ``model.engine``: :func:`vap_objects` or :func:`.gatekeeper.gatekeeper_objects`, each
    annotated with the model it was rendered from (:data:`.drift.DERIVED_FROM`).

    Raises:
        ValueError: an unknown engine.
    """
    from .drift import annotate

    if model.engine == "validating-admission-policy":
        objects = vap_objects(model)
    elif model.engine == "gatekeeper":
        from .gatekeeper import gatekeeper_objects

        objects = gatekeeper_objects(model)
    else:
        raise ValueError(f"engine {model.engine!r} is not validating-admission-policy or gatekeeper")
    for obj in objects:
        annotate(obj.body, model)
    return objects


def render_stack(stack: StackConfig, pack_config: Mapping[str, Any] | None = None) -> list[AdmissionObject]:
    """:func:`admission_objects` for a validated stack (:func:`.model.model_of_stack`)."""
    return admission_objects(model_of_stack(stack, pack_config))
