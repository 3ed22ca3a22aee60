"""Policy ``gpu-pool-declares-taint``: every GPU pool declares a ``NoSchedule`` or ``NoExecute`` taint (mandatory)."""

from __future__ import annotations

from pulumi_policy import (
    EnforcementLevel,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
)

from ...config import DEFAULT_TAINT
from ...k8s.controller_taints import controller_taint, controller_taint_problems
from ...k8s.taints import TaintEffect
from ...registry import by_detected_type
from ..pools import (
    gpu_pool_of,
)
from ._shared import _NE, _NS, _fmt


def judges(resource_type: str) -> bool:
    """Whether :func:`validate_gpu_pool_declares_taint` reads a resource of this type: one a backend detects pools in
    (the registry's ``detects``); it returns at once for any other."""
    return bool(by_detected_type(resource_type))


def validate_gpu_pool_declares_taint(args: ResourceValidationArgs, report: ReportViolation) -> None:
    """A GPU pool declares at least one repelling taint (``TaintEffect.repels``) that no controller owns
    (:mod:`~gpu_node_pool.k8s.controller_taints`: the node lifecycle controller removes ``node.kubernetes.io/unschedulable``
    from a schedulable node) and no controller-owned taint beside it (the rule the stack config applies,
    :func:`~gpu_node_pool.k8s.controller_taints.controller_taint_problems`), and taints its platform takes: a
    pool's ``problem`` is reported, to be fixed where ``extra["problem_fix_in"]`` says (the lists the problem names,
    given by NodePool pools), else in ``where``."""
    pool = gpu_pool_of(args.resource_type, args.props, args.name, args.urn)
    if pool is None:
        return
    if pool.problem:
        fix_in = pool.extra.get("problem_fix_in") or pool.where
        report(f"{pool.display}: its taints are not valid ({pool.problem}); fix them in {fix_in}.", None)
        return
    owned = [why for _, why in controller_taint_problems(pool.taints)]
    if any(t.effect.repels and controller_taint(t.key) is None for t in pool.taints):
        if owned:
            report(f"{pool.display} declares a taint a controller owns: {'; '.join(owned)}. Fix it in {pool.where}.",
                   None)
        return
    soft = [t for t in pool.taints if not t.effect.repels]
    if owned:
        has = f"no taint of its own: {'; '.join(owned)}"
    else:
        has = f"only {_fmt(soft)}, a scheduling preference, not a rule" if soft else "no taint"
    report(
        f"{pool.display} declares {has}: ordinary pods will be scheduled on its GPU nodes. Declare a "
        f"{TaintEffect.NO_SCHEDULE.value} taint such as {DEFAULT_TAINT} in {pool.where}.",
        None,
    )


POLICY = ResourceValidationPolicy(
    name="gpu-pool-declares-taint",
    description=(
        "Every GPU pool (EKS node group, GKE node pool, Karpenter NodePool, self-managed launch template) "
        f"declares a {_NS} or {_NE} taint."
    ),
    validate=validate_gpu_pool_declares_taint,
    enforcement_level=EnforcementLevel.MANDATORY,
    remediation_steps=(
        f"Add a repelling taint to the pool, e.g. {DEFAULT_TAINT} (GpuNodePool `taints`); "
        f"{TaintEffect.PREFER_NO_SCHEDULE.value} alone only lowers a score."
    ),
)
