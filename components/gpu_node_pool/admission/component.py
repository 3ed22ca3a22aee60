"""``GpuAdmissionPolicies``: the thin Pulumi shell that installs :func:`.render.render_stack`'s objects."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi

from .render import render_stack

if TYPE_CHECKING:
    from ..config.stack import StackConfig

__all__ = ["TYPE_TOKEN", "GpuAdmissionPolicies"]

TYPE_TOKEN = "gpu-node-pools:index:GpuAdmissionPolicies"


def _action(body: dict[str, Any]) -> list[str]:
    spec = body.get("spec", {})
    if "validationActions" in spec:
        return list(spec["validationActions"])
    return [spec.get("enforcementAction", "deny")]


class GpuAdmissionPolicies(pulumi.ComponentResource):
    """Per rule, a ``kubernetes.admissionregistration.v1`` ValidatingAdmissionPolicy and its Binding
    (``engine: validating-admission-policy``; children ``<name>`` and ``<name>-binding``), or a Gatekeeper
    ConstraintTemplate and its Constraint (``engine: gatekeeper``; ``kubernetes.apiextensions.CustomResource``
    children ``<template name>`` and ``<name>``, the Constraint depending on its template).

    Attributes:
        objects: the rendered objects (:class:`~.objects.AdmissionObject`, plain).
        actions: rule name -> its binding's ``validationActions``, or ``[enforcementAction]`` of its Constraint.
    """

    def __init__(self, name: str, stack: StackConfig, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(TYPE_TOKEN, name, {}, opts)
        from ..sdk.provider_sdk import provider_sdk

        k8s = provider_sdk("pulumi_kubernetes", 'the admission policies (ValidatingAdmissionPolicy)')

        self.objects = render_stack(stack)
        self.actions = {o.rule: _action(o.body) for o in self.objects
                        if o.kind in ("ValidatingAdmissionPolicyBinding",) or o.api_version.startswith("constraints.")}
        child = pulumi.ResourceOptions(parent=self)
        self.resources: list[Any] = []
        templates: dict[str, Any] = {}
        for obj in self.objects:
            if obj.kind == "ValidatingAdmissionPolicy":
                res = k8s.admissionregistration.v1.ValidatingAdmissionPolicy(
                    obj.name, metadata=obj.body["metadata"], spec=obj.body["spec"], opts=child)
            elif obj.kind == "ValidatingAdmissionPolicyBinding":
                res = k8s.admissionregistration.v1.ValidatingAdmissionPolicyBinding(
                    f"{obj.name}-binding", metadata=obj.body["metadata"], spec=obj.body["spec"], opts=child)
            elif obj.kind == "ConstraintTemplate":
                res = templates[obj.rule] = k8s.apiextensions.CustomResource(
                    obj.name, api_version=obj.api_version, kind=obj.kind, metadata=obj.body["metadata"],
                    spec=obj.body["spec"], opts=child)
            else:  # the Constraint: its CRD exists once Gatekeeper has read the template
                res = k8s.apiextensions.CustomResource(
                    obj.name, api_version=obj.api_version, kind=obj.kind, metadata=obj.body["metadata"],
                    spec=obj.body["spec"], opts=pulumi.ResourceOptions(parent=self, depends_on=[templates[obj.rule]]))
            self.resources.append(res)
        self.register_outputs({"actions": self.actions})
