"""Karpenter v1.14.1 CRD limits and the CEL/Go rules mirrored at config time (tests/test_karpenter.py checks them against the CRDs)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any

from pydantic import (
    Field,
    model_validator,
)

from ...config.common import PoolBase, _check_labels, _fail, _labels_problems, _Model  # noqa: F401
from ...config.errors import ConfigIssue  # noqa: F401
from ...taints import (
    label_value_problem,
    qualified_name_problem,
)
from ...wellknown import NVIDIA_GPU_RESOURCE

KARPENTER_MAX_REQUIREMENTS = 100  # NodePool spec.template.spec.requirements maxItems
KARPENTER_MAX_LABELS = 100  # NodePool spec.template.metadata.labels maxProperties
KARPENTER_REQUIREMENT_KEY_MAX = 316  # requirements[].key maxLength
KARPENTER_MAX_MIN_VALUES = 50  # requirements[].minValues maximum
KARPENTER_MAX_BUDGETS = 50  # disruption.budgets maxItems
KARPENTER_MAX_SELECTOR_TERM_TAGS = 20  # EC2NodeClass *SelectorTerms[].tags maxProperties
KARPENTER_ALIAS_MAX = 30  # EC2NodeClass amiSelectorTerms[].alias maxLength
KARPENTER_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte")
_KARPENTER_INTEGER_OPERATORS = ("Gt", "Lt", "Gte", "Lte")
KARPENTER_CAPACITY_TYPES = ("on-demand", "spot", "reserved")
KARPENTER_ARCHITECTURES = ("amd64", "arm64")
KARPENTER_CONSOLIDATION_POLICIES = ("WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced")
KARPENTER_BUDGET_REASONS = ("Underutilized", "Empty", "Drifted")
#: AMI alias families that have NVIDIA variants Karpenter picks for GPU instances (al2 AMIs
#: stopped being published on 2025-11-26; Windows has no NVIDIA EKS AMI).
KARPENTER_GPU_ALIAS_FAMILIES = ("al2023", "bottlerocket")
#: NodePool label CEL rule: of the karpenter.sh domain only these keys pass
#: (``karpenter.sh/nodepool`` is listed there but refused by its own rule).
KARPENTER_SH_ALLOWED_LABELS = ("karpenter.sh/capacity-type",)
#: NodePool label and requirement-key CEL rule: the karpenter.k8s.aws keys that pass (v1.14.1).
KARPENTER_AWS_ALLOWED_LABELS = frozenset(
    "karpenter.k8s.aws/" + name
    for name in (
        "instance-tenancy", "capacity-reservation-type", "capacity-reservation-id",
        "capacity-reservation-interruptible", "ec2nodeclass", "instance-encryption-in-transit-supported",
        "instance-category", "instance-hypervisor", "instance-family", "instance-generation",
        "instance-local-nvme", "instance-size", "instance-cpu", "instance-cpu-manufacturer",
        "instance-cpu-sustained-clock-speed-mhz", "instance-memory", "instance-ebs-bandwidth",
        "instance-network-bandwidth", "instance-gpu-name", "instance-gpu-manufacturer", "instance-gpu-count",
        "instance-gpu-memory", "instance-accelerator-name", "instance-accelerator-manufacturer",
        "instance-accelerator-count", "instance-capability-flex", "placement-group-id",
        "placement-group-partition",
    )
)
#: Requirement keys the pool's dedicated fields write; neither ``requirements`` nor
#: ``labels`` may set them too (Karpenter would intersect both silently).
KARPENTER_MANAGED_KEYS = {
    "karpenter.k8s.aws/instance-family": "instanceFamilies",
    "node.kubernetes.io/instance-type": "instanceTypes",
    "karpenter.k8s.aws/instance-gpu-manufacturer": "(always nvidia)",
    "karpenter.k8s.aws/instance-gpu-count": "gpuCounts",
    "karpenter.k8s.aws/instance-gpu-name": "gpuNames",
    "karpenter.sh/capacity-type": "capacityTypes",
    "kubernetes.io/arch": "architecture",
    "topology.kubernetes.io/zone": "zones",
}
#: The resource every GPU NodePool must limit.
KARPENTER_GPU_RESOURCE = NVIDIA_GPU_RESOURCE

# CRD patterns (searched like an OpenAPI ``pattern``: unanchored unless the pattern anchors).
_K_DURATION_RE = re.compile(r"^(([0-9]+(s|m|h))+|Never)$")  # expireAfter, consolidateAfter
_K_GRACE_RE = re.compile(r"^([0-9]+(s|m|h))+$")  # terminationGracePeriod
_K_BUDGET_NODES_RE = re.compile(r"^((100|[0-9]{1,2})%|[0-9]+)$")
_K_BUDGET_DURATION_RE = re.compile(r"^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$")
_K_BUDGET_SCHEDULE_RE = re.compile(
    r"^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$"
)
_K_QUANTITY_RE = re.compile(
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
_K_ALIAS_RE = re.compile(r"^[a-zA-Z0-9]+@.+$")
_K8S_OBJECT_NAME_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
# IAM role names (IAM API CreateRole RoleName): 1-64 of [A-Za-z0-9+=,.@_-].
_IAM_ROLE_NAME_RE = re.compile(r"^[\w+=,.@-]{1,64}$")
_K_RESTRICTED_TAGS = ("eks:eks-cluster-name", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim",
                      "karpenter.k8s.aws/ec2nodeclass")


def _cel_label_domain(key: str) -> str:
    # The CRD's CEL rules take key.find("^([^/]+)"): everything before the first '/', or the
    # whole key when it has none, then test endsWith() -- a plain suffix, not a DNS subdomain
    # (so "mykarpenter.sh/x" is refused too). Mirrored exactly.
    match = re.match(r"[^/]+", key)
    return match.group(0) if match else ""


def karpenter_label_problem(key: str) -> str | None:
    """Why Karpenter refuses ``key`` as a NodePool label or requirement key, or None.

    Rules (NodePool CRD v1.14.1, ``x-kubernetes-validations`` on
    ``spec.template.metadata.labels`` and on ``requirements[].key``), checked in this order:

    1. ``karpenter.sh/nodepool``: Karpenter sets it ("label "karpenter.sh/nodepool" is restricted").
    2. ``kubernetes.io/hostname``: refused ("label "kubernetes.io/hostname" is restricted").
    3. A key whose domain (the text before the first ``/``, or the whole key) ends with
       ``karpenter.sh``, other than ``karpenter.sh/capacity-type``
       ("label domain "karpenter.sh" is restricted").
    4. A key whose domain ends with ``karpenter.k8s.aws``, other than the well-known
       :data:`KARPENTER_AWS_ALLOWED_LABELS` ("label domain "karpenter.k8s.aws" is restricted").
    """
    if key == "karpenter.sh/nodepool":
        return (
            "'karpenter.sh/nodepool' is set by Karpenter to the NodePool name (NodePool CRD: label "
            "\"karpenter.sh/nodepool\" is restricted); select the pool with gpu-node-pools/pool instead"
        )
    if key == "kubernetes.io/hostname":
        return (
            "'kubernetes.io/hostname' is the node's own name and cannot be set for a whole pool (NodePool CRD: "
            "label \"kubernetes.io/hostname\" is restricted); remove it"
        )
    domain = _cel_label_domain(key)
    if domain.endswith("karpenter.sh") and key not in KARPENTER_SH_ALLOWED_LABELS:
        return (
            f"{key!r} is in the karpenter.sh domain, which Karpenter reserves for itself (NodePool CRD: label "
            "domain \"karpenter.sh\" is restricted; only karpenter.sh/capacity-type is allowed); use your own "
            "domain, e.g. example.com/" + key.rpartition("/")[2]
        )
    if domain.endswith("karpenter.k8s.aws") and key not in KARPENTER_AWS_ALLOWED_LABELS:
        return (
            f"{key!r} is in the karpenter.k8s.aws domain, which Karpenter reserves (NodePool CRD: label domain "
            "\"karpenter.k8s.aws\" is restricted; only its well-known labels such as "
            "karpenter.k8s.aws/instance-family are allowed); use your own domain, e.g. example.com/"
            + key.rpartition("/")[2]
        )
    return None


def _karpenter_duration_problem(value: str, *, never: bool = True) -> str | None:
    pattern = _K_DURATION_RE if never else _K_GRACE_RE
    if not isinstance(value, str) or not pattern.search(value):
        allowed = "or Never " if never else ""
        return (
            f"{value!r} is not a Karpenter duration: write hours, minutes and seconds like 720h, 30m or 1h30m "
            f"{allowed}(pattern {pattern.pattern}; no days, no spaces)"
        )
    return None


def _quantity_problem(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return f"{value!r} must be a Kubernetes quantity: an integer or a string such as '1000' or '4000Gi'"
    if isinstance(value, str) and not _K_QUANTITY_RE.search(value):
        return f"{value!r} is not a Kubernetes quantity (e.g. 32, '1000', '4000Gi', '500m')"
    if str(value).startswith("-"):
        return f"{value!r} is negative; a limit of capacity must be >= 0"
    return None


def _selector_tags_problem(tags: Mapping[str, str], what: str) -> str | None:
    # EC2NodeClass *SelectorTerms[].tags: maxProperties 20; CEL "empty tag keys or values aren't supported".
    if not tags:
        return f"{what} must hold at least one tag"
    if len(tags) > KARPENTER_MAX_SELECTOR_TERM_TAGS:
        return f"{what} has {len(tags)} tags; a Karpenter selector term takes at most {KARPENTER_MAX_SELECTOR_TERM_TAGS}"
    empty = [k for k, v in tags.items() if k == "" or v == ""]
    if empty:
        return f"{what}: tag {empty[0]!r} has an empty key or value, which Karpenter does not support (use '*' for any value)"
    return None


class KarpenterRequirement(_Model):
    """An extra NodePool requirement (``spec.template.spec.requirements[]``).

    ``{key, operator, values, minValues}``: ``key`` a qualified name up to 316 characters outside
    the restricted Karpenter domains; ``operator`` one of In, NotIn, Exists, DoesNotExist, Gt, Lt,
    Gte, Lte; ``In`` needs values; Gt/Lt/Gte/Lte need exactly one non-negative integer; Exists and
    DoesNotExist take no values; ``minValues`` 1-50 and at most the number of values.
    Sources: NodePool CRD v1.14.1 and ``nodeclaim_validation.go`` ``ValidateRequirement``.
    """

    key: str = Field(description="Label key, e.g. karpenter.k8s.aws/instance-gpu-memory.")
    operator: str = Field(description="In | NotIn | Exists | DoesNotExist | Gt | Lt | Gte | Lte")
    values: list[str] = Field(default_factory=list, description="Label values (<= 63 characters each).")
    min_values: int | None = Field(None, description="1-50, at most len(values); In only.")

    @model_validator(mode="after")
    def _rules(self) -> KarpenterRequirement:
        problems = karpenter_requirement_problems(self.key, self.operator, self.values, self.min_values)
        if problems:
            raise _fail("; ".join(problems))
        return self

    def to_k8s(self) -> dict[str, Any]:
        """The NodePool requirement object (``values`` omitted when empty)."""
        out: dict[str, Any] = {"key": self.key, "operator": self.operator}
        if self.values:
            out["values"] = list(self.values)
        if self.min_values is not None:
            out["minValues"] = self.min_values
        return out


def karpenter_requirement_problems(key: Any, operator: Any, values: list[Any], min_values: int | None) -> list[str]:
    """Every reason Karpenter refuses a NodePool requirement; empty when it is fine.

    Rules in the order checked: key syntax (qualified name, CRD ``maxLength: 316`` and
    pattern), restricted keys (:func:`karpenter_label_problem`), ``operator`` enum, value
    syntax (label values, ``maxLength: 63``), the CEL rules "requirements with operator 'In'
    must have a value defined", "operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single
    positive integer value" and "'minValues' must have at least that many values", the
    ``minValues`` range 1-50, and (CRD field description) no values with Exists/DoesNotExist.
    """
    problems = []
    syntax = qualified_name_problem(key)
    if syntax:
        problems.append(f"key {key!r} {syntax}")
    elif len(key) > KARPENTER_REQUIREMENT_KEY_MAX:
        problems.append(f"key {key!r} is {len(key)} characters; Karpenter allows {KARPENTER_REQUIREMENT_KEY_MAX}")
    else:
        restricted = karpenter_label_problem(key)
        if restricted:
            problems.append(f"key {restricted}")
    if operator not in KARPENTER_OPERATORS:
        close = difflib.get_close_matches(str(operator), KARPENTER_OPERATORS, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        problems.append(f"operator {operator!r} is not one of {', '.join(KARPENTER_OPERATORS)}{hint}")
    for value in values:
        bad = label_value_problem(value)
        if bad:
            problems.append(f"value {value!r} {bad}")
    if operator == "In" and not values:
        problems.append("operator In needs at least one value (Karpenter: requirements with operator 'In' must have a value defined)")
    if operator in _KARPENTER_INTEGER_OPERATORS:
        if len(values) != 1 or not (isinstance(values[0], str) and values[0].isdigit()):
            problems.append(
                f"operator {operator} needs exactly one non-negative integer value, e.g. values: [\"0\"] "
                f"(got {values!r})"
            )
    if operator in ("Exists", "DoesNotExist") and values:
        problems.append(f"operator {operator} takes no values; remove values {values!r}")
    if min_values is not None:
        if isinstance(min_values, bool) or not 1 <= min_values <= KARPENTER_MAX_MIN_VALUES:
            problems.append(f"minValues {min_values!r} must be between 1 and {KARPENTER_MAX_MIN_VALUES}")
        elif operator == "In" and len(values) < min_values:
            problems.append(
                f"minValues {min_values} is more than the {len(values)} value(s) given; list at least {min_values} "
                "values or lower minValues"
            )
    return problems


