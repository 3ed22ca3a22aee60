"""The API server's rules for one toleration, defined once: :func:`broken_toleration_rule` answers the first rule a
decoded toleration breaks as a :class:`TolerationRefusal` (field, value, rule, fix), and both readers of a
toleration use it: :class:`gpu_node_pool.k8s.taints.Toleration` raises it as a ``TaintError``, and
:func:`gpu_node_pool.k8s.refusals.toleration_refusal` names it for a pod spec the API server refuses. Also the
operators' names and the readings the rules share (:func:`decimal_integer`, :func:`whole_seconds`). Part of
:mod:`gpu_node_pool.k8s.taints`, which re-exports what callers use.

Sources:
  * ``ValidateTolerations`` and ``validateTaintEffect``, kubernetes ``pkg/apis/core/validation/validation.go``
    at commit ``000f26050b9be6fb3d79fae95e06b47fc96128cd``: a non-empty key is a
    qualified name (``ValidateLabelName``); an empty key needs the operator ``Exists``; ``tolerationSeconds``
    needs the effect ``NoExecute``; the operator ``Equal`` or empty takes a label value (``IsValidLabelValue``),
    ``Exists`` no value, and any other operator is not supported; a non-empty effect is ``NoSchedule``,
    ``PreferNoSchedule`` or ``NoExecute``.
  * ``Gt`` and ``Lt``: that commit knows only ``Equal`` and ``Exists``; Kubernetes 1.35 accepts ``Gt``/``Lt``
    with the alpha feature gate ``TaintTolerationComparisonOperators`` on, their value a decimal integer that
    fits 64 bits (KEP-5471,
    https://github.com/kubernetes/enhancements/tree/master/keps/sig-scheduling/5471-enable-sla-based-scheduling;
    ``content.IsDecimalInteger`` and ``compareNumericValues`` of ``k8s.io/api/core/v1/toleration.go``@v1.35.0).
    The rules judge them as on such a cluster; callers that know the cluster's version refuse them below 1.35
    (:mod:`gpu_node_pool.config.tolerations`; :func:`numeric_operator_refusal` for a pod spec's).

Decoding comes first and is each reader's (their messages differ: a config value, a pod spec's JSON): both refuse
a key, operator, value or effect that is no string (null reads as empty) and a ``tolerationSeconds`` that
:func:`whole_seconds` does not read. One decoding rule is shared, and named first by :func:`broken_toleration_rule`:
``tolerationSeconds`` is an ``*int64`` (``Toleration.TolerationSeconds``, ``k8s.io/api`` ``core/v1/types.go``), so a
whole number past the int64 range (:mod:`gpu_node_pool.k8s.integers`) is refused by the API server's JSON decoder
before any validation ("cannot unmarshal number 9223372036854775808 into Go struct field ... of type int64", Go
``encoding/json``, https://pkg.go.dev/encoding/json#Unmarshal: "If a JSON value is not appropriate for a given
target type, or if a JSON number overflows the target type, Unmarshal skips that field ... and returns an
UnmarshalTypeError").

The API server reports every rule broken; :func:`broken_toleration_rule` names the first in its own order, the
operator first (once it is right, the rules that depend on it make sense). Whether a toleration is refused is
the same in either order.

A key that is none of the fields of ``Toleration`` (:data:`TOLERATION_FIELDS`: ``key``, ``operator``, ``value``,
``effect``, ``tolerationSeconds``; https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#scheduling)
is no rule broken: the API server's default field validation (``Warn``) drops it with a warning and keeps the rest of
the toleration, ``Strict`` (``kubectl apply``'s default, ``--validate=strict``) refuses the object
(https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation). :func:`unknown_toleration_fields`
names each such key, for a message to carry beside its verdict.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..text.suggest import closest
from ..text.terminal import shown
from .effects import EFFECT_SPELLINGS, TaintEffect
from .go_numbers import JSON_EXPONENT_FROM
from .integers import INT64_MAX, INT64_MIN, in_int64
from .names import label_value_problem, qualified_name_problem
from .patterns import full_match

__all__ = [
    "NUMERIC_TOLERATION_OPERATORS",
    "TOLERATION_OPERATORS",
    "NUMERIC_OPERATORS_MIN_VERSION",
    "NUMERIC_OPERATORS_GATE",
    "TOLERATIONS_SOURCE",
    "TOLERATION_SECONDS_SOURCE",
    "HELM_FLOAT_VALUES",
    "NUMERIC_OPERATORS_SOURCE",
    "TolerationRefusal",
    "broken_toleration_rule",
    "numeric_operator_refusal",
    "meant_toleration_operator",
    "decimal_integer",
    "whole_seconds",
    "seconds_range_refusal",
    "TOLERATION_FIELDS",
    "FIELD_VALIDATION_SOURCE",
    "unknown_toleration_fields",
]

#: Where the rules of :func:`broken_toleration_rule` are written (the module docstring has the commit).
TOLERATIONS_SOURCE = "ValidateTolerations, kubernetes pkg/apis/core/validation/validation.go"
#: Where ``tolerationSeconds``'s type is written, and who refuses a number past it.
TOLERATION_SECONDS_SOURCE = ("Toleration.TolerationSeconds is *int64, k8s.io/api core/v1/types.go; the API "
                             "server's JSON decoder refuses a number past it: \"cannot unmarshal number ... of type "
                             "int64\", https://pkg.go.dev/encoding/json#Unmarshal")
#: Why a whole number of 1e21 or more reaches a manifest in exponent form (``1e+26``) when it comes from Helm values.
HELM_FLOAT_VALUES = (
    "if it comes from a chart's values: Helm holds every number of a chart's values as a float64 (the values are read with sigs.k8s.io/yaml into "
    "interface{} through encoding/json: helm/helm pkg/chart/v2/loader/load.go@v4.1.4, LoadValues; the provider's "
    "pulumi/pulumi-kubernetes provider/pkg/helm/values.go@v4.32.0 alike), and a template's toYaml writes a float64 "
    "of 1e21 or more in exponent form (helm/helm pkg/engine/funcs.go@v4.1.4, toYAML: sigs.k8s.io/yaml, whose "
    "encoding/json writes such floats as 1e+21, https://pkg.go.dev/encoding/json#Marshal), so 100000000000000000000000000 "
    "in a values file reaches the manifest as 1e+26, a number past int64")

#: ``Gt`` and ``Lt`` compare the taint's value with the toleration's as 64-bit integers.
NUMERIC_TOLERATION_OPERATORS = ("Gt", "Lt")
TOLERATION_OPERATORS = ("Equal", "Exists", *NUMERIC_TOLERATION_OPERATORS)
#: The first Kubernetes minor that serves ``Gt``/``Lt`` (alpha), and the gate that must be on.
NUMERIC_OPERATORS_MIN_VERSION = (1, 35)
NUMERIC_OPERATORS_GATE = "TaintTolerationComparisonOperators"
#: Where ``Gt``/``Lt``, their first version and their gate are written.
NUMERIC_OPERATORS_SOURCE = ("KEP-5471, https://github.com/kubernetes/enhancements/tree/master/keps/sig-scheduling/"
                            "5471-enable-sla-based-scheduling")


def meant_toleration_operator(spelling: Any) -> str | None:
    """The toleration operator (one of :data:`TOLERATION_OPERATORS`) a wrong spelling most likely means, or None:
    another case (``exists``, ``EQUAL``) or a close typo (``Exsits``). None for a right spelling too."""
    if not isinstance(spelling, str) or spelling in TOLERATION_OPERATORS:
        return None
    for operator in TOLERATION_OPERATORS:
        if operator.lower() == spelling.lower():
            return operator
    words = [o for o in TOLERATION_OPERATORS if o not in NUMERIC_TOLERATION_OPERATORS]  # Gt/Lt: too short to guess
    close = closest(spelling.lower(), [o.lower() for o in words], cutoff=0.75)
    return next((o for o in words if o.lower() == close), None) if close else None


# k8s.io/apimachinery/pkg/api/validate/content IsDecimalInteger: an optional "-", then "0" or a
# digit 1-9 and more digits; no "+", no leading zero, no "-0", ASCII digits only.
_DECIMAL_INTEGER_RE = re.compile(r"^(0|-?[1-9][0-9]*)$")
#: 19 digits and a sign: the longest text an int64 can have; longer is refused before int().
_INT64_MAX_CHARS = 20


def decimal_integer(text: Any) -> int | None:
    """``text`` as a signed 64-bit integer the way the numeric toleration operators read it, or None.

    Accepted: ``"0"``, ``"5"``, ``"-5"``, ``"9223372036854775807"``. Refused (None): ``""``,
    ``"-"``, ``"+5"``, ``"0100"``, ``"-0"``, ``"100.5"``, ``" 200 "``, non-ASCII digits, and
    anything outside ``[-2**63, 2**63-1]`` (``content.IsDecimalInteger`` then
    ``strconv.ParseInt(v, 10, 64)``, as ``compareNumericValues`` does).
    """
    if not isinstance(text, str) or len(text) > _INT64_MAX_CHARS or not full_match(_DECIMAL_INTEGER_RE, text):
        return None
    number = int(text)
    return number if in_int64(number) else None


def whole_seconds(seconds: Any) -> int | float | None:
    """``tolerationSeconds`` as the integer the API server stores (``core/v1`` ``Toleration.TolerationSeconds``,
    ``*int64``), or None when it is no integer: an int, or a float with no fraction, never a boolean. ``300.0`` is
    what a Pulumi preview holds for ``300`` (protobuf ``Value`` numbers are doubles), and a client sends it as
    ``300`` (Go's ``encoding/json`` writes the float64 300 so), which the API server decodes. A whole float past
    the int64 range (``1e+26``) is returned as it is, for :func:`broken_toleration_rule` to refuse as written."""
    if isinstance(seconds, bool):
        return None
    if isinstance(seconds, int):
        return seconds
    if isinstance(seconds, float) and seconds.is_integer():
        return int(seconds) if _fits_int64(seconds) else seconds
    return None


@dataclass(frozen=True)
class TolerationRefusal:
    """One ``ValidateTolerations`` rule a toleration breaks.

    Attributes:
        field: the ``core/v1`` ``Toleration`` field named (``key``, ``operator``, ``value``, ``effect``,
            ``tolerationSeconds``).
        value: that field's value as read (``""`` for an empty string field, an int for ``tolerationSeconds``).
        rule: what the field must be, e.g. ``must be empty when operator is Exists (Exists matches every value)``.
        fix: what to write instead, e.g. ``write Exists``.
    """

    field: str
    value: Any
    rule: str
    fix: str
    #: who writes the rule: :data:`TOLERATIONS_SOURCE`, or :data:`TOLERATION_SECONDS_SOURCE` for its range.
    source: str = TOLERATIONS_SOURCE


_WORD_OPERATORS = [o for o in TOLERATION_OPERATORS if o not in NUMERIC_TOLERATION_OPERATORS]
_OPERATORS_RULE = (f"must be {' or '.join(_WORD_OPERATORS)} ({' and '.join(NUMERIC_TOLERATION_OPERATORS)} only on "
                   f"Kubernetes 1.35+ with the alpha feature gate {NUMERIC_OPERATORS_GATE} on)")
_NO_EXECUTE = TaintEffect.NO_EXECUTE.value


def broken_toleration_rule(key: str, operator: str, value: str, effect: str,
                           seconds: int | float | None = None) -> TolerationRefusal | None:
    """The first rule of ``ValidateTolerations`` (the module docstring) a decoded toleration breaks, or None.

    Args:
        key, operator, value, effect: the strings of the toleration, ``""`` when absent or null; an empty operator
            means ``Equal``, an empty effect every effect. A :class:`~gpu_node_pool.k8s.effects.TaintEffect` is
            read as its spelling.
        seconds: ``tolerationSeconds`` (:func:`whole_seconds`), None when absent.

    The rules, in the order they are named: ``tolerationSeconds`` fits an int64 (a decoding rule, so first; a float
    past it, as Helm writes a big values number, says so: :data:`HELM_FLOAT_VALUES`); the operator is ``Equal``, ``Exists`` (``Gt``/``Lt`` with the alpha
    gate, :data:`NUMERIC_TOLERATION_OPERATORS`) or empty; ``Exists`` carries no value; ``Gt``/``Lt``'s value is a
    decimal integer (:func:`decimal_integer`); ``Equal``'s value is a label value; an empty key needs ``Exists``;
    a key is a qualified name; the effect is empty or one of :class:`~gpu_node_pool.k8s.effects.TaintEffect`; and
    ``tolerationSeconds`` needs the effect ``NoExecute``.
    """
    effect = effect.value if isinstance(effect, TaintEffect) else effect
    past = seconds_range_refusal(seconds)
    if past is not None:
        return past
    if operator and operator not in TOLERATION_OPERATORS:
        meant = meant_toleration_operator(operator)
        return TolerationRefusal("operator", operator, _OPERATORS_RULE,
                                 f"write {meant}" if meant else f"write {' or '.join(_WORD_OPERATORS)}")
    if operator == "Exists" and value:
        return TolerationRefusal("value", value, "must be empty when operator is Exists (Exists matches every value)",
                                 "drop the value, or use operator Equal to match only that value")
    if operator in NUMERIC_TOLERATION_OPERATORS and decimal_integer(value) is None:
        return TolerationRefusal("value", value,
                                 f"must be a decimal integer fitting 64 bits with operator {operator} (KEP-5471)",
                                 "write a whole number such as '950' or '-5' (no '+', leading zero or decimal point)")
    if operator in ("", "Equal") and value:
        problem = label_value_problem(value)
        if problem:
            return TolerationRefusal("value", value, f"{problem} (a toleration's value is a label value)",
                                     "write the taint's value")
    if not key and operator != "Exists":
        return TolerationRefusal("operator", operator, "must be Exists when key is empty (an empty key with Exists "
                                 "matches every taint; empty means Equal)",
                                 "give the taint's key, or use operator Exists to tolerate every taint")
    if key:
        problem = qualified_name_problem(key)
        if problem:
            return TolerationRefusal("key", key, f"{problem} (a toleration's key is a taint key)", "write the taint's key")
    if effect and effect not in EFFECT_SPELLINGS:
        meant = TaintEffect.meant(effect)
        return TolerationRefusal("effect", effect, f"must be empty (every effect) or one of {', '.join(EFFECT_SPELLINGS)}",
                                 f"write {meant.value}" if meant else "write one of them, or leave it empty to match every effect")
    if seconds is not None and effect != _NO_EXECUTE:
        found = shown(effect) if effect else "an empty effect"
        return TolerationRefusal("tolerationSeconds", seconds, f"needs the effect {_NO_EXECUTE}, not {found} (it says how "
                                 f"long a pod stays once a {_NO_EXECUTE} taint appears)",
                                 f"set effect {_NO_EXECUTE}, or drop tolerationSeconds")
    return None


def numeric_operator_refusal(operator: Any, version: str, declared_by: str = "") -> TolerationRefusal | None:
    """The refusal of a ``Gt``/``Lt`` operator (:data:`NUMERIC_TOLERATION_OPERATORS`) on a cluster of Kubernetes
    ``version`` (``"1.33"``, a minor version) below :data:`NUMERIC_OPERATORS_MIN_VERSION`, whose API server knows only
    ``Equal`` and ``Exists`` (:data:`NUMERIC_OPERATORS_SOURCE`); None for any other operator, or a version that is
    1.35 or later or no minor version (``declared_by`` says who declares the version, e.g. ``GpuNodePool 'gpu'``).

    The rule names the version and who declares it; the fix: remove the toleration or use ``Equal``/``Exists``, or
    on 1.35+ turn the gate :data:`NUMERIC_OPERATORS_GATE` on.
    """
    if operator not in NUMERIC_TOLERATION_OPERATORS:
        return None
    parts = str(version).split(".")
    if len(parts) < 2 or not all(p.isascii() and p.isdigit() for p in parts[:2]):
        return None
    if (int(parts[0]), int(parts[1])) >= NUMERIC_OPERATORS_MIN_VERSION:
        return None
    least = ".".join(str(p) for p in NUMERIC_OPERATORS_MIN_VERSION)
    who = f" ({declared_by})" if declared_by else ""
    return TolerationRefusal(
        "operator", operator,
        f"needs Kubernetes {least}+ with the alpha feature gate {NUMERIC_OPERATORS_GATE} on, but the cluster is "
        f"Kubernetes {version}{who}, whose API server knows only {' and '.join(_WORD_OPERATORS)}",
        f"remove this toleration, or use operator {' or '.join(_WORD_OPERATORS)}; on Kubernetes {least}+ turn the "
        f"feature gate {NUMERIC_OPERATORS_GATE} on", source=NUMERIC_OPERATORS_SOURCE)


def _fits_int64(seconds: int | float) -> bool:
    """Whether ``seconds`` is in the int64 range (a float compared exactly, never rounded into it)."""
    try:
        return in_int64(int(seconds))
    except (OverflowError, ValueError):  # inf, nan
        return False


def seconds_range_refusal(seconds: Any) -> TolerationRefusal | None:
    """The refusal of a whole ``tolerationSeconds`` past the int64 range (``seconds`` as :func:`whole_seconds`
    reads it: an int, or a whole float kept as written), or None for any other value: the rule's field, value,
    bounds (from :mod:`gpu_node_pool.k8s.integers`), fix and source (:data:`TOLERATION_SECONDS_SOURCE`); a float of
    1e21 or more also says how Helm makes one of a big values number (:data:`HELM_FLOAT_VALUES`)."""
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or _fits_int64(seconds):
        return None
    helm = f"; {HELM_FLOAT_VALUES}" if isinstance(seconds, float) and abs(seconds) >= JSON_EXPONENT_FROM else ""
    return TolerationRefusal(
        "tolerationSeconds", seconds,
        f"must fit an int64 ({INT64_MIN} to {INT64_MAX} seconds){helm}",
        f"write at most {INT64_MAX} seconds (292 billion years), or drop tolerationSeconds to tolerate the taint "
        "for ever", source=TOLERATION_SECONDS_SOURCE)


#: The JSON fields of ``core/v1`` ``Toleration``, in the API reference's order
#: (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#scheduling); the names are
#: matched exactly (``Operator`` is no field).
TOLERATION_FIELDS = ("key", "operator", "value", "effect", "tolerationSeconds")
#: Where what the API server does with a field it does not know is written.
FIELD_VALIDATION_SOURCE = "https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation"
#: What a toleration without the field means, said when a misspelling of it leaves the field out.
_ABSENT_MEANS = {
    "key": "no key, which only operator Exists may have (and then it tolerates every taint)",
    "operator": "no operator, which means operator Equal",
    "value": 'no value, which means the value ""',
    "effect": "no effect, which means every effect",
    "tolerationSeconds": f"no tolerationSeconds, which means it tolerates a {_NO_EXECUTE} taint for ever",
}
_PLAIN_SCALAR = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")


def _meant_field(name: Any) -> str | None:
    """The :data:`TOLERATION_FIELDS` name a key that is none of them most likely means (another case first, then
    the closest spelling, :func:`gpu_node_pool.text.suggest.closest`), or None."""
    if not isinstance(name, str):
        return None
    for field in TOLERATION_FIELDS:
        if field.lower() == name.lower():
            return field
    close = closest(name.lower(), [f.lower() for f in TOLERATION_FIELDS])
    return next((f for f in TOLERATION_FIELDS if f.lower() == close), None) if close else None


def _yaml_scalar(value: Any) -> str:
    """``value`` as written after ``field:`` in a manifest's YAML: a plain word as it is (``Exists``), any other
    string quoted, a number or boolean as JSON writes it."""
    if isinstance(value, str):
        return value if full_match(_PLAIN_SCALAR, value) and value not in ("true", "false", "null") else shown(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return shown(value, quote=False)


def unknown_toleration_fields(toleration: Any, where: str = "toleration") -> list[str]:
    """One sentence per key of ``toleration`` (a ``core/v1`` Toleration object, an item of a pod spec's
    ``tolerations``) that is no field of ``Toleration`` (:data:`TOLERATION_FIELDS`), in the object's order; ``[]``
    for a toleration of known fields only, or for anything that is no mapping (the refusals say what that is).

    Each reads ``<where>.<key> (<value>) is not a field of Toleration (key, operator, value, effect,
    tolerationSeconds); did you mean <field>? ...``, then what the API server does with it (dropped with a warning
    under its default field validation, ``Warn``, so the toleration is judged without it, and the object refused
    under ``Strict``, ``kubectl apply``'s default: :data:`FIELD_VALIDATION_SOURCE`), what the missing field then
    means, and the fix: ``write operator: Exists`` for a misspelt field the toleration lacks, ``drop opertor`` when
    it has that field too, or ``drop it`` when no field is close. E.g. ``{key: nvidia.com/gpu, opertor: Exists}`` at
    ``tolerations[0]`` gives one sentence starting ``tolerations[0].opertor ('Exists') is not a field of
    Toleration``.

    Such a key is no refusal by the default validation, so it is kept apart from
    :func:`broken_toleration_rule`'s answers: a caller shows it as a note on its verdict of the toleration.
    """
    if not isinstance(toleration, Mapping):
        return []
    notes = []
    for name, value in toleration.items():
        if name in TOLERATION_FIELDS:
            continue
        label = name if isinstance(name, str) else shown(name)
        meant = _meant_field(name)
        guess = f"; did you mean {meant}?" if meant else "."
        if meant is None:
            fix, left = f"drop {label}, or write the field meant ({', '.join(TOLERATION_FIELDS)})", ""
        elif meant in toleration:
            fix, left = f"drop {label} ({meant} is already set)", ""
        else:
            fix, left = f"write {meant}: {_yaml_scalar(value)}", f": this toleration then has {_ABSENT_MEANS[meant]}"
        notes.append(
            f"{where}.{label} ({shown(value)}) is not a field of Toleration ({', '.join(TOLERATION_FIELDS)}){guess} "
            f"The API server drops it under its default field validation (Warn: a warning, and the object is created "
            f"without it, as judged here{left}) and refuses the whole object under Strict (kubectl apply's default, "
            f"--validate=strict): {FIELD_VALIDATION_SOURCE}; fix: {fix}")
    return notes
