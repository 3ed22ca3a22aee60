"""The ``karpenter.sh/v1`` NodePool rules shared by the backends that write NodePools.

Both the ``karpenter`` backend (self-managed Karpenter, ``EC2NodeClass``) and the ``eks-auto``
backend (EKS Auto Mode, ``NodeClass``) write the same ``karpenter.sh/v1`` NodePool; what the
NodePool API itself refuses lives here once: CRD limits, durations, quantities, disruption
budgets and requirement rules. What differs (restricted label domains, well-known requirement
keys, node classes) stays in each backend's folder.

Sources: the NodePool CRD of aws/karpenter-provider-aws@v1.14.1
``pkg/apis/crds/karpenter.sh_nodepools.yaml``
and kubernetes-sigs/karpenter ``nodeclaim_validation.go`` / ``nodepool_validation.go``; the
EKS user guide ``automode/create-node-pool.adoc`` (Auto Mode takes the same NodePool,
"Disruption": ``consolidationPolicy``, ``consolidateAfter``, ``budgets``, ``expireAfter``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from pydantic import Field, field_validator, model_validator

from ...config.common import Model, fail
from ...config.messages import show
from ...k8s.integers import INT64_MAX
from ...k8s.names import DNS1123_SUBDOMAIN_RE
from ...k8s.patterns import full_match, pattern_search
from ...k8s.quantity import QuantityError, parse_quantity, quantity, split_quantity
from ...k8s.taints import label_value_problem, qualified_name_problem
from ...k8s.wellknown import NVIDIA_GPU_RESOURCE, ZONE_LABEL
from ...text.listing import listed
from ...text.suggest import closest
from .kubelet_config_fields import duration_seconds
from .nodepool_crd import NODEPOOL_CRD_SOURCE
from .registration import flow_yaml

#: The resource every GPU NodePool must limit.
KARPENTER_GPU_RESOURCE = NVIDIA_GPU_RESOURCE

NODEPOOL_API_VERSION = "karpenter.sh/v1"
#: The NodePool CRD the rules here mirror, as messages cite it.
#: Kubernetes API reference of NodeSelectorRequirement (values empty for Exists and DoesNotExist).
NODE_SELECTOR_REQUIREMENT_URL = (
    "https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/node-selector-requirement/")
KARPENTER_MAX_REQUIREMENTS = 100  # NodePool spec.template.spec.requirements maxItems
KARPENTER_MAX_LABELS = 100  # NodePool spec.template.metadata.labels maxProperties
KARPENTER_REQUIREMENT_KEY_MAX = 316  # requirements[].key maxLength
KARPENTER_MAX_MIN_VALUES = 50  # requirements[].minValues maximum
KARPENTER_MAX_BUDGETS = 50  # disruption.budgets maxItems
KARPENTER_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte")
#: Requirement operators whose one value must be a positive integer (NodePool CRD CEL rule).
KARPENTER_INTEGER_OPERATORS = ("Gt", "Lt", "Gte", "Lte")
KARPENTER_CAPACITY_TYPES = ("on-demand", "spot", "reserved")
KARPENTER_ARCHITECTURES = ("amd64", "arm64")
KARPENTER_CONSOLIDATION_POLICIES = ("WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced")
KARPENTER_BUDGET_REASONS = ("Underutilized", "Empty", "Drifted")

# NodePool CRD patterns (see the sources above), used with ``.search`` like an OpenAPI
# ``pattern``: unanchored unless the pattern anchors itself.
#: ``expireAfter`` and ``disruption.consolidateAfter``: ``720h``, ``1h30m``, ``30s`` or ``Never``.
KARPENTER_DURATION_RE = re.compile(r"^(([0-9]+(s|m|h))+|Never)$")
#: ``terminationGracePeriod``: like :data:`KARPENTER_DURATION_RE` without ``Never``.
KARPENTER_GRACE_RE = re.compile(r"^([0-9]+(s|m|h))+$")
#: ``disruption.budgets[].nodes``: a node count (``1``) or a percentage ``0%``-``100%``.
KARPENTER_BUDGET_NODES_RE = re.compile(r"^((100|[0-9]{1,2})%|[0-9]+)$")
#: ``disruption.budgets[].duration``: hours and/or minutes (``8h``, ``30m``, ``1h30m``), no seconds.
KARPENTER_BUDGET_DURATION_RE = re.compile(r"^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$")
#: ``disruption.budgets[].schedule``: a cron macro (``@daily``) or five cron fields.
KARPENTER_BUDGET_SCHEDULE_RE = re.compile(
    r"^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$"
)
#: A Kubernetes resource quantity as a string (``32``, ``4000Gi``, ``500m``), as in ``spec.limits``.
KARPENTER_QUANTITY_RE = re.compile(
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
#: The largest integer a resource property carries exactly: Pulumi sends a resource's inputs as a
#: ``google.protobuf.Struct`` (pulumi/pulumi ``proto/pulumi/resource.proto``, ``RegisterResourceRequest.object``),
#: whose numbers are doubles (protobuf ``google/protobuf/struct.proto``, ``Value.number_value``), so a
#: larger integer arrives rounded (2**53 + 1 becomes 2**53). A string quantity arrives as written.
PULUMI_EXACT_INT_MAX = 2**53 - 1
#: A Kubernetes object name, DNS-1123 subdomain form: lower-case alphanumerics, ``-`` and ``.``
#: (https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#dns-subdomain-names).
K8S_OBJECT_NAME_RE = DNS1123_SUBDOMAIN_RE
#: An IAM role name: 1-64 of ``[A-Za-z0-9+=,.@_-]``
#: (IAM API CreateRole ``RoleName``, https://docs.aws.amazon.com/IAM/latest/APIReference/API_CreateRole.html).
IAM_ROLE_NAME_RE = re.compile(r"^[\w+=,.@-]{1,64}$")


_ANDED = ("Karpenter intersects two requirements on one key: kubernetes-sigs/karpenter "
          "pkg/scheduling/requirements.go@v1.14.1 Requirements.Add")


def cel_label_domain(key: str) -> str:
    """The part of label ``key`` the NodePool CRD's CEL rules test for restricted domains.

    The rules take ``key.find("^([^/]+)")``: everything before the first ``/``, or the whole key
    when it has none (``""`` for an empty key or one starting with ``/``), then test
    ``endsWith()`` -- a plain suffix, not a DNS subdomain (so ``mykarpenter.sh/x`` is refused
    too). Mirrored exactly: ``cel_label_domain("karpenter.sh/x") == "karpenter.sh"``.
    """
    match = re.match(r"[^/]+", key)
    return match.group(0) if match else ""


#: A number written as text (ASCII digits: ``str.isdigit`` also takes ``²``), as a duration without its unit is.
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")


def karpenter_duration_problem(value: str, *, never: bool = True) -> str | None:
    """Why ``value`` is not a Karpenter duration, or None when it is one.

    ``never=True`` checks :data:`KARPENTER_DURATION_RE` (``expireAfter``, ``consolidateAfter``:
    ``Never`` allowed), ``never=False`` :data:`KARPENTER_GRACE_RE` (``terminationGracePeriod``).
    A value that is not a string gets the same sentence, which names the pattern and the fix; a number (``300``,
    quoted or not) is told that it names no unit and that none is assumed, since the CRD's pattern needs one. A value
    the pattern admits is still refused past Go's duration range (:func:`go_duration_range_problem`).
    """
    pattern = KARPENTER_DURATION_RE if never else KARPENTER_GRACE_RE
    if isinstance(value, str) and pattern_search(pattern, value):
        return go_duration_range_problem(value, never=never)
    allowed = "or Never " if never else ""
    number = (isinstance(value, (int, float)) and not isinstance(value, bool)) or (
        isinstance(value, str) and _NUMBER.fullmatch(value.strip()) is not None)
    unit = (f"{value!r} names no unit (h, m or s), quoted or not, and none is assumed: " if number
            else f"{value!r} is not a Karpenter duration: ")
    return (
        f"{unit}write hours, minutes and seconds like 720h, 30m or 1h30m "
        f"{allowed}(pattern {pattern.pattern} of the NodePool CRD, aws/karpenter-provider-aws@v1.14.1 "
        "pkg/apis/crds/karpenter.sh_nodepools.yaml; no days, no spaces)"
    )


#: Why a NodePool duration the CRD pattern admits can still be undecodable: Go's ``time.ParseDuration`` holds a
#: duration as int64 nanoseconds and fails past it, and Karpenter's types read every NodePool duration with it.
GO_DURATION_RANGE_SOURCE = (
    "golang/go src/time/format.go ParseDuration returns 'time: invalid duration' past int64 nanoseconds; "
    "kubernetes-sigs/karpenter pkg/apis/v1/duration.go NillableDuration (expireAfter, consolidateAfter) and "
    "apimachinery metav1.Duration (terminationGracePeriod, budgets[].duration) parse with it"
)
#: The longest duration ``time.ParseDuration`` reads, as Go's ``Duration.String()`` writes it: INT64_MAX nanoseconds.
GO_DURATION_MAX_TEXT = "2562047h47m16.854775807s"
#: Whole numbers with the units the NodePool patterns take (``720h``, ``1h30m0s``).
_WHOLE_UNITS = re.compile(r"([0-9]+(s|m|h))+")


def go_duration_range_problem(value: Any, *, never: bool) -> str | None:
    """Why ``value``, a NodePool duration the CRD pattern admits, is past Go's duration range, or None.

    Go's ``time.ParseDuration`` refuses a total above :data:`~gpu_node_pool.k8s.integers.INT64_MAX` nanoseconds
    (:data:`GO_DURATION_MAX_TEXT`, about 292 years; :data:`GO_DURATION_RANGE_SOURCE`), so Karpenter's controller cannot
    decode such a NodePool. The total is read by :func:`~.kubelet_config_fields.duration_seconds`; a value that is
    not whole numbers with units (``Never``, text the CRD pattern refuses) is left to the pattern checks. ``never``: whether the field takes
    ``Never``, which the fix then offers.
    """
    if not isinstance(value, str) or not full_match(_WHOLE_UNITS, value) or duration_seconds(value) is not None:
        return None
    fix = ("write Never to turn it off, or a smaller duration such as 720h" if never
           else "write a smaller duration such as 24h")
    return (f"{value!r} is longer than Go's time.ParseDuration reads: a duration is int64 nanoseconds, at most "
            f"{INT64_MAX} ns ({GO_DURATION_MAX_TEXT}, about 292 years), so Karpenter's controller cannot decode the "
            f"NodePool ({GO_DURATION_RANGE_SOURCE}); {fix}")


def _written(value: Any) -> str:
    """``value`` for a message; an integer too long for ``str()`` (over 4,300 digits) by its size."""
    if isinstance(value, int) and value.bit_length() > 14_000:
        return f"an integer of {value.bit_length()} bits"
    return show(value)


def quantity_problem(value: Any) -> str | None:
    """Why ``value`` is not a non-negative Kubernetes quantity for a NodePool limit, or None.

    Accepted: an int up to :data:`PULUMI_EXACT_INT_MAX`, or a string matching
    :data:`KARPENTER_QUANTITY_RE` (``"1000"``, ``"4000Gi"``, ``"500m"``, ``"1e3"``), not negative.
    Refused with a sentence: a bool, a float or any other type, a larger int (Pulumi would round
    it; the fix is the same number quoted), a malformed string, a leading ``-``.
    """
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return (f"{show(value)} is an unquoted decimal number; a limit is a Kubernetes quantity, written as an integer "
                f"or a quoted string: write '{show(value)}' to have it judged as one")
    if isinstance(value, bool) or not isinstance(value, int | str):
        return f"{show(value)} must be a Kubernetes quantity: an integer or a string such as '1000' or '4000Gi'"
    if isinstance(value, int) and value > PULUMI_EXACT_INT_MAX:
        try:
            sent = f"the NodePool would get {int(float(value))}"
        except OverflowError:
            sent = "it does not fit one at all"
        return (
            f"{_written(value)} is above 2^53-1: Pulumi sends resource properties as protobuf Struct numbers (doubles), "
            f"so {sent}; write it as a quoted string to send it exactly"
        )
    if isinstance(value, str) and not pattern_search(KARPENTER_QUANTITY_RE, value):
        return f"{show(value)} is not a Kubernetes quantity (e.g. 32, '1000', '4000Gi', '500m')"
    if (isinstance(value, int) and value < 0) or (isinstance(value, str) and value.startswith("-")):
        return f"{_written(value)} is negative; a limit of capacity must be >= 0"
    return None



def no_values_problem(operator: str, values: list[Any], key: str | None = None) -> str:
    """The sentence for ``values`` given with ``operator`` ``Exists`` or ``DoesNotExist``: what Karpenter does with
    them (drops them), the rule with its sources, and the fix (remove them, or the operator that uses them). For
    the zone key (``key`` :data:`ZONE_LABEL`) the fix is the pool's ``zones``, as In on that key is refused
    (:func:`written_key_problem`)."""
    zone = key == ZONE_LABEL
    if operator == "Exists":
        effect = f"matches any value of the key, not only {flow_yaml(list(values))}"
        fix = (f"list them in the pool's zones (zones: {flow_yaml(list(values))}) and drop this requirement" if zone
               else "use operator In to match only those values")
    else:
        effect = f"requires the key to be absent, rather than excluding {flow_yaml(list(values))}"
        fix = ("use operator NotIn to exclude them (while zones is unset), or list the zones you want in the pool's "
               "zones and drop this requirement" if zone else "use operator NotIn to exclude them")
    return (
        f"operator {operator} takes no values: the NodePool CRD says 'If the operator is Exists or DoesNotExist, the "
        f"values array must be empty' (requirements[].values, {NODEPOOL_CRD_SOURCE}), as Kubernetes' "
        f"NodeSelectorRequirement does ({NODE_SELECTOR_REQUIREMENT_URL}); Karpenter drops them (kubernetes-sigs/karpenter "
        f"pkg/scheduling/requirement.go@v1.14.1 keeps values for In and NotIn only), so the requirement {effect}; "
        f"remove values {flow_yaml(list(values))}, or {fix}"
    )


def written_key_problem(
    key: str, operator: str, values: list[Any], managed_keys: Mapping[str, str], zones: list[str] | None
) -> str | None:
    """Why an extra requirement on a key a dedicated field writes is refused, or None.

    ``managed_keys``: key -> the field that writes it as ``In`` (the backend's table, e.g.
    ``{"topology.kubernetes.io/zone": "zones", ...}``); ``zones``: the pool's ``zones`` or None. Two requirements on
    one key are intersected (kubernetes-sigs/karpenter ``pkg/scheduling/requirements.go``@v1.14.1
    ``Requirements.Add``), so a field and a requirement on its key would narrow each other out of sight. Refused:

    - a key of ``managed_keys`` other than the zone key, whatever the operator: set it in its field;
    - the zone key with ``In`` (``zones`` says the same, checked against ``aws:region``), or with any operator
      while ``zones`` is set;
    - the zone key with ``DoesNotExist`` (every node has a zone: Karpenter's well-known label, set from the
      offering it launches) or ``Gt``/``Lt``/``Gte``/``Lte`` (zone names are not integers): no node matches.

    Accepted: the zone key with ``NotIn`` (exclude zones, which ``zones`` cannot say) or ``Exists`` while ``zones``
    is not set.
    """
    field = managed_keys.get(key)
    if field is None:
        return None
    if key != ZONE_LABEL:
        if field.startswith("("):  # written by the component itself, e.g. "(always nvidia)"
            return f"{key!r} is written by the component {field}; remove it ({_ANDED})"
        return f"{key!r} is written by {field}; set it there ({_ANDED})"
    if zones:
        return (f"{key!r} is written by zones ({listed(zones)}); list the zones you want in zones and drop this requirement "
                f"({_ANDED})")
    if operator == "In":
        return (f"{key!r} with In is what zones writes; write zones: {flow_yaml(list(values))} instead (zones is checked against "
                "the stack's aws:region), and drop this requirement")
    if operator in ("NotIn", "Exists"):
        return None
    why = ("every node Karpenter launches carries a zone" if operator == "DoesNotExist" else
           f"{operator} compares integers and zone names are not integers")
    return (f"{key!r} {operator} matches no node: {why} (https://karpenter.sh/docs/concepts/scheduling/"
            "#well-known-labels), so the pool would launch nothing; use NotIn to exclude zones, or zones to list them")


def nodepool_requirement_problems(
    key: Any, operator: Any, values: list[Any], min_values: int | None, key_problem: Callable[[str], str | None]
) -> list[str]:
    """Every reason Karpenter refuses a NodePool requirement; empty when it is fine.

    Rules in the order checked: key syntax (qualified name, CRD ``maxLength: 316`` and
    pattern), restricted keys (``key_problem``: the backend's rule, e.g.
    :func:`~gpu_node_pool.backends.karpenter.limits.karpenter_label_problem`), ``operator`` enum, value
    syntax (label values, ``maxLength: 63``), the CEL rules "requirements with operator 'In'
    must have a value defined", "operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single
    positive integer value" and "'minValues' must have at least that many values", the
    ``minValues`` range 1-50, and (CRD field description) no values with Exists/DoesNotExist (:func:`no_values_problem`).
    """
    problems = []
    syntax = qualified_name_problem(key)
    if syntax:
        problems.append(f"key {key!r} {syntax}")
    elif len(key) > KARPENTER_REQUIREMENT_KEY_MAX:
        problems.append(f"key {key!r} is {len(key)} characters; Karpenter allows {KARPENTER_REQUIREMENT_KEY_MAX}")
    else:
        restricted = key_problem(key)
        if restricted:
            problems.append(f"key {restricted}")
    if operator not in KARPENTER_OPERATORS:
        same = next((o for o in KARPENTER_OPERATORS if o.lower() == str(operator).lower()), None)
        close = same or closest(str(operator), KARPENTER_OPERATORS)
        hint = f"; did you mean {close}?" + (" (operators are case-sensitive)" if same else "") if close else ""
        problems.append(f"operator {operator!r} is not one of {', '.join(KARPENTER_OPERATORS)}{hint}")
    for value in values:
        bad = label_value_problem(value)
        if bad:
            problems.append(f"value {value!r} {bad}")
    if operator == "In" and not values:
        problems.append("operator In needs at least one value (Karpenter: requirements with operator 'In' must have a value defined)")
    if operator in KARPENTER_INTEGER_OPERATORS:
        if len(values) != 1 or not (isinstance(values[0], str) and values[0].isdigit()):
            problems.append(
                f"operator {operator} needs exactly one non-negative integer value, e.g. values: [\"0\"] "
                f"(got {flow_yaml(list(values))})"
            )
    if operator in ("Exists", "DoesNotExist") and values:
        problems.append(no_values_problem(operator, values, key))
    if min_values is not None:
        if isinstance(min_values, bool) or not 1 <= min_values <= KARPENTER_MAX_MIN_VALUES:
            problems.append(f"minValues {min_values!r} must be between 1 and {KARPENTER_MAX_MIN_VALUES}")
        elif operator == "In" and len(values) < min_values:
            problems.append(
                f"minValues {min_values} is more than the {len(values)} value(s) given; list at least {min_values} "
                "values or lower minValues"
            )
    return problems



class NodePoolRequirement(Model):
    """An extra NodePool requirement ``{key, operator, values, minValues}`` (``spec.template.spec.requirements[]``).

    The rules are :func:`nodepool_requirement_problems` with the backend's restricted keys: each
    backend subclasses this with its ``_problems`` (and its own ``key`` description).
    """

    key: str = Field(description="Label key.")
    operator: str = Field(description="In | NotIn | Exists | DoesNotExist | Gt | Lt | Gte | Lte")
    values: list[str] = Field(default_factory=list, description="Label values (<= 63 characters each).")
    min_values: int | None = Field(None, description="1-50, at most len(values); In only.")

    def _problems(self) -> list[str]:
        raise NotImplementedError

    @model_validator(mode="after")
    def _rules(self) -> NodePoolRequirement:
        problems = self._problems()
        if problems:
            raise fail("; ".join(problems))
        return self

    def to_k8s(self) -> dict[str, Any]:
        """The NodePool requirement object (``values`` omitted when empty)."""
        out: dict[str, Any] = {"key": self.key, "operator": self.operator}
        if self.values:
            out["values"] = list(self.values)
        if self.min_values is not None:
            out["minValues"] = self.min_values
        return out


class KarpenterBudget(Model):
    """A disruption budget (``spec.disruption.budgets[]``).

    ``nodes``: a node count or percentage (``10%``, ``0``; pattern ``^((100|[0-9]{1,2})%|[0-9]+)$``);
    ``schedule``: cron (5 fields) or ``@daily``-style macro; ``duration``: ``1h``, ``30m``,
    ``1h30m``; ``schedule`` and ``duration`` go together; ``reasons``: Underutilized, Empty, Drifted.
    """

    nodes: str = Field("10%", description="Count or percentage of nodes that may be disrupted at once.")
    schedule: str | None = Field(None, description="Cron schedule (UTC) when the budget starts; needs duration.")
    duration: str | None = Field(None, description="How long the budget is active after each schedule hit (h/m).")
    reasons: list[str] | None = Field(None, description="Underutilized | Empty | Drifted; default all.")

    @field_validator("nodes", mode="before")
    @classmethod
    def _nodes(cls, nodes: Any) -> Any:
        if isinstance(nodes, int) and not isinstance(nodes, bool):
            nodes = str(nodes)
        if isinstance(nodes, str) and not pattern_search(KARPENTER_BUDGET_NODES_RE, nodes):
            raise fail(f"{nodes!r} must be a node count (e.g. 1) or a percentage from 0% to 100% (e.g. 10%)")
        return nodes

    @field_validator("schedule")
    @classmethod
    def _schedule(cls, schedule: str | None) -> str | None:
        # The CRD pattern anchors only its cron branch at the end, so the API server admits
        # '@daily\n'; the whole value is matched here, as the cron parser reads it all.
        if schedule is not None and not full_match(KARPENTER_BUDGET_SCHEDULE_RE, schedule):
            raise fail(
                f"{schedule!r} is not a cron schedule: five fields (minute hour day month weekday, e.g. "
                "'0 9 * * mon-fri') or a macro such as @daily"
            )
        return schedule

    @field_validator("duration")
    @classmethod
    def _duration(cls, duration: str | None) -> str | None:
        if duration is not None and not pattern_search(KARPENTER_BUDGET_DURATION_RE, duration):
            raise fail(f"{duration!r} must be hours and/or minutes, e.g. 8h, 30m or 1h30m (cron has no seconds)")
        problem = go_duration_range_problem(duration, never=False)
        if problem:
            raise fail(problem)
        return duration

    @field_validator("reasons")
    @classmethod
    def _reasons(cls, reasons: list[str] | None) -> list[str] | None:
        if reasons is None:
            return None
        wrong = [r for r in reasons if r not in KARPENTER_BUDGET_REASONS]
        if wrong:
            raise fail(f"{listed(wrong, quote=True)} are not disruption reasons; allowed: {', '.join(KARPENTER_BUDGET_REASONS)}")
        if len(set(reasons)) != len(reasons):
            raise fail(f"{flow_yaml(list(reasons))} repeats a reason; list each once")
        return reasons

    @model_validator(mode="after")
    def _pair(self) -> KarpenterBudget:
        if (self.schedule is None) != (self.duration is None):
            raise fail("set schedule and duration together (Karpenter: 'schedule' must be set with 'duration')")
        return self

    def to_k8s(self) -> dict[str, Any]:
        out: dict[str, Any] = {"nodes": self.nodes}
        if self.schedule is not None:
            out["schedule"] = self.schedule
            out["duration"] = self.duration
        if self.reasons is not None:
            out["reasons"] = list(self.reasons)
        return out


class KarpenterDisruption(Model):
    """``spec.disruption``: when Karpenter may remove or replace the pool's nodes.

    ``consolidationPolicy``: WhenEmpty | WhenEmptyOrUnderutilized (Karpenter's default) | Balanced.
    ``consolidateAfter``: how long a node stays empty/underutilized first (``0s``, ``5m``,
    ``1h30m`` or ``Never``). ``budgets``: at most 50; Karpenter's default is ``[{nodes: 10%}]``.
    """

    consolidation_policy: str = Field("WhenEmptyOrUnderutilized", description="WhenEmpty | WhenEmptyOrUnderutilized | Balanced")
    consolidate_after: str = Field("0s", description="Duration (s/m/h) or Never.")
    budgets: list[KarpenterBudget] | None = Field(None, description="At most 50; default [{nodes: 10%}].")

    @field_validator("consolidation_policy")
    @classmethod
    def _policy(cls, policy: str) -> str:
        if policy in KARPENTER_CONSOLIDATION_POLICIES:
            return policy
        if policy == "WhenUnderutilized":
            raise fail("'WhenUnderutilized' is the v1beta1 name; Karpenter v1 calls it WhenEmptyOrUnderutilized")
        raise fail(f"{policy!r} is not a consolidation policy; allowed: {', '.join(KARPENTER_CONSOLIDATION_POLICIES)}")

    @field_validator("consolidate_after", mode="before")  # before the str check, so a bare number hears why
    @classmethod
    def _after(cls, after: Any) -> Any:
        problem = karpenter_duration_problem(after)
        if problem:
            raise fail(problem)
        return after

    @field_validator("budgets")
    @classmethod
    def _budgets(cls, budgets: list[KarpenterBudget] | None) -> list[KarpenterBudget] | None:
        if budgets is not None and len(budgets) > KARPENTER_MAX_BUDGETS:
            raise fail(f"{len(budgets)} budgets; a NodePool takes at most {KARPENTER_MAX_BUDGETS}")
        return budgets


def _decimal(value: Fraction | None) -> str:
    """A quantity's value for a message: ``1.5``, ``0.5``, ``0.001``."""
    return format(float(value or 0), "g")


def nodepool_limits_problems(limits: Mapping[str, Any]) -> list[str]:
    """Why a GPU NodePool's ``spec.limits`` is refused; empty when fine.

    ``limits`` is the value as written (checked before pydantic reads it, so that a value that is
    neither an int nor a string gets one sentence). Rules: resource names are qualified names,
    values Kubernetes quantities >= 0 (CRD ``limits`` additionalProperties: int-or-string
    quantity; :func:`quantity_problem`), and ``nvidia.com/gpu`` is present and a whole number by
    value, as apimachinery reads a quantity (``32``, ``"32"``, ``"1e3"`` and ``"8k"`` are whole; ``"1.5"`` and
    ``"500m"`` are not): without it the pool can launch GPUs without bound
    (limits are the only cap on a NodePool: kubernetes-sigs/karpenter
    ``pkg/controllers/provisioning/scheduling/scheduler.go`` removes the types that exceed them). A string the
    pattern admits that :func:`~gpu_node_pool.k8s.quantity.quantity` cannot read exactly (an exponent outside int32,
    a value of 10^1000 or more) is refused with its reason. What is valid but most likely a slip (``"16Gi"`` GPUs)
    is :func:`gpu_limit_warning`'s.
    """
    problems: list[str] = []
    for resource, value in limits.items():
        bad = qualified_name_problem(resource)
        if bad:
            problems.append(f"resource name {resource!r} {bad}")
        bad = quantity_problem(value)
        if bad:
            problems.append(f"{resource}: {bad}")
        elif isinstance(value, str):
            try:
                quantity(value)
            except QuantityError as error:  # the CRD pattern admits it, no exact reading holds it
                problems.append(f"{resource}: {error} (apimachinery resource.Quantity, {QUANTITY_SOURCE}); "
                                "write a smaller quantity without a long exponent, e.g. 32 or 4000Gi")
    gpus = limits.get(KARPENTER_GPU_RESOURCE)
    if gpus is None:
        problems.append(
            f"missing {KARPENTER_GPU_RESOURCE}: a GPU NodePool without a GPU limit can launch GPUs without bound; "
            f"add e.g. {KARPENTER_GPU_RESOURCE}: 32"
        )
    elif quantity_problem(gpus) is None and (parse_quantity(gpus) or Fraction(0)).denominator != 1:
        problems.append(f"{KARPENTER_GPU_RESOURCE}: {gpus!r} is {_decimal(parse_quantity(gpus))} GPUs; "
                        "the limit must be a whole number of GPUs, e.g. 32")
    return problems


#: Where a quantity's suffix and its int64 reading are defined.
QUANTITY_SOURCE = "kubernetes/apimachinery pkg/api/resource/quantity.go@v0.34.10 ParseQuantity, suffix.go"
#: Extended resources such as ``nvidia.com/gpu`` are whole units.
EXTENDED_RESOURCES_URL = "https://kubernetes.io/docs/concepts/extend-kubernetes/compute-storage-net/device-plugins/"


def gpu_limit_warning(value: Any) -> str | None:
    """The warning for a ``nvidia.com/gpu`` limit written with a suffix or an exponent (``"16Gi"``, ``"2k"``,
    ``"1e400"``), or above int64, or None. A GPU count is a plain integer (extended resources are whole units:
    :data:`EXTENDED_RESOURCES_URL`), so a suffix is most likely a memory amount written as a count: ``"16Gi"`` is
    17179869184 GPUs. Past int64 apimachinery's ``Quantity.Value()`` overflows (:data:`QUANTITY_SOURCE`). Only a
    limit the refusals of :func:`nodepool_limits_problems` let through is judged.

    The number and its suffix are split and read by the quantity parser (:mod:`gpu_node_pool.k8s.quantity`, as
    apimachinery's ``parseQuantityString``). The fix: the count itself up to 10^6; else the number before a decimal or
    binary suffix if whole (``"16Gi"``, ``"016Gi"``, ``"+16Gi"``: 16; ``"1.5Gi"``: none); else 32.
    """
    if quantity_problem(value) is not None:
        return None
    try:
        amount = quantity(value)
        suffix = split_quantity(value)[3] if isinstance(value, str) else ""
        number = quantity(value[: len(value) - len(suffix)]) if suffix else amount
    except QuantityError:
        return None
    count_value = int(amount)
    if not suffix and count_value <= INT64_MAX:
        return None
    count = f"{count_value}" if count_value < 10**21 else f"about 10^{len(str(count_value)) - 1}"
    why = []
    if suffix:
        scale = ("a binary (memory) suffix" if suffix.endswith("i") else
                 "an exponent" if suffix[0] in "eE" else "a decimal SI suffix")
        why.append(f"{suffix} is {scale}, which multiplies the number ({QUANTITY_SOURCE}), and a GPU count is a plain "
                   f"integer (extended resources are whole units: {EXTENDED_RESOURCES_URL})")
    if count_value > INT64_MAX:
        why.append(f"it is above int64 ({INT64_MAX}), where Quantity.Value() overflows ({QUANTITY_SOURCE}), so it "
                   "caps nothing")
    if count_value <= 10**6:
        fix = f"{KARPENTER_GPU_RESOURCE}: {count_value} says the same"
    else:
        plain = suffix and suffix[0] not in "eE" and number.denominator == 1 and number > 0
        fix = f"e.g. {KARPENTER_GPU_RESOURCE}: {int(number) if plain else 32}"
    return (f"{KARPENTER_GPU_RESOURCE}: {show(value)} is {count} GPUs: {'; '.join(why)}; write the number of GPUs the "
            f"pool may run as a plain integer ({fix})")


def nodepool_manifest(
    pool: Any, node_class_ref: Mapping[str, str], requirements: list[dict[str, Any]], pool_label: str
) -> dict[str, Any]:
    """The ``karpenter.sh/v1`` ``NodePool`` object of a pool model with NodePool fields.

    ``pool`` has ``name``, ``node_labels``, ``taint_list``, ``limits``, ``disruption``
    (:class:`KarpenterDisruption`), ``weight``, ``expire_after``, ``termination_grace_period``
    and optionally ``startup_taint_list``. Fills ``metadata`` (name, ``{pool_label: name}``),
    ``spec.template.metadata.labels``, ``spec.template.spec`` (``nodeClassRef``,
    ``requirements``, ``taints``/``startupTaints`` in Kubernetes spelling when not empty,
    ``expireAfter``, ``terminationGracePeriod`` when set), ``spec.limits`` (sorted),
    ``spec.disruption`` (``consolidationPolicy``, ``consolidateAfter``, ``budgets`` when set)
    and ``spec.weight`` when set. Equal inputs give equal dicts with equal key order.
    """
    template_spec: dict[str, Any] = {"nodeClassRef": dict(node_class_ref), "requirements": requirements}
    if pool.taint_list:
        template_spec["taints"] = [t.to_k8s() for t in pool.taint_list]
    startup = getattr(pool, "startup_taint_list", [])
    if startup:
        template_spec["startupTaints"] = [t.to_k8s() for t in startup]
    if pool.expire_after is not None:
        template_spec["expireAfter"] = pool.expire_after
    if pool.termination_grace_period is not None:
        template_spec["terminationGracePeriod"] = pool.termination_grace_period
    disruption: dict[str, Any] = {
        "consolidationPolicy": pool.disruption.consolidation_policy,
        "consolidateAfter": pool.disruption.consolidate_after,
    }
    if pool.disruption.budgets is not None:
        disruption["budgets"] = [b.to_k8s() for b in pool.disruption.budgets]
    spec: dict[str, Any] = {
        "template": {"metadata": {"labels": pool.node_labels}, "spec": template_spec},
        "limits": dict(sorted(pool.limits.items())),
        "disruption": disruption,
    }
    if pool.weight is not None:
        spec["weight"] = pool.weight
    return {
        "apiVersion": NODEPOOL_API_VERSION,
        "kind": "NodePool",
        "metadata": {"name": pool.name, "labels": {pool_label: pool.name}},
        "spec": spec,
    }
