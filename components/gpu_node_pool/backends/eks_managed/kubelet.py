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
from contextvars import ContextVar
from typing import Any

from pydantic import Field, ModelWrapValidatorHandler, field_validator, model_validator

from ...config.common import Model, fail
from ...config.defaults import DEFAULT_TAINT
from ...config.errors import fail_per_key
from ...k8s.taints import Taint, TaintEffect, TaintError
from ...text.terminal import shown
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
#: The flag names (``--name``) of the ``kubelet.flags`` beside the ``config`` being validated: a flag sets its
#: field over every config file, so the rules between two fields judge against it (set by ``EksKubelet._flags_seen``).
_FLAGS_BESIDE: ContextVar[tuple[str, ...]] = ContextVar("flags_beside_kubelet_config", default=())
_DECLARED_FLAGS = (REGISTER_WITH_TAINTS_FLAG, NODE_LABELS_FLAG)


class EksKubelet(Model):
    """``kubelet``: ``{config: {maxPods: 110, systemReserved: {memory: 2Gi}}, flags: ["--v=2"]}`` (AL2023 pools).

    ``config``: KubeletConfiguration fields (camelCase, as the kubelet's config file takes them);
    ``flags``: extra kubelet flags, each ``--name[=value]``. Taints and labels given here
    (``config.registerWithTaints``: a list of ``{key, value, effect}``, Kubernetes effects;
    ``--register-with-taints=key=value:Effect,...``; ``--node-labels=key=value,...``: the kubelet
    flag reference https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/) join
    the pool's ``taints``/``labels`` on the node group; one that disagrees with them is refused.

    Raises, for ``config``, every problem at once (one at its own path ``kubelet.config.<path>``,
    several at ``kubelet.config``, each sentence naming its path): a key that is not
    ``registerWithTaints`` but spells it otherwise, or ``nodeLabels`` (no such field); a text holding a
    control character; a ``registerWithTaints`` that is not a list of taints that parse; a value of
    another JSON type than its field's (``maxPods: "110"``, ``systemReserved: 2Gi``,
    ``evictionHard: {memory.available: 5000000000}``: a map of texts), a malformed duration or
    quantity, a number out of its field's range (int32 or int64): the kubelet would not decode its
    config file and would not start (the field table and what is and is not judged:
    :mod:`gpu_node_pool.backends._shared.kubelet_config_fields`); a value of the right type the kubelet
    refuses at start (``systemReserved: {gpu: '1'}``, ``evictionHard: {memory.available: 500MB}``,
    ``cpuManagerPolicy: Static``, ``shutdownGracePeriodCriticalPods`` above ``shutdownGracePeriod`` or, left
    out, above the kubelet's 0: a field the fragment leaves out is judged at the value the kubelet runs with,
    and a rule a flag in ``flags`` takes part in is not judged; the rules, their sources and what is not
    judged: :mod:`gpu_node_pool.backends._shared.kubelet_config_rules`).
    A key that is no KubeletConfiguration field is a warning (:func:`config_warnings`), not an error,
    whatever its value: the kubelet skips it; ``flags`` there is told it belongs under ``kubelet.flags``.
    For ``flags`` (at ``kubelet.flags`` or ``kubelet.flags[N]``): a flag holding a newline or another
    control character, a flag that is not ``--name[=value]``, a registration flag without ``=``, a taint
    or label that does not parse."""

    yaml_example = "{config: {maxPods: 110}, flags: ['--v=2']}"

    config: dict[str, Any] | None = Field(None, description="KubeletConfiguration fields, e.g. {maxPods: 110}.")
    flags: list[str] | None = Field(None, min_length=1, description="Extra kubelet flags, e.g. ['--v=2'].")

    @model_validator(mode="wrap")
    @classmethod
    def _flags_seen(cls, data: Any, handler: ModelWrapValidatorHandler[EksKubelet]) -> EksKubelet:
        """Validates with the names of the flags given beside ``config`` known to its validator."""
        flags = data.get("flags") if isinstance(data, dict) else None
        names = tuple(f.partition("=")[0] for f in flags if isinstance(f, str)) if isinstance(flags, list) else ()
        token = _FLAGS_BESIDE.set(names)
        try:
            return handler(data)
        finally:
            _FLAGS_BESIDE.reset(token)

    @field_validator("config")
    @classmethod
    def _config(cls, config: dict[str, Any] | None) -> dict[str, Any] | None:
        problems = _config_problems(config or {}, _FLAGS_BESIDE.get())
        if len(problems) == 1:
            raise fail(problems[0][1], problems[0][0])
        if problems:
            from .._shared.kubelet_config_fields import dotted

            raise fail_per_key([(path, f"{dotted(path)}: {message}") for path, message in problems])
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


