"""Pool and node-class validators shared by the backends that write a ``karpenter.sh/v1`` NodePool.

:class:`NodePoolBase` is the base of ``KarpenterPool`` (``karpenter``) and ``EksAutoPool``
(``eks-auto``); :class:`NodeClassBase` of ``KarpenterNodeClass`` and ``AutoNodeClass``. Each
subclass still declares every field itself (so field order, defaults and descriptions stay the
backend's); the bases hold the validators whose rule and message are the same in both backends
(``check_fields=False``: the fields are the subclass's). What differs (restricted label domains,
capacity-type and architecture hints, node classes) stays in each backend's folder.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import PrivateAttr, ValidationInfo, field_validator, model_validator

from ...catalog import instances
from ...config.common import Model, PoolBase, fail
from ...config.errors import fail_each
from ...k8s.patterns import full_match
from ...k8s.taints import label_value_problem
from ...k8s.wellknown import ZONE_LABEL
from ...text.listing import listed
from .kubelet_config_fields import duration_seconds
from .nodepool import (
    IAM_ROLE_NAME_RE,
    KARPENTER_GPU_RESOURCE,
    KARPENTER_MAX_LABELS,
    gpu_limit_warning,
    karpenter_duration_problem,
    nodepool_limits_problems,
    written_key_problem,
)
from .registration import flow_yaml

#: An AWS Region code: ``us-east-1``, ``us-gov-west-1``, ``ap-southeast-7``.
AWS_REGION_RE = re.compile(r"^[a-z]{2}(-[a-z]+)+-[0-9]+$")
_ZONES_SOURCE = ("AWS docs, Availability Zones: 'The code for an Availability Zone is its Region code followed by a "
                 "letter identifier', https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-availability-zones.html")


def in_aws_region(zone: str, region: str) -> bool:
    """True when NodePool zone ``zone`` (a ``topology.kubernetes.io/zone`` value) is a zone of ``region``.

    A zone of ``region`` is an Availability Zone, the region and a letter (``us-east-1a``), or a
    Local or Wavelength Zone, whose name starts with the region and ``-`` (``us-east-1-bos-1a``). A
    ``region`` that is no AWS Region code (a secret's placeholder) places nothing: True.
    """
    if not full_match(AWS_REGION_RE, region):
        return True
    return full_match(re.escape(region) + "[a-z]", zone) or zone.startswith(region + "-")


def zones_outside_region_message(outside: list[str], region: str) -> str:
    """The sentence for NodePool zones that are not zones of the stack's ``aws:region``: Karpenter and
    EKS Auto Mode offer capacity only in the zones of the region they run in, so such a NodePool never
    launches a node there."""
    what = f"{outside[0]!r} is not a zone" if len(outside) == 1 else f"{listed(outside, quote=True)} are not zones"
    return (f"{what} of the stack's region {region} (aws:region): a zone's name is its region and a letter, e.g. "
            f"{region}a, and a Local Zone's starts with {region}- ({_ZONES_SOURCE}); the NodePool's nodes launch only in "
            f"the cluster's region, so this pool would never get a node there: write zones of {region}, or fix aws:region")


def excluded_zones_outside_region_message(outside: list[str], region: str) -> str:
    """The warning for ``NotIn`` values of the zone requirement that are not zones of the stack's ``aws:region``
    (:func:`in_aws_region`): the pool's nodes launch only in the cluster's region, so excluding such a zone changes
    nothing; most likely a zone of the region was meant."""
    what, it = (f"{outside[0]!r} is not a zone", "it") if len(outside) == 1 else (f"{listed(outside, quote=True)} are not zones", "them")
    return (f"{what} of the stack's region {region} (aws:region): a zone's name is its region and a letter, e.g. "
            f"{region}a, and a Local Zone's starts with {region}- ({_ZONES_SOURCE}); the NodePool's nodes launch only in "
            f"the cluster's region, so NotIn on {it} excludes nothing: write the zones of {region} to exclude, or drop {it}")


#: The shortest ``expireAfter`` not warned about (:func:`expire_after_warning`), in seconds: one hour.
EXPIRE_AFTER_WARN_BELOW = 3600
#: What Karpenter does with ``expireAfter``, and where it says so.
EXPIRE_AFTER_SOURCE = (
    "Karpenter deletes a NodeClaim once it has lived expireAfter from its creation: expiration is forceful, it drains "
    "the node at once, NodePool disruption budgets do not hold it back and no replacement is launched first "
    "(https://karpenter.sh/docs/concepts/disruption/#expiration; https://karpenter.sh/docs/concepts/nodepools/; "
    "kubernetes-sigs/karpenter@v1.14.1 pkg/controllers/nodeclaim/expiration/controller.go)")


def expire_after_warning(value: str | None) -> str | None:
    """The warning for a NodePool ``spec.template.spec.expireAfter`` under :data:`EXPIRE_AFTER_WARN_BELOW` (``0s``,
    ``10m``, ``59m59s``), or None (unset, ``Never``, an hour or more, or a value the refusals of
    :func:`~.nodepool.karpenter_duration_problem` name).

    The NodePool CRD's pattern admits ``0s`` (``^(([0-9]+(s|m|h))+|Never)$``, aws/karpenter-provider-aws@v1.14.1
    ``pkg/apis/crds/karpenter.sh_nodepools.yaml``) and describes short lifetimes as a tool of "disruption testing", so
    a short one is a warning, not a refusal. Why one hour: expiration is forceful (:data:`EXPIRE_AFTER_SOURCE`), so a
    node living less than that is replaced over and over, and a GPU node spends the first minutes of its life
    launching, joining and loading its driver and device plugin before any GPU pod runs on it, while GPU work
    (training, batch inference) runs for hours; a lifetime meant as policy (AMI refresh, security) is days: Karpenter's
    default is 720h, EKS Auto Mode's 336h. Under an hour is a slip (``0s`` for "off", minutes for hours) or a test.
    """
    if value is None or value == "Never" or karpenter_duration_problem(value) is not None:
        return None
    seconds = duration_seconds(value)
    if seconds is None or seconds >= EXPIRE_AFTER_WARN_BELOW:
        return None
    when = "as soon as it launches" if seconds == 0 else f"{value} after it launches"
    return (f"expireAfter {value!r} (NodePool spec.template.spec.expireAfter) is under an hour: every node of this pool "
            f"is drained and deleted {when}, and the next one too, so expensive GPU nodes are replaced again and again "
            f"and their GPU pods evicted before their work is done ({EXPIRE_AFTER_SOURCE}); write expireAfter: Never to "
            "keep nodes until something else disrupts them, or a lifetime of days, e.g. 720h (Karpenter's default; "
            "EKS Auto Mode's is 336h)")


class NodeClassBase(Model):
    """Validators of the node-class fields both backends declare (``role``)."""

    @field_validator("role", check_fields=False)
    @classmethod
    def _role(cls, role: str | None) -> str | None:
        if role is not None and not full_match(IAM_ROLE_NAME_RE, role):
            hint = f"; give the name, e.g. {role.rsplit('/', 1)[-1]!r}" if role.startswith("arn:") else ""
            raise fail(f"{role!r} is not an IAM role name (1-64 of letters, digits and +=,.@_-){hint}")
        return role


class NodePoolBase(PoolBase):
    """Validators of the NodePool fields both backends declare, and the checks of the whole pool they share."""

    #: The stack's ``aws:region`` the pool was validated with (None: not set, or validated without a stack).
    _aws_region: str | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _record_region(self, info: ValidationInfo) -> NodePoolBase:
        from ...config.stack import context_aws_region

        self._aws_region = context_aws_region(info)
        return self

    def config_warnings(self) -> list[tuple[str, str]]:
        """:meth:`zone_warnings`, :meth:`limit_warnings` and :meth:`expire_after_warnings`; a backend that overrides
        this extends ``super().config_warnings()``."""
        return self.zone_warnings() + self.limit_warnings() + self.expire_after_warnings()

    def limit_warnings(self) -> list[tuple[str, str]]:
        """``[("limits", message)]`` when the ``nvidia.com/gpu`` limit is written with a suffix or an exponent, or is
        above int64 (:func:`~.nodepool.gpu_limit_warning`)."""
        warning = gpu_limit_warning(self.limits.get(KARPENTER_GPU_RESOURCE))
        return [("limits", warning)] if warning else []

    def expire_after_warnings(self) -> list[tuple[str, str]]:
        """``[("expireAfter", message)]`` when ``expireAfter`` is under an hour (:func:`expire_after_warning`)."""
        warning = expire_after_warning(self.expire_after)
        return [("expireAfter", warning)] if warning else []

    def zone_warnings(self) -> list[tuple[str, str]]:
        """``[("requirements[j].values", message)]`` for each zone requirement with ``NotIn`` whose values are not
        zones of the stack's ``aws:region`` (:func:`excluded_zones_outside_region_message`); none when the pool
        was validated without the stack's region."""
        region = self._aws_region
        out = []
        for j, req in enumerate(self.requirements if region else ()):
            if req.key != ZONE_LABEL or req.operator != "NotIn":
                continue
            outside = [z for z in req.values if not in_aws_region(z, region)]
            if outside:
                out.append((f"requirements[{j}].values", excluded_zones_outside_region_message(outside, region)))
        return out

    @classmethod
    def _instance_problems(cls, values: list[str]) -> list[str]:
        """The backend's own refusals of ``instanceFamilies`` / ``instanceTypes`` values; none by default."""
        return []

    @field_validator("instance_families", check_fields=False)
    @classmethod
    def _families(cls, families: list[str] | None) -> list[str] | None:
        problems = [((i,), why) for i, why in instances.nvidia_instance_problems_at(families or [], families=True)]
        problems += [((), why) for why in cls._instance_problems(families or [])]
        if problems:
            raise fail_each(problems)  # each at its own item
        return families

    @field_validator("instance_types", check_fields=False)
    @classmethod
    def _types(cls, types: list[str] | None) -> list[str] | None:
        problems = [((i,), why) for i, why in instances.nvidia_instance_problems_at(types or [])]
        problems += [((), why) for why in cls._instance_problems(types or [])]
        if problems:
            raise fail_each(problems)  # each at its own item
        return types

    @field_validator("gpu_counts", check_fields=False)
    @classmethod
    def _gpu_counts(cls, counts: list[int] | None) -> list[int] | None:
        if counts is not None and (any(c < 1 for c in counts) or len(set(counts)) != len(counts)):
            raise fail(f"{flow_yaml(list(counts))} must be distinct GPU counts >= 1, e.g. [1, 4]")
        return counts

    @classmethod
    def _gpu_name_case_problem(cls, name: str) -> str:
        """Why an upper-case GPU name is refused, in the backend's words (its well-known label)."""
        raise NotImplementedError

    @field_validator("gpu_names", check_fields=False)
    @classmethod
    def _gpu_names(cls, names: list[str] | None) -> list[str] | None:
        for name in names or []:
            bad = label_value_problem(name)
            if bad:
                raise fail(f"{name!r} {bad}")
            if name != name.lower():
                raise fail(cls._gpu_name_case_problem(name))
        return names

    @field_validator("zones", check_fields=False)
    @classmethod
    def _zones(cls, zones: list[str] | None, info: ValidationInfo) -> list[str] | None:
        for zone in zones or []:
            bad = label_value_problem(zone)
            if bad:
                raise fail(f"{zone!r} {bad}")
        from ...config.stack import context_aws_region

        region = context_aws_region(info)
        outside = [(i, z) for i, z in enumerate(zones or []) if region and not in_aws_region(z, region)]
        if region and outside:
            at = (outside[0][0],) if len(outside) == 1 else ()
            raise fail(zones_outside_region_message([z for _, z in outside], region), at=at)
        return zones

    @field_validator("limits", mode="before", check_fields=False)
    @classmethod
    def _limits(cls, limits: Any) -> Any:
        # before pydantic's int-or-string union, which reports a bool or a float once per member
        if not isinstance(limits, Mapping):
            return limits  # pydantic says it must be a mapping
        problems = nodepool_limits_problems(limits)
        if problems:
            raise fail("; ".join(problems))
        return limits

    @field_validator("weight", check_fields=False)
    @classmethod
    def _weight(cls, weight: int | None) -> int | None:
        if weight is not None and not 1 <= weight <= 100:
            raise fail(f"{weight} is outside 1..100 (NodePool spec.weight); omit it for the lowest priority")
        return weight

    @field_validator("expire_after", "termination_grace_period", mode="before", check_fields=False)
    @classmethod
    def _durations(cls, value: Any, info: ValidationInfo) -> Any:  # before the str check: a bare number hears why
        problem = value is not None and karpenter_duration_problem(value, never=info.field_name == "expire_after")
        if problem:
            raise fail(problem)
        return value

    def _nodepool_problems(
        self, selected: list[str], managed_keys: Mapping[str, str], label_problem: Callable[[str], str | None]
    ) -> list[str]:
        """The whole-pool NodePool checks both backends make, in this order: the ``selected`` instance
        families/types match ``architecture``; no extra requirement sets a key another field writes
        (``managed_keys``: key -> field; :func:`~.nodepool.written_key_problem`, which lets the zone key through with
        NotIn or Exists while ``zones`` is unset); ``gpuLabel`` outside the restricted domains
        (``label_problem``); at most :data:`KARPENTER_MAX_LABELS` node labels."""
        problems = []
        arch_name = {"amd64": "x86_64", "arm64": "arm64"}[self.architecture]
        wrong = [v for v in selected if instances.instance_arch(v) != arch_name]
        if wrong:
            problems.append(f"{listed(wrong)} are {instances.instance_arch(wrong[0])} but architecture is {self.architecture}; "
                            "set architecture to match")
        for i, req in enumerate(self.requirements):
            written = written_key_problem(req.key, req.operator, req.values, managed_keys, self.zones)
            if written:
                problems.append(f"requirements[{i}].key {written}")
        restricted = label_problem(self.gpu_label.key)
        if restricted:
            problems.append(f"gpuLabel: {restricted}")
        if len(self.node_labels) > KARPENTER_MAX_LABELS:
            problems.append(f"{len(self.node_labels)} labels (with gpuLabel and gpu-node-pools/pool); a NodePool takes at "
                            f"most {KARPENTER_MAX_LABELS} (karpenter.sh_nodepools.yaml spec.template.metadata.labels "
                            "maxProperties: 100, Karpenter v1.14.1; tests/data/karpenter-crds/)")
        return problems

    def _nodepool_requirements(self, prefix: str, categories: list[str] | None = None) -> list[dict[str, Any]]:
        """The NodePool requirements in a fixed order: category (``categories``), family, type, GPU
        manufacturer, GPU count, GPU name (well-known keys under ``prefix``), capacity type,
        architecture, zone, then the extra ``requirements``."""
        pairs = (
            (prefix + "instance-category", categories),
            (prefix + "instance-family", self.instance_families),
            ("node.kubernetes.io/instance-type", self.instance_types),
            (prefix + "instance-gpu-manufacturer", ["nvidia"]),
            (prefix + "instance-gpu-count", [str(c) for c in self.gpu_counts or []]),
            (prefix + "instance-gpu-name", self.gpu_names),
            ("karpenter.sh/capacity-type", self.capacity_types),
            ("kubernetes.io/arch", [self.architecture]),
            ("topology.kubernetes.io/zone", self.zones),
        )
        reqs = [{"key": key, "operator": "In", "values": list(values)} for key, values in pairs if values]
        return reqs + [r.to_k8s() for r in self.requirements]
