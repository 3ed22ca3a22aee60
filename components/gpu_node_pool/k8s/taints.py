"""Taints and tolerations: the one place that knows their shape, spellings and matching (with the
modules it re-exports: ``effects.py`` for effects and their spellings, ``names.py`` for key and value
syntax, ``toleration_rules.py`` for the API server's rules of a toleration; ``effective.py`` for what
the cluster adds).

Everything else in gpu-node-pools goes through this module to parse a taint, spell an effect for a
provider API, decide whether a toleration tolerates a taint, or add what the cluster adds.

Sources:
  * Kubernetes API: ``core/v1`` ``Taint`` and ``Toleration``
    (https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/node-v1/#NodeSpec,
    https://kubernetes.io/docs/reference/kubernetes-api/definitions/toleration-v1/).
  * Matching: ``k8s.io/api/core/v1/toleration.go`` ``(*Toleration).ToleratesTaint`` and
    ``k8s.io/component-helpers/scheduling/corev1/helpers.go`` ``FindMatchingUntoleratedTaint``.
  * The numeric operators ``Gt`` and ``Lt``: alpha in Kubernetes 1.35 behind the feature gate
    ``TaintTolerationComparisonOperators`` (off by default), KEP-5471
    (https://github.com/kubernetes/enhancements/tree/master/keps/sig-scheduling/5471-enable-sla-based-scheduling);
    matching in ``compareNumericValues`` of ``k8s.io/api/core/v1/toleration.go`` (kubernetes/kubernetes
    ``staging/src/k8s.io/api/core/v1/toleration.go``@v1.35.0).
  * Key and value syntax: ``k8s.io/apimachinery/pkg/util/validation`` ``IsQualifiedName``
    and ``IsValidLabelValue`` (also used by ``kubectl taint``).
  * EKS and GKE spell effects ``NO_SCHEDULE`` / ``PREFER_NO_SCHEDULE`` / ``NO_EXECUTE``
    (https://docs.aws.amazon.com/eks/latest/APIReference/API_Taint.html; pulumi_gcp
    ``NodePoolNodeConfigTaintArgs``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# Effects, name syntax and the toleration rules live in effects.py, names.py and toleration_rules.py;
# re-exported here, so that this stays the one import for taints.
from ..text.terminal import shown
from .effects import EFFECT_RULE, EFFECT_SPELLINGS, TaintEffect, TaintError
from .names import (
    DNS1123_SUBDOMAIN_MAX,
    LABEL_VALUE_MAX,
    QUALIFIED_NAME_MAX,
    label_value_problem,
    qualified_name_problem,
)
from .toleration_rules import (
    NUMERIC_OPERATORS_GATE,
    NUMERIC_OPERATORS_MIN_VERSION,
    NUMERIC_TOLERATION_OPERATORS,
    TOLERATION_OPERATORS,
    TolerationRefusal,
    broken_toleration_rule,
    decimal_integer,
    meant_toleration_operator,
    whole_seconds,
)
from .wellknown import NVIDIA_GPU_RESOURCE

__all__ = [
    "TaintError",
    "TaintEffect",
    "Taint",
    "Toleration",
    "tolerates",
    "toleration_from_k8s",
    "tolerations_tolerate_taint",
    "untolerated_taints",
    "find_duplicate_taints",
    "nodepool_taint_repeats",
    "nodepool_taint_repeat_problem",
    "NODEPOOL_TAINT_REPEAT_SOURCE",
    "nodepool_permanent_startup_taints",
    "k8s_taint_problems",
    "K8sTaintError",
    "K8S_TAINT_FORM",
    "NODEPOOL_PERMANENT_STARTUP_TAINT_SOURCE",
    "split_kubelet_form",
    "qualified_name_problem",
    "label_value_problem",
    "QUALIFIED_NAME_MAX",
    "DNS1123_SUBDOMAIN_MAX",
    "LABEL_VALUE_MAX",
    "TOLERATION_OPERATORS",
    "NUMERIC_TOLERATION_OPERATORS",
    "NUMERIC_OPERATORS_MIN_VERSION",
    "NUMERIC_OPERATORS_GATE",
    "meant_toleration_operator",
    "decimal_integer",
    "whole_seconds",
    "TolerationRefusal",
    "broken_toleration_rule",
    "compare_numeric",
    "PLATFORMS",
    "EXTENDED_RESOURCE_TOLERATION",
    "DAEMONSET_CONTROLLER_TOLERATIONS",
    "HOST_NETWORK_DAEMON_TOLERATIONS",
    "is_extended_resource_name",
    "requested_extended_resources",
    "implied_tolerations",
    "effective_tolerations",
]


# --- taints -----------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Taint:
    """A node taint ``key[=value]:Effect``, validated on construction.

    Attributes:
        key: a qualified name (``[DNS-subdomain prefix/]name``; prefix up to 253 characters,
            name up to 63), e.g. ``nvidia.com/gpu``.
        value: a label value (up to 63 characters, may be empty), e.g. ``present``.
        effect: the :class:`TaintEffect`.

    The identity of a taint is ``(key, effect)``: a node (and a pool) carries at most one
    taint per identity (Kubernetes rejects duplicates on a Node; GKE and Karpenter too).

    Raises:
        TaintError: on construction, for a key, value or effect Kubernetes would reject.
    """

    key: str
    value: str = ""
    effect: TaintEffect = TaintEffect.NO_SCHEDULE

    def __post_init__(self) -> None:
        problem = qualified_name_problem(self.key)
        if problem:
            raise TaintError(f"taint key {shown(self.key)} {problem}")
        problem = label_value_problem(self.value)
        if problem:
            raise TaintError(f"taint value {shown(self.value)} {problem}")
        object.__setattr__(self, "effect", TaintEffect.parse(self.effect))

    @property
    def identity(self) -> tuple[str, TaintEffect]:
        """``(key, effect)``: what makes two taints the same taint on one node."""
        return (self.key, self.effect)

    def __str__(self) -> str:
        """The kubelet/``kubectl taint`` form: ``key=value:Effect``, or ``key:Effect`` when the value is empty."""
        if self.value:
            return f"{self.key}={self.value}:{self.effect.value}"
        return f"{self.key}:{self.effect.value}"

    @classmethod
    def parse(cls, text: str) -> Taint:
        """Parse the kubelet form ``key=value:Effect`` or ``key:Effect``.

        Raises:
            TaintError: the text has no ``:Effect``, or a part is invalid.
        """
        key, value, effect = split_kubelet_form(text)
        return cls(key=key, value=value, effect=TaintEffect.parse(effect))

    # Kubernetes objects (NodePool, KubeletConfiguration, JoinConfiguration, Node) -------
    def to_k8s(self) -> dict[str, str]:
        """The Kubernetes ``core/v1`` Taint object: ``{key, value?, effect}`` (value omitted when empty)."""
        out = {"key": self.key}
        if self.value:
            out["value"] = self.value
        out["effect"] = self.effect.value
        return out

    @classmethod
    def from_k8s(cls, obj: Any, owner: str = "a core/v1 Taint") -> Taint:
        """Read a Kubernetes core/v1 Taint object ``{key, value?, effect}``, the one reader of the package, by the rules
        (and ``owner``) of :func:`k8s_taint_problems`: a value absent or null is empty, one of another type refused.

        Raises:
            K8sTaintError: every problem of ``obj``, each path-free (``taint value 0 is not a string ...``).
        """
        problems = k8s_taint_problems(obj, owner)
        if not isinstance(obj, Mapping):
            raise K8sTaintError(f"a taint must be an object with key, value, effect; got {shown(obj)}", problems=problems)
        if problems:
            raise K8sTaintError("; ".join(f"taint {p[1:]}" for p in problems), problems=problems)
        return cls(key=obj["key"], value=obj.get("value") or "", effect=obj["effect"])

    # EKS / GKE ----------------------------------------------------------------------------
    def to_provider(self) -> dict[str, str]:
        """The EKS ``NodeGroup.taints`` / GKE ``nodeConfig.taints`` item: ``{key, value, effect: NO_SCHEDULE...}``."""
        return {"key": self.key, "value": self.value, "effect": self.effect.provider_spelling}

    @classmethod
    def from_provider(cls, obj: Mapping[str, Any]) -> Taint:
        """Read an EKS/GKE taint item ``{key, value?, effect: NO_SCHEDULE...}``: key and value by the rules of a core/v1
        Taint (:func:`k8s_taint_problems`: a value absent or null is empty, one of another type refused, a key required).

        Raises:
            TaintError: not a mapping, every problem of its key and value (``taint value 0 is not a string ...``), or no EKS/GKE effect.
        """
        if not isinstance(obj, Mapping):
            raise TaintError(f"a taint must be an object with key, value, effect; got {shown(obj)}")
        if problems := k8s_taint_problems({**obj, "effect": TaintEffect.NO_SCHEDULE.value}, "an EKS/GKE taint"):
            raise TaintError("; ".join(f"taint {p[1:]}" for p in problems))
        return cls(key=obj["key"], value=obj.get("value") or "", effect=TaintEffect.from_provider(obj.get("effect", "")))


def split_kubelet_form(text: Any) -> tuple[str, str, str]:
    """Split ``key=value:Effect`` (or ``key:Effect``) into its raw parts, without validating them.

    Used where each part is validated separately (config errors point at ``.key``, ``.value``,
    ``.effect``); :meth:`Taint.parse` validates the result.

    Raises:
        TaintError: not a string, or no ``:Effect``.
    """
    if not isinstance(text, str):
        raise TaintError(f"a taint must be a string 'key=value:Effect', got {type(text).__name__}")
    head, sep, effect = text.rpartition(":")
    if not sep:
        raise TaintError(f"{shown(text)} has no effect; write key=value:Effect, e.g. nvidia.com/gpu=present:NoSchedule")
    if ":" in head:  # neither a key nor a value holds ':' (qualified name, label value)
        raise TaintError(f"{shown(text)} has more than one ':' (the kubelet's parseTaint, kubernetes pkg/util/taints/"
                         "taints.go, splits on ':' into two parts); write key=value:Effect, one ':' before the effect")
    key, _, value = head.partition("=")
    return key, value, effect


def find_duplicate_taints(taints: Iterable[Taint]) -> list[tuple[int, int, Taint]]:
    """Return ``(first_index, duplicate_index, taint)`` for every taint whose ``(key, effect)`` repeats.

    Kubernetes, GKE and Karpenter reject two taints with the same key and effect on one node
    (``duplicate taint Key/Effect pair``; GKE: ``Found more than one taint with key ... and effect``).
    """
    seen: dict[tuple[str, TaintEffect], int] = {}
    dups = []
    for i, taint in enumerate(taints):
        if taint.identity in seen:
            dups.append((seen[taint.identity], i, taint))
        else:
            seen[taint.identity] = i
    return dups


#: Who refuses a NodePool whose ``taints`` and ``startupTaints`` repeat a key and effect, and how.
NODEPOOL_TAINT_REPEAT_SOURCE = (
    "kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim_validation.go@v1.14.1 validateTaints (one key+effect set "
    "across taints then startupTaints), run by NodePool.RuntimeValidate: no CRD rule, so the API server takes the "
    "NodePool and Karpenter's nodepool.validation controller marks it not Ready (ValidationSucceeded=False) and "
    "launches no node for it"
)


def nodepool_taint_repeats(taints: Sequence[Taint], startup_taints: Sequence[Taint],
                           taints_at: str = "taints", startup_at: str = "startupTaints") -> list[str]:
    """Karpenter's rule of a NodePool's two taint lists: no key+effect twice, within ``taints``, within
    ``startupTaints``, nor in both (``duplicate taint Key/Effect pair``; :data:`NODEPOOL_TAINT_REPEAT_SOURCE`).

    Args:
        taints, startup_taints: the NodePool's ``spec.template.spec.taints`` and ``startupTaints``, in order.
        taints_at, startup_at: how messages name the two lists (``taints`` in a stack file,
            ``spec.template.spec.taints`` on a NodePool resource).

    Returns:
        One message per taint whose key and effect an earlier one has (Karpenter reads ``taints`` first), each
        naming both indices and the fix; ``[]`` when none repeats. :func:`nodepool_taint_repeat_problem` adds
        the source.
    """
    problems = []
    for at, listed in ((taints_at, taints), (startup_at, startup_taints)):
        for first, dup, taint in find_duplicate_taints(listed):
            problems.append(f"{at}[{first}] and {at}[{dup}] both have key {taint.key!r} and effect "
                            f"{taint.effect.value}; Karpenter rejects a key+effect twice in one list (duplicate taint "
                            "Key/Effect pair): keep one")
    in_taints: dict[tuple[str, TaintEffect], int] = {}
    for i, taint in enumerate(taints):
        in_taints.setdefault(taint.identity, i)
    for j, taint in enumerate(startup_taints):
        if taint.identity in in_taints:
            problems.append(
                f"{startup_at}[{j}] ({taint}) has the same key and effect as {taints_at}[{in_taints[taint.identity]}]; "
                "Karpenter rejects a key+effect in both lists (duplicate taint Key/Effect pair): keep it in taints "
                "if it stays, in startupTaints if an agent removes it at boot")
    return problems


def nodepool_taint_repeat_problem(taints: Sequence[Taint], startup_taints: Sequence[Taint],
                                  taints_at: str = "taints", startup_at: str = "startupTaints") -> str | None:
    """The messages of :func:`nodepool_taint_repeats` joined with ``"; "``, then the rule and its source
    (:data:`NODEPOOL_TAINT_REPEAT_SOURCE`); None when none repeats."""
    problems = nodepool_taint_repeats(taints, startup_taints, taints_at, startup_at)
    if not problems:
        return None
    return f"{'; '.join(problems)}. Source: {NODEPOOL_TAINT_REPEAT_SOURCE}"


#: Why a NodePool's ``startupTaints`` must not hold the GPU taint: Karpenter waits for every startup taint to go.
NODEPOOL_PERMANENT_STARTUP_TAINT_SOURCE = (
    "a node is initialized only once its startupTaints are gone: kubernetes-sigs/karpenter "
    "pkg/controllers/nodeclaim/lifecycle/initialization.go@v1.14.1; no NVIDIA agent removes nvidia.com/gpu, and "
    "https://karpenter.sh/docs/concepts/nodepools/ puts it in taints"
)


def nodepool_permanent_startup_taints(startup_taints: Sequence[Taint], taints_at: str = "taints",
                                      startup_at: str = "startupTaints") -> list[str]:
    """Karpenter's rule of a NodePool's ``startupTaints`` that the GPU taint breaks: a startup taint is one an agent
    removes at boot, and Karpenter counts a node initialized only once all are gone; no agent removes
    ``nvidia.com/gpu`` (any effect), so its node is never initialized
    (:data:`NODEPOOL_PERMANENT_STARTUP_TAINT_SOURCE`). The one rule of the stack file's karpenter pool and of a
    hand-written NodePool.

    Args:
        startup_taints: the NodePool's ``startupTaints``, in order.
        taints_at, startup_at: how messages name the two lists (``taints`` in a stack file,
            ``spec.template.spec.taints`` on a NodePool resource).

    Returns:
        One message per GPU taint in ``startup_taints``, naming its index, the rule with its source and the fix
        (put it in ``taints``); ``[]`` when there is none.
    """
    return [f"{startup_at}[{j}] ({taint}) is the GPU taint, which is permanent: an agent never removes it, so "
            f"Karpenter would wait for its removal forever ({NODEPOOL_PERMANENT_STARTUP_TAINT_SOURCE}); put it in "
            f"{taints_at}"
            for j, taint in enumerate(startup_taints) if taint.key == NVIDIA_GPU_RESOURCE]


#: A Kubernetes Taint object as a fix writes it.
K8S_TAINT_FORM = f"an object {{key: nvidia.com/gpu, value: present, effect: {TaintEffect.NO_SCHEDULE.value}}} (value optional)"


def _not_a_string(field: str, given: Any, fix: str) -> str:
    """The problem of a core/v1 Taint ``field`` given as another JSON type: the rule it breaks, then ``fix``."""
    return (f".{field} {shown(given)} is not a string (a core/v1 Taint's {field} is a string, k8s.io/api core/v1 "
            f"types.go, and the API server refuses any other type): {fix}")


class K8sTaintError(TaintError):
    """A core/v1 Taint object :meth:`Taint.from_k8s` refuses. ``problems``: each reason as
    :func:`k8s_taint_problems` words it (starting `` ...`` or ``.key ...``), to follow a path such as ``taints[0]``."""

    def __init__(self, message: str, *, problems: Sequence[str]) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


def k8s_taint_problems(obj: Any, owner: str) -> list[str]:
    """Every reason the API server refuses ``obj`` as a core/v1 Taint object (``{key, value, effect}``, strings: a
    qualified-name key, a label-value value (absent or null: empty), one of the three effects in Kubernetes spelling),
    each starting at the object (`` ...`` or ``.key ...``) and ending with its fix; ``[]`` when :meth:`Taint.from_k8s`,
    which raises with these, takes it. ``owner`` names the object holding the taint in the effect-spelling message (``a NodePool``)."""
    if not isinstance(obj, Mapping):
        return [f" {shown(obj)} is not an object: write {K8S_TAINT_FORM}"]
    problems = []
    key, value, effect = obj.get("key"), obj.get("value"), obj.get("effect")
    if key is None or key == "":
        problems.append(" has no key, which is required: add the taint key, e.g. key: nvidia.com/gpu")
    elif not isinstance(key, str):
        problems.append(_not_a_string("key", key, "write the key as a string"))
    elif (why := qualified_name_problem(key)) is not None:
        problems.append(f".key {shown(key)} {why}")
    if isinstance(value, (bool, int, float)):
        written = str(value).lower() if isinstance(value, bool) else shown(value, quote=False)
        problems.append(_not_a_string("value", value, f'quote it: value: "{written}"'))
    elif value is not None and not isinstance(value, str):
        problems.append(_not_a_string("value", value, "write the value as a string"))
    elif value and (why := label_value_problem(value)) is not None:
        problems.append(f".value {shown(value)} {why}")
    allowed = ", ".join(EFFECT_SPELLINGS)
    if effect is None or effect == "":
        problems.append(f" has no effect, which is required: add effect: one of {allowed}")
    elif not isinstance(effect, str):
        problems.append(_not_a_string("effect", effect, f"write one of {allowed}"))
    elif effect not in EFFECT_SPELLINGS:
        meant = TaintEffect.meant(effect)
        if meant is not None and meant.provider_spelling == effect:
            problems.append(f".effect {shown(effect)} is the EKS/GKE API spelling; {owner} takes the Kubernetes "
                            f"spelling: write {meant.value} ({EFFECT_RULE})")
        elif meant is not None:
            problems.append(f".effect {shown(effect)} is not a taint effect: did you mean {meant.value}? ({EFFECT_RULE})")
        else:
            problems.append(f".effect {shown(effect)} is not a taint effect: write one of {allowed} ({EFFECT_RULE})")
    return problems


# --- tolerations ------------------------------------------------------------------------


@dataclass(frozen=True)
class Toleration:
    """A pod toleration, validated on construction with the Kubernetes API rules.

    Attributes:
        key: the taint key to match; None or ``""`` matches every key (then the operator
            must be ``Exists``).
        operator: ``Equal`` (the default; compares values), ``Exists`` (ignores the value
            and must not carry one), or ``Gt`` / ``Lt`` (the taint's value, read as an integer,
            is greater / less than this value; Kubernetes 1.35+ with the alpha gate
            ``TaintTolerationComparisonOperators`` on, see :data:`NUMERIC_OPERATORS_MIN_VERSION`;
            callers that know the cluster's version refuse them below 1.35). An empty operator
            means ``Equal``.
        value: the value ``Equal`` compares with; None means ``""``. With ``Gt``/``Lt`` a
            decimal integer that fits 64 bits (:func:`decimal_integer`), as the API server
            requires when the gate is on.
        effect: the effect to match; None matches every effect.
        toleration_seconds: only with the effect ``NoExecute`` (the API server refuses it with another
            effect or none): how long a running pod stays after a matching NoExecute taint appears; None
            means forever. A float with no fraction (a Pulumi preview's number) is kept as its int.

    Raises:
        TaintError: a field of the wrong type (key, operator, value and effect are strings or None,
            ``toleration_seconds`` an integer, :func:`~gpu_node_pool.k8s.toleration_rules.whole_seconds`), or the
            first ``ValidateTolerations`` rule broken, as
            :func:`~gpu_node_pool.k8s.toleration_rules.broken_toleration_rule` names it (the error's ``refusal``);
            :func:`gpu_node_pool.k8s.refusals.toleration_refusal` reads a pod spec's toleration with the same rules.
            Unlike Kubernetes' matcher, we never treat an unknown operator as a silent non-match.
    """

    key: str | None = None
    operator: str = "Equal"
    value: str | None = None
    effect: TaintEffect | None = None
    toleration_seconds: int | None = None

    def __post_init__(self) -> None:
        for name in ("key", "operator", "value", "effect"):
            given = getattr(self, name)
            if given is not None and not isinstance(given, str):
                raise TaintError(f"toleration {name} {shown(given)} must be a string (quote it in YAML)")
        seconds = self.toleration_seconds
        if seconds is not None and whole_seconds(seconds) is None:
            raise TaintError(f"toleration tolerationSeconds {shown(seconds)} must be an integer (whole seconds)")
        seconds = None if seconds is None else whole_seconds(seconds)
        broken = broken_toleration_rule(self.key or "", self.operator or "", self.value or "", self.effect or "", seconds)
        if broken is not None:
            raise TaintError(f"toleration {broken.field} {shown(broken.value)}: {broken.rule}; fix: {broken.fix}",
                             refusal=broken)
        object.__setattr__(self, "key", self.key or None)
        object.__setattr__(self, "operator", self.operator or "Equal")
        object.__setattr__(self, "value", self.value or None)
        object.__setattr__(self, "effect", TaintEffect(self.effect) if self.effect else None)
        object.__setattr__(self, "toleration_seconds", seconds)

    @classmethod
    def for_taint(cls, taint: Taint, *, exists: bool = False) -> Toleration:
        """The toleration that tolerates exactly ``taint``.

        Args:
            taint: the taint to tolerate.
            exists: with True, match the key and effect with ``Exists`` (any value), which is
                what node agents use so that a changed value does not strand them.
        """
        if exists:
            return cls(key=taint.key, operator="Exists", effect=taint.effect)
        return cls(key=taint.key, operator="Equal", value=taint.value, effect=taint.effect)

    @property
    def is_catch_all(self) -> bool:
        """True for ``{operator: Exists}`` with no key: tolerates every taint (of its effect, if set)."""
        return self.key is None and self.operator == "Exists"

    def tolerates(self, taint: Taint) -> bool:
        """Whether this toleration tolerates ``taint``; see :func:`tolerates`."""
        return tolerates(self, taint)

    def to_k8s(self) -> dict[str, Any]:
        """The Kubernetes ``core/v1`` Toleration object (camelCase, empty fields omitted)."""
        out: dict[str, Any] = {}
        if self.key is not None:
            out["key"] = self.key
        out["operator"] = self.operator
        if self.value is not None:
            out["value"] = self.value
        if self.effect is not None:
            out["effect"] = self.effect.value
        if self.toleration_seconds is not None:
            out["tolerationSeconds"] = self.toleration_seconds
        return out

    @classmethod
    def from_k8s(cls, obj: Mapping[str, Any]) -> Toleration:
        """Read a Kubernetes Toleration object: :func:`toleration_from_k8s`, the one decoder.

        Raises:
            TaintError: the object is not a mapping or breaks a rule listed on the class.
        """
        return toleration_from_k8s(obj)

    def __str__(self) -> str:
        key = self.key or "*"
        if self.operator == "Equal":
            val = f"={self.value or ''}"
        elif self.operator == "Exists":
            val = " Exists"
        else:
            val = f" {self.operator} {self.value}"
        eff = self.effect.value if self.effect else "*"
        secs = f" for {self.toleration_seconds}s" if self.toleration_seconds is not None else ""
        return f"{key}{val}:{eff}{secs}"


#: :func:`toleration_from_k8s` per toleration object read, by its items with each value's type (``1`` and ``True``
#: are equal keys of a dict but not the same toleration): a stack's pod specs repeat a few tolerations.
_TOLERATIONS: dict[tuple[Any, ...], Toleration] = {}


def toleration_from_k8s(obj: Any) -> Toleration:
    """The :class:`Toleration` a Kubernetes ``core/v1`` Toleration object (an item of a pod spec's
    ``tolerations``) decodes to: the one decoder of the package (``Toleration.from_k8s`` and
    :func:`gpu_node_pool.k8s.effective.effective_tolerations` call it). It reads the JSON fields ``key``,
    ``operator``, ``value``, ``effect`` (null reads as empty) and ``tolerationSeconds``, and nothing else, as the
    API server's decoder does (https://kubernetes.io/docs/reference/kubernetes-api/definitions/toleration-v1/);
    a value of the wrong type is refused as the decoder refuses it, then the rules listed on :class:`Toleration`.
    :func:`gpu_node_pool.k8s.refusals.toleration_refusal` names the same refusals for a pod spec. Kept per content
    of a plain ``obj`` (a Toleration is immutable).

    Raises:
        TaintError: ``obj`` is not a mapping, or breaks a rule listed on :class:`Toleration` (never kept).
    """
    try:
        key = tuple([(k, type(v), v) for k, v in obj.items()]) if type(obj) is dict else None
        kept = _TOLERATIONS.get(key) if key is not None else None
    except TypeError:  # a value that cannot be hashed (a list, a mapping): read every time
        key = kept = None
    if kept is None:
        if not isinstance(obj, Mapping):
            raise TaintError(f"a toleration must be an object, got {shown(obj)}")
        kept = Toleration(key=obj.get("key"), operator=obj.get("operator"), value=obj.get("value"),
                          effect=obj.get("effect"), toleration_seconds=obj.get("tolerationSeconds"))
        if key is not None:
            if len(_TOLERATIONS) >= 4096:
                _TOLERATIONS.clear()
            _TOLERATIONS[key] = kept
    return kept


def tolerates(toleration: Toleration, taint: Taint) -> bool:
    """Whether ``toleration`` tolerates ``taint``, with Kubernetes semantics.

    The rules, in the order they are checked (``(*Toleration).ToleratesTaint``):

    1. If the toleration has an effect, it must equal the taint's effect; an empty effect
       matches every effect.
    2. If the toleration has a key, it must equal the taint's key; an empty key (allowed
       only with ``Exists``) matches every key.
    3. ``Exists`` tolerates any value; ``Equal`` (also what an empty operator means)
       requires the toleration's value to equal the taint's value (None counts as ``""``).
    4. ``Gt`` tolerates when the taint's value, read as an integer, is greater than the
       toleration's; ``Lt`` when it is less. Equal numbers are not tolerated, and a taint value
       that is not a 64-bit decimal integer (``high``, ``0950``, ``+5``) is not tolerated.
       Every effect is compared this way. This is the answer of a cluster with the gate
       ``TaintTolerationComparisonOperators`` on; with it off the API server refuses the pod.

    ``tolerationSeconds`` does not change the answer: a NoExecute taint tolerated for N
    seconds is tolerated, then the pod is evicted. Callers that care (the DaemonSet policy)
    look at ``toleration_seconds`` themselves.
    """
    if toleration.effect is not None and toleration.effect != taint.effect:
        return False
    if toleration.key is not None and toleration.key != taint.key:
        return False
    if toleration.operator == "Exists":
        return True
    if toleration.operator in NUMERIC_TOLERATION_OPERATORS:
        return compare_numeric(toleration.value or "", taint.value, toleration.operator)
    return (toleration.value or "") == taint.value


def compare_numeric(toleration_value: str, taint_value: str, operator: str) -> bool:
    """Rule 4 of :func:`tolerates` on raw values: for ``Gt``, taint value > toleration value; for
    ``Lt``, taint value < toleration value; both read with :func:`decimal_integer`. False when either
    is not a 64-bit decimal integer, and for any other operator (``compareNumericValues``).
    """
    bound, mine = decimal_integer(toleration_value), decimal_integer(taint_value)
    if bound is None or mine is None or operator not in NUMERIC_TOLERATION_OPERATORS:
        return False
    return mine > bound if operator == "Gt" else mine < bound


def tolerations_tolerate_taint(tolerations: Iterable[Toleration], taint: Taint) -> bool:
    """True when at least one of ``tolerations`` tolerates ``taint`` (``TolerationsTolerateTaint``)."""
    return any(tolerates(t, taint) for t in tolerations)


def untolerated_taints(tolerations: Iterable[Toleration], taints: Iterable[Taint]) -> list[Taint]:
    """The taints, in their given order, that no toleration in ``tolerations`` tolerates.

    ``PreferNoSchedule`` taints are included when untolerated; callers decide whether a
    soft taint matters to them (``FindMatchingUntoleratedTaint`` filters by effect the same way).
    """
    tolerations = list(tolerations)
    return [taint for taint in taints if not tolerations_tolerate_taint(tolerations, taint)]


# What the cluster adds to a pod's own tolerations (admission, the DaemonSet controller): in
# effective.py, re-exported here so ``gpu_node_pool.k8s.taints`` stays the one import.
from .effective import (  # noqa: E402 - effective.py builds on the classes above
    DAEMONSET_CONTROLLER_TOLERATIONS,
    EXTENDED_RESOURCE_TOLERATION,
    HOST_NETWORK_DAEMON_TOLERATIONS,
    PLATFORMS,
    effective_tolerations,
    implied_tolerations,
    is_extended_resource_name,
    requested_extended_resources,
)