def _config_problems(config: dict[str, Any], flags: tuple[str, ...] = ()) -> list[tuple[tuple[str | int, ...], str]]:
    """Every reason the ``config`` fragment cannot reach a kubelet as written, given the names of the
    ``kubelet.flags`` beside it (``flags``: a flag sets its field over the config), as ``(path under config,
    sentence)`` in key order: a misspelt registration key (:func:`_misspelt_registration_keys`), a text
    with a control character (:func:`_control_characters`), a ``registerWithTaints`` that is not a list
    of taints, and each error of the field table and of the kubelet's start-up rules
    (:func:`~gpu_node_pool.backends._shared.kubelet_config_rules.judge`: types, ranges per field,
    durations, quantities, reservable resources, eviction signals and thresholds, enum values, rules
    between fields), but none at a value already refused for a control character. Unknown keys are
    warnings (:func:`config_warnings`), not problems."""
    problems = [*_misspelt_registration_keys(config), *_control_characters(config)]
    if "registerWithTaints" in config:
        items = config["registerWithTaints"]
        if not isinstance(items, list):
            problems.append((("registerWithTaints",), (
                f"{shown(flow_yaml(items), quote=False)} is not a list of taints; "
                f"write [{flow_yaml(DEFAULT_TAINT.to_k8s())}] (k8s.io/kubelet config/v1beta1 registerWithTaints), "
                "or use the pool's taints")))
        else:
            for i, item in enumerate(items):
                try:
                    Taint.from_k8s(item)
                except TaintError as err:
                    problems.append((("registerWithTaints", i), f"{err} (a core/v1 Taint with a Kubernetes effect: "
                                                               f"{', '.join(e.value for e in TaintEffect)})"))
    if not config:
        return problems
    from .._shared.kubelet_config_rules import judge  # the field table and start-up rules: only for a config given

    control = {path for path, _ in problems}
    problems += [(f.path, f.message) for f in judge(config, flags) if f.severity == "error" and f.path not in control]
    return problems


def _misspelt_registration_keys(config: dict[str, Any]) -> list[tuple[tuple[str | int, ...], str]]:
    """``(path, why)`` for each ``config`` key that looks like taints or labels but is no
    KubeletConfiguration field: ``registerWithTaints`` in another case or with dashes, or ``nodeLabels``
    (labels have no config field, only the ``--node-labels`` flag). Such a key is not read as the pool's
    taints or labels, so the node group, the autoscaler tags and the plan would not know them
    (k8s.io/kubelet config/v1beta1 types.go)."""
    out: list[tuple[tuple[str | int, ...], str]] = []
    for key in config:
        plain = str(key).replace("-", "").replace("_", "").lower()
        if plain == "registerwithtaints" and key != "registerWithTaints":
            out.append(((str(key),), f"the KubeletConfiguration field is registerWithTaints, spelt so "
                                      f"({_CONFIG_REFERENCE}); write registerWithTaints, or use the pool's taints"))
        elif plain == "nodelabels":
            out.append(((str(key),), f"KubeletConfiguration has no field for node labels ({_CONFIG_REFERENCE}); "
                                      "labels are the kubelet's --node-labels flag: use the pool's labels, or "
                                      "flags: ['--node-labels=key=value']"))
    return out


def _control_characters(value: Any, path: tuple[str | int, ...] = ()) -> list[tuple[tuple[str | int, ...], str]]:
    """``(path, why)`` for each text in the fragment that holds a control character (C0 or DEL), known
    field or not: no kubelet setting takes one, and nodeadm writes the fragment to the node as it is
    (awslabs/amazon-eks-ami nodeadm/internal/kubelet/config.go@v20260724, writeKubeletConfig). A number's range is the field table's
    to judge, per field (:mod:`gpu_node_pool.backends._shared.kubelet_config_fields`)."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _control_characters(v, (*path, str(k)))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _control_characters(v, (*path, i))]
    if isinstance(value, str) and any(ord(c) < 32 or ord(c) == 127 for c in value):
        return [(path, f"{value!r} holds a control character, which no kubelet setting takes; write the plain value")]
    return []


def config_warnings(pool: Any) -> list[tuple[str, str]]:
    """``[(sub-path, message)]`` for the pool's ``kubelet.config``: each key that is no field of its
    KubeletConfiguration object (``kubelet.config.maxPod``: the kubelet skips it, so it may do
    nothing; with the nearest field name; ``flags`` is told it belongs under ``kubelet.flags``), each
    value the kubelet takes but that is likely a slip (``memory: 500m``, a threshold it ignores), and
    each object or value not judged (``logging``, ``tracing``, ``swap.available``). Their errors are
    refused by :class:`EksKubelet` instead. Source:
    :mod:`gpu_node_pool.backends._shared.kubelet_config_rules`."""
    kubelet = getattr(pool, "kubelet", None)
    config = getattr(kubelet, "config", None) or {}
    if not config:
        return []
    from .._shared.kubelet_config_fields import dotted
    from .._shared.kubelet_config_rules import judge  # the field table and start-up rules: only for a config given

    flags = tuple(f.partition("=")[0] for f in getattr(kubelet, "flags", None) or [])
    out = []
    for finding in judge(config, flags):
        if finding.severity == "error":
            continue
        message = finding.message
        if finding.path == ("flags",):
            given = config["flags"]
            flags = (flow_yaml(given) if isinstance(given, list) and given and all(isinstance(f, str) for f in given)
                     else "['--name=value']")  # only a list of flags is worth writing back
            message = (f"flags belongs under kubelet, not kubelet.config: write kubelet: {{config: {{...}}, flags: "
                       f"{flags}}} (nodeadm NodeConfig spec.kubelet.flags); "
                       "KubeletConfiguration has no field 'flags', so the kubelet skips it and these flags are not applied")
        out.append((f"kubelet.config.{dotted(finding.path)}", message))
    return out


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
