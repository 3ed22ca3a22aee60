"""Kubelet settings of an eks-managed AL2023 pool (``kubelet: {config: {...}, flags: [...]}``).

Rendered as one nodeadm ``NodeConfig`` part (``application/node.eks.aws``) of the MIME user data in
the pool's launch template; EKS merges it with the NodeConfig it writes for a managed node group
(cluster details, the node group's taints and labels): EKS user guide
https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html (AL2023 user data, nodeadm) and
awslabs/amazon-eks-ami ``nodeadm/api/v1alpha1/nodeconfig_types.go`` (``spec.kubelet.config`` is a
``KubeletConfiguration`` fragment, ``spec.kubelet.flags`` extra command-line flags).

The node group declares the taints and labels (EKS registers the nodes with them and Cluster
Autoscaler reads them from it). A taint or label set here (``registerWithTaints`` in ``config``,
``--register-with-taints=...``/``--node-labels=...`` in ``flags``) is read with the kubelet parsers
of :mod:`gpu_node_pool.backends._shared.registration`, merged with the pool's own on the node group
(:mod:`.pass_through`; a disagreeing value is refused there) and not written a second time into the
NodeConfig part. The rendered part is read back with the same readers the policies use
(:mod:`gpu_node_pool.backends._shared.user_data`), so a refusal here and a finding there never
disagree. Bottlerocket AMI types take TOML settings (``bottlerocket``, :mod:`.bottlerocket`), not a
NodeConfig: refused for them.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from pydantic import Field, field_validator

from ...config.common import Model, fail
from ...config.defaults import DEFAULT_TAINT
from ...config.errors import fail_per_key
from ...k8s.taints import Taint, TaintEffect, TaintError
from ...text.terminal import shown
from .._shared import kubelet_config_fields as fields
from .._shared.registration import (
    NODE_LABELS_FLAG,
    NODEADM_API_VERSION,
    REGISTER_WITH_TAINTS_FLAG,
    block_yaml,
    flow_yaml,
    nodeadm_mime,
    parse_labels_flag,
    parse_taints_flag,
)

__all__ = ["EksKubelet", "UserLaunchTemplate", "config_warnings", "kubelet_settings", "registration_flag", "user_data"]

_SOURCE = "https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html"
_DECLARED_FLAGS = (REGISTER_WITH_TAINTS_FLAG, NODE_LABELS_FLAG)


class EksKubelet(Model):
    """``kubelet``: ``{config: {maxPods: 110, systemReserved: {memory: 2Gi}}, flags: ["--v=2"]}`` (AL2023 pools).

    ``config``: KubeletConfiguration fields (camelCase, as the kubelet's config file takes them);
    ``flags``: extra kubelet flags, each ``--name[=value]``. Taints and labels given here
    (``config.registerWithTaints``: a list of ``{key, value, effect}``, Kubernetes effects;
    ``--register-with-taints=key=value:Effect,...``; ``--node-labels=key=value,...``: the kubelet
    flag reference https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/) join
    the pool's ``taints``/``labels`` on the node group; one that disagrees with them is refused.

    Raises (as config errors at ``kubelet.config``/``kubelet.flags``): a ``config`` key that is not
    ``registerWithTaints`` but spells it otherwise, or ``nodeLabels`` (no such field), a value no kubelet takes, a
    flag holding a newline or another control character (at ``kubelet.flags[N]``), a flag that is not ``--name[=value]``, a registration flag without ``=``, a taint or label that
    does not parse; and, at ``kubelet.config.<field>``, a value of another JSON type than the field's
    (``maxPods: "110"``, ``systemReserved: 2Gi``), a malformed duration or quantity, a number out of
    its field's range: the kubelet would not decode its config file and would not start (the field
    table and what is and is not judged: :mod:`gpu_node_pool.backends._shared.kubelet_config_fields`).
    A key that is no KubeletConfiguration field is a warning (:func:`config_warnings`), not an error:
    the kubelet skips it."""

    yaml_example = "{config: {maxPods: 110}, flags: ['--v=2']}"

    config: dict[str, Any] | None = Field(None, description="KubeletConfiguration fields, e.g. {maxPods: 110}.")
    flags: list[str] | None = Field(None, min_length=1, description="Extra kubelet flags, e.g. ['--v=2'].")

    @field_validator("config")
    @classmethod
    def _config(cls, config: dict[str, Any] | None) -> dict[str, Any] | None:
        problem = (_misspelt_registration_key(config) or _value_problem(config, "config")) if config else None
        if problem:
            raise fail(problem)
        if config and "registerWithTaints" in config:
            items = config["registerWithTaints"]
            if not isinstance(items, list):
                raise fail(
                    f"config.registerWithTaints is {type(items).__name__} {str(items)[:40]!r}, not a list of taints; "
                    f"write [{flow_yaml(DEFAULT_TAINT.to_k8s())}] (k8s.io/kubelet config/v1beta1 registerWithTaints), "
                    "or use the pool's taints"
                )
            for i, item in enumerate(items):
                try:
                    Taint.from_k8s(item)
                except TaintError as err:
                    raise fail(f"config.registerWithTaints[{i}]: {err} (a core/v1 Taint with a Kubernetes effect: "
                               f"{', '.join(e.value for e in TaintEffect)})") from None
        errors = [f for f in fields.judge(config or {}) if f.severity == "error"]
        if len(errors) == 1:
            raise fail(errors[0].message, errors[0].path)
        if errors:
            raise fail_per_key([(f.path, f"{fields.dotted(f.path)}: {f.message}") for f in errors])
        return config

    @field_validator("flags")
    @classmethod
    def _flags(cls, flags: list[str] | None) -> list[str] | None:
        for i, flag in enumerate(flags or []):
            bad = next((c for c in flag if unicodedata.category(c) == "Cc"), None)
            if bad is not None:
                raise fail(f"{shown(flag)} holds the control character {bad!r}: each item of flags is one kubelet "
                           "command-line argument (nodeadm NodeConfig spec.kubelet.flags) and no kubelet flag holds one: "
                           "what follows a newline would reach the node as flags nothing here checked; write one flag "
                           "per item, e.g. "
                           "['--max-pods=110', '--v=2'] (kubelet flag reference "
                           "https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/)", (i,))
            if not flag.startswith("--") or " " in flag.strip():
                raise fail(f"{flag!r} is not one kubelet flag; write each as '--name=value', e.g. '--v=2'")
            name, eq, value = flag.partition("=")
            if name in _DECLARED_FLAGS and not eq:
                raise fail(f"flags[{i}] {flag!r}: write the value in the same item, e.g. "
                           f"'{name}={DEFAULT_TAINT if name == REGISTER_WITH_TAINTS_FLAG else 'team=ml'}'")
            try:
                if name == REGISTER_WITH_TAINTS_FLAG:
                    parse_taints_flag(value)
                elif name == NODE_LABELS_FLAG:
                    parse_labels_flag(value)
            except ValueError as err:  # TaintError is a ValueError
                raise fail(f"flags[{i}] {flag!r}: {err} (kubelet flag reference "
                           "https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/)") from None
        return flags


class UserLaunchTemplate(Model):
    """``launchTemplate``: an EC2 launch template of your own for the node group, ``{id: lt-..., version: "3"}``.

    Used as given (EKS user guide launch-templates: a managed node group takes one template). The
    component never merges two templates: a pool that needs its own (Capacity Block, ODCR, EFA,
    ``kubelet`` or ``bottlerocket`` settings, MIG on Bottlerocket) refuses this field. Its user data is not readable at preview (only the id is
    known), so the plan says the registration taints and labels it may set are not judged."""

    yaml_example = "{id: lt-0123456789abcdef0, version: '3'}"

    id: str = Field(pattern=r"^lt-[0-9a-f]{8,17}$", description="Launch template ID, lt-...")
    version: str = Field(pattern=r"^([0-9]+|\$Latest|\$Default)$", description="A version number, $Latest or $Default.")


_CONFIG_REFERENCE = "https://kubernetes.io/docs/reference/config-api/kubelet-config.v1beta1/"


def _misspelt_registration_key(config: dict[str, Any]) -> str | None:
    """Why a ``config`` key looks like taints or labels but is no KubeletConfiguration field, or None:
    ``registerWithTaints`` in another case or with dashes, or ``nodeLabels`` (labels have no config field,
    only the ``--node-labels`` flag). Such a key is not read as the pool's taints or labels, so the node
    group, the autoscaler tags and the plan would not know them (k8s.io/kubelet config/v1beta1 types.go)."""
    for key in config:
        plain = str(key).replace("-", "").replace("_", "").lower()
        if plain == "registerwithtaints" and key != "registerWithTaints":
            return (f"config.{key}: the KubeletConfiguration field is registerWithTaints, spelt so ({_CONFIG_REFERENCE}); "
                    "write registerWithTaints, or use the pool's taints")
        if plain == "nodelabels":
            return (f"config.{key}: KubeletConfiguration has no field for node labels ({_CONFIG_REFERENCE}); labels are "
                    "the kubelet's --node-labels flag: use the pool's labels, or flags: ['--node-labels=key=value']")
    return None


#: KubeletConfiguration numbers are int32 (k8s.io/kubelet/config/v1beta1 types.go: maxPods, podsPerCore, ...).
_INT32_MAX = 2**31 - 1


def _judged_wider(keys: tuple[str | int, ...]) -> bool:
    """Whether the field table gives the number at ``keys`` a type wider than int32 (int64, a float, a
    quantity), whose range :func:`~gpu_node_pool.backends._shared.kubelet_config_fields.judge` checks."""
    kind = fields.kind_at(keys)
    return isinstance(kind, fields.Scalar) and kind.name in ("int64", "float", "quantity")


def _value_problem(value: Any, path: str, keys: tuple[str | int, ...] = ()) -> str | None:
    """Why a KubeletConfiguration fragment cannot reach a kubelet as written: a number beyond int32
    (where the field table does not give it a wider type), or a string with a control character (the
    kubelet refuses both at boot), naming its path."""
    if isinstance(value, dict):
        return next((p for k, v in value.items() if (p := _value_problem(v, f"{path}.{k}", (*keys, str(k))))), None)
    if isinstance(value, list):
        return next((p for i, v in enumerate(value) if (p := _value_problem(v, f"{path}[{i}]", (*keys, i)))), None)
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and not -_INT32_MAX - 1 <= value <= _INT32_MAX and not _judged_wider(keys):
        return f"{path}: {value} is beyond the kubelet's int32 fields (k8s.io/kubelet config/v1beta1); give a real value"
    if isinstance(value, str) and any(ord(c) < 32 or ord(c) == 127 for c in value):
        return f"{path}: {value!r} holds a control character, which no kubelet setting takes; write the plain value"
    return None


def config_warnings(pool: Any) -> list[tuple[str, str]]:
    """``[(sub-path, message)]`` for the pool's ``kubelet.config``: each key that is no field of its
    KubeletConfiguration object (``kubelet.config.maxPod``: the kubelet skips it, so it may do
    nothing; with the nearest field name), and each object whose contents are not judged
    (``logging``, ``tracing``). Their errors are refused by :class:`EksKubelet` instead. Source:
    :mod:`gpu_node_pool.backends._shared.kubelet_config_fields`."""
    kubelet = getattr(pool, "kubelet", None)
    config = getattr(kubelet, "config", None) or {}
    return [(f"kubelet.config.{fields.dotted(f.path)}", f.message) for f in fields.judge(config) if f.severity != "error"]


def registration_flag(flag: str) -> bool:
    """Whether ``flag`` is ``--register-with-taints=...`` or ``--node-labels=...`` (the node group carries those)."""
    return flag.partition("=")[0] in _DECLARED_FLAGS


def kubelet_settings(pool: Any) -> dict[str, Any]:
    """The NodeConfig ``spec.kubelet`` the pool's nodes get: ``{config?, flags?}`` without the
    taints and labels (``registerWithTaints``, ``--register-with-taints``, ``--node-labels``),
    which the node group declares merged with the pool's own (EKS registers the nodes with the
    node group's taints and labels: EKS user guide launch-templates). ``{}`` when nothing is left."""
    kubelet = getattr(pool, "kubelet", None)
    if kubelet is None:
        return {}
    spec: dict[str, Any] = {}
    config = {k: v for k, v in (kubelet.config or {}).items() if k != "registerWithTaints"}
    if config:
        spec["config"] = config
    flags = [f for f in kubelet.flags or [] if not registration_flag(f)]
    if flags:
        spec["flags"] = flags
    return spec


def user_data(pool: Any) -> str | None:
    """The MIME user data carrying the pool's ``kubelet`` settings (:func:`kubelet_settings`) as one
    NodeConfig part, or None when there are none."""
    spec = kubelet_settings(pool)
    if not spec:
        return None
    return nodeadm_mime(block_yaml({"apiVersion": NODEADM_API_VERSION, "kind": "NodeConfig", "spec": {"kubelet": spec}}))
