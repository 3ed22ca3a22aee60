"""Policy ``noexecute-gpu-taint``: a ``NoExecute`` taint on a GPU pool evicts the agents that do not tolerate it, so ``NoSchedule`` is suggested (advisory)."""

from __future__ import annotations

from pulumi_policy import (
    EnforcementLevel,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
)

from ...k8s.taints import Taint, TaintEffect
from ...registry import by_detected_type
from ..pools import (
    gpu_pool_of,
)
from ._shared import _NE, _NS, _fmt


def judges(resource_type: str) -> bool:
    """Whether :func:`validate_noexecute_gpu_taint` reads a resource of this type: one a backend detects pools in
    (the registry's ``detects``); it returns at once for any other."""
    return bool(by_detected_type(resource_type))


def validate_noexecute_gpu_taint(args: ResourceValidationArgs, report: ReportViolation) -> None:
    """A GPU pool's evicting taint (``TaintEffect.evicts``) evicts node agents that do not tolerate it."""
    pool = gpu_pool_of(args.resource_type, args.props, args.name, args.urn)
    if pool is None:
        return
    evicting = [t for t in pool.taints if t.effect.evicts]
    if evicting:
        softer = [Taint(t.key, t.value, TaintEffect.NO_SCHEDULE) for t in evicting]
        report(
            f"{pool.display} has {_fmt(evicting)}: {TaintEffect.NO_EXECUTE.value} also evicts running pods that do "
            "not tolerate it (log and metric agents, CSI node plugins, a device plugin tolerating only "
            f"{TaintEffect.NO_SCHEDULE.value}), and agents tolerating it with tolerationSeconds leave after that "
            f"time. Prefer {_fmt(softer)}.",
            None,
        )


POLICY = ResourceValidationPolicy(
    name="noexecute-gpu-taint",
    description=f"A {_NE} taint on a GPU pool evicts agents that don't tolerate it; {_NS} is suggested.",
    validate=validate_noexecute_gpu_taint,
    enforcement_level=EnforcementLevel.ADVISORY,
    remediation_steps=f"Use {_NS} for GPU pool taints unless running pods must really be evicted.",
)
