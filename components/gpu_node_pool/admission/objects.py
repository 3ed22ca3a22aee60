"""The Kubernetes objects of the ValidatingAdmissionPolicy engine: one policy and one binding per rule."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..config.defaults import PROJECT

__all__ = ["API_VERSION", "AdmissionObject", "policy", "binding", "MANAGED_BY"]

API_VERSION = "admissionregistration.k8s.io/v1"
#: The label every rendered object carries (``gpupool audit`` finds the installed guard by it).
MANAGED_BY = {"app.kubernetes.io/managed-by": PROJECT}


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

    @property
    def api_version(self) -> str:
        return self.body["apiVersion"]


def policy(name: str, rules: list[dict[str, Any]], *, match_conditions: list[dict[str, str]],
           variables: list[dict[str, str]], validations: list[dict[str, str]],
           failure_policy: str = "Fail") -> dict[str, Any]:
    """A ``ValidatingAdmissionPolicy``: ``failure_policy`` ``Fail`` (an expression error counts as a violation
    under the binding's actions) or ``Ignore`` (for the warn-only rules)."""
    return {
        "apiVersion": API_VERSION,
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name, "labels": dict(MANAGED_BY)},
        "spec": {
            "failurePolicy": failure_policy,
            "matchConstraints": {"resourceRules": rules},
            **({"matchConditions": match_conditions} if match_conditions else {}),
            "variables": variables,
            "validations": validations,
        },
    }


def binding(name: str, actions: list[str], match_resources: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``ValidatingAdmissionPolicyBinding`` of policy ``name`` with ``validationActions`` ``actions``,
    scoped by ``matchResources`` when given."""
    spec: dict[str, Any] = {"policyName": name, "validationActions": list(actions)}
    if match_resources:
        spec["matchResources"] = match_resources
    return {
        "apiVersion": API_VERSION,
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": name, "labels": dict(MANAGED_BY)},
        "spec": spec,
    }


def resource_rules(triples: tuple[tuple[str, str, str], ...], operations: list[str]) -> list[dict[str, Any]]:
    """``matchConstraints.resourceRules`` for ``(group, version, resource)`` triples."""
    return [{"apiGroups": [g], "apiVersions": [v], "operations": list(operations), "resources": [r]}
            for g, v, r in triples]
