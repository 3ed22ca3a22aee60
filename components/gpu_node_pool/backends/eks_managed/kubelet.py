"""Kubelet settings of an eks-managed AL2023 pool (``kubelet: {config: {...}, flags: [...]}``).

Rendered as one nodeadm ``NodeConfig`` part (``application/node.eks.aws``) of the MIME user data in
the pool's launch template; EKS merges it with the NodeConfig it writes for a managed node group
(cluster details, the node group's taints and labels): EKS user guide
https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html (AL2023 user data, nodeadm) and
awslabs/amazon-eks-ami ``nodeadm/api/v1alpha1/nodeconfig_types.go`` (``spec.kubelet.config`` is a
``KubeletConfiguration`` fragment, ``spec.kubelet.flags`` extra command-line flags).

The node group declares the taints and labels (EKS registers the nodes with them and Cluster
Autoscaler reads them from it), so neither may be set here: ``registerWithTaints`` in ``config`` and
``--register-with-taints``/``--node-labels`` in ``flags`` are refused with the fix. The rendered part
is read back with the same readers the policies use (:mod:`gpu_node_pool.backends._shared.user_data`),
so a refusal here and a finding there never disagree. Bottlerocket AMI types take TOML settings, not a
NodeConfig: refused for them.
"""

from __future__ import annotations

from email.mime.multipart import MIMEMultipart
from email.mime.nonmultipart import MIMENonMultipart
from typing import Any

from pydantic import Field, field_validator

from ...config.common import Model, fail
from .._shared.registration import (
    MIME_BOUNDARY,
    NODE_LABELS_FLAG,
    NODEADM_API_VERSION,
    NODEADM_CONTENT_TYPE,
    REGISTER_WITH_TAINTS_FLAG,
    block_yaml,
)

__all__ = ["EksKubelet", "UserLaunchTemplate", "user_data"]

_SOURCE = "https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html"
_DECLARED_FLAGS = (REGISTER_WITH_TAINTS_FLAG, NODE_LABELS_FLAG)


class EksKubelet(Model):
    """``kubelet``: ``{config: {maxPods: 110, systemReserved: {memory: 2Gi}}, flags: ["--v=2"]}`` (AL2023 pools).

    ``config``: KubeletConfiguration fields (camelCase, as the kubelet's config file takes them);
    ``flags``: extra kubelet flags, each ``--name[=value]``. Taints and labels are the pool's
    ``taints``/``labels``, never set here."""

    yaml_example = "{config: {maxPods: 110}, flags: ['--v=2']}"

    config: dict[str, Any] | None = Field(None, description="KubeletConfiguration fields, e.g. {maxPods: 110}.")
    flags: list[str] | None = Field(None, min_length=1, description="Extra kubelet flags, e.g. ['--v=2'].")

    @field_validator("config")
    @classmethod
    def _config(cls, config: dict[str, Any] | None) -> dict[str, Any] | None:
        problem = _value_problem(config, "config") if config else None
        if problem:
            raise fail(problem)
        if config and "registerWithTaints" in config:
            raise fail(
                "registerWithTaints: the node group declares the taints (EKS registers the nodes with them and "
                "Cluster Autoscaler reads them there); set them in the pool's taints"
            )
        return config

    @field_validator("flags")
    @classmethod
    def _flags(cls, flags: list[str] | None) -> list[str] | None:
        for flag in flags or []:
            if not flag.startswith("--") or " " in flag.strip():
                raise fail(f"{flag!r} is not one kubelet flag; write each as '--name=value', e.g. '--v=2'")
            name = flag.split("=", 1)[0]
            if name in _DECLARED_FLAGS:
                what = "taints" if name == REGISTER_WITH_TAINTS_FLAG else "labels"
                raise fail(
                    f"{name}: the node group declares the {what} (EKS registers the nodes with them and Cluster "
                    f"Autoscaler reads them there); set them in the pool's {what}, not as a kubelet flag"
                )
        return flags


class UserLaunchTemplate(Model):
    """``launchTemplate``: an EC2 launch template of your own for the node group, ``{id: lt-..., version: "3"}``.

    Used as given (EKS user guide launch-templates: a managed node group takes one template). The
    component never merges two templates: a pool that needs its own (Capacity Block, ODCR, EFA,
    ``kubelet`` settings) refuses this field. Its user data is not readable at preview (only the id is
    known), so the plan says the registration taints and labels it may set are not judged."""

    yaml_example = "{id: lt-0123456789abcdef0, version: '3'}"

    id: str = Field(pattern=r"^lt-[0-9a-f]{8,17}$", description="Launch template ID, lt-...")
    version: str = Field(pattern=r"^([0-9]+|\$Latest|\$Default)$", description="A version number, $Latest or $Default.")


#: KubeletConfiguration numbers are int32 (k8s.io/kubelet/config/v1beta1 types.go: maxPods, podsPerCore, ...).
_INT32_MAX = 2**31 - 1


def _value_problem(value: Any, path: str) -> str | None:
    """Why a KubeletConfiguration fragment cannot reach a kubelet as written: a number beyond int32,
    or a string with a control character (the kubelet refuses both at boot), naming its path."""
    if isinstance(value, dict):
        return next((p for k, v in value.items() if (p := _value_problem(v, f"{path}.{k}"))), None)
    if isinstance(value, list):
        return next((p for i, v in enumerate(value) if (p := _value_problem(v, f"{path}[{i}]"))), None)
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and not -_INT32_MAX - 1 <= value <= _INT32_MAX:
        return f"{path}: {value} is beyond the kubelet's int32 fields (k8s.io/kubelet config/v1beta1); give a real value"
    if isinstance(value, str) and any(ord(c) < 32 or ord(c) == 127 for c in value):
        return f"{path}: {value!r} holds a control character, which no kubelet setting takes; write the plain value"
    return None


def user_data(pool: Any) -> str | None:
    """The MIME user data carrying the pool's ``kubelet`` settings as one NodeConfig part, or None."""
    kubelet = getattr(pool, "kubelet", None)
    if kubelet is None or not (kubelet.config or kubelet.flags):
        return None
    spec: dict[str, Any] = {}
    if kubelet.config:
        spec["config"] = dict(kubelet.config)
    if kubelet.flags:
        spec["flags"] = list(kubelet.flags)
    message = MIMEMultipart("mixed", boundary=MIME_BOUNDARY)
    part = MIMENonMultipart(*NODEADM_CONTENT_TYPE.split("/"))
    part.set_payload(block_yaml({"apiVersion": NODEADM_API_VERSION, "kind": "NodeConfig", "spec": {"kubelet": spec}}))
    message.attach(part)
    return message.as_string()
