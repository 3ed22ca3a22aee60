"""``GpuAdmissionPolicies``: the thin Pulumi shell that installs :func:`.render.render_stack`'s objects."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi

from .render import ACTIONS, render_stack

if TYPE_CHECKING:
    from ..config.stack import StackConfig

__all__ = ["TYPE_TOKEN", "GpuAdmissionPolicies"]

TYPE_TOKEN = "gpu-node-pools:index:GpuAdmissionPolicies"


class GpuAdmissionPolicies(pulumi.ComponentResource):
    """One ``kubernetes.admissionregistration.v1`` ValidatingAdmissionPolicy and its Binding per rule,
    children named after the objects (``<object name>`` and ``<object name>-binding``).

    Attributes:
        objects: the rendered objects (:class:`~.render.AdmissionObject`, plain).
        actions: policy name -> its binding's ``validationActions``.
    """

    def __init__(self, name: str, stack: StackConfig, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(TYPE_TOKEN, name, {}, opts)
        from ..sdk.provider_sdk import provider_sdk

        k8s = provider_sdk("pulumi_kubernetes", 'the admission policies (ValidatingAdmissionPolicy)')

        self.objects = render_stack(stack)
        self.actions = {o.rule: ACTIONS[stack.admission.action] for o in self.objects}
        child = pulumi.ResourceOptions(parent=self)
        self.resources: list[Any] = []
        for obj in self.objects:
            if obj.kind == "ValidatingAdmissionPolicy":
                cls, resource_name = k8s.admissionregistration.v1.ValidatingAdmissionPolicy, obj.name
            else:
                cls, resource_name = k8s.admissionregistration.v1.ValidatingAdmissionPolicyBinding, f"{obj.name}-binding"
            self.resources.append(cls(resource_name, metadata=obj.body["metadata"], spec=obj.body["spec"], opts=child))
        self.register_outputs({"actions": self.actions})
