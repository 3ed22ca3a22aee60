"""Policy ``admission-policies-match-pools``: the stack's admission objects match its pools (mandatory).

The ValidatingAdmissionPolicies and bindings, or Gatekeeper ConstraintTemplates and Constraints, that a
stack installs carry the model they were rendered from (:data:`gpu_node_pool.admission.drift.DERIVED_FROM`).
This rule finds every such object among the stack's resources and reports one that

* differs from what its own model renders (edited by hand after rendering), or
* was rendered from other pools or taints than the GPU pools the stack declares (stale: copied from an
  older render, or kept while a pool's taint changed), or
* carries no readable model (not judged, reported, never passed).

The declared pools are the pools the pack finds that carry the ``gpu-node-pools/pool`` label (the
``GpuNodePool`` component's); GPU pools without it (node groups written by hand) are outside the
admission rules, and a stack with admission objects and such pools gets a finding saying so.
A stack without admission objects is not judged by this rule (nothing is installed).
"""

from __future__ import annotations

from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    ReportViolation,
    StackValidationArgs,
    StackValidationPolicy,
)

from ...k8s.wellknown import POOL_LABEL_KEY
from ...sdk.props import Undecided, UnknownValueError, plain
from ._shared import _stack_pools

_VAP_TYPES = {
    "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy": "ValidatingAdmissionPolicy",
    "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding": "ValidatingAdmissionPolicyBinding",
}
_GATEKEEPER = ("kubernetes:templates.gatekeeper.sh/", "kubernetes:constraints.gatekeeper.sh/")


def _bodies(args: StackValidationArgs, undecided: Undecided) -> list[tuple[Any, dict[str, Any]]]:
    from ...admission.drift import DERIVED_FROM

    out = []
    for res in args.resources:
        kind = _VAP_TYPES.get(res.resource_type)
        if kind is None and not res.resource_type.startswith(_GATEKEEPER):
            continue
        try:
            body = plain(res.props)
        except UnknownValueError as err:
            undecided.add(f"{res.resource_type} {res.name}", err)
            continue
        if not isinstance(body, dict):
            continue
        if kind is not None:
            body = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, **body}
        if DERIVED_FROM in ((body.get("metadata") or {}).get("annotations") or {}) or \
                ((body.get("metadata") or {}).get("labels") or {}).get("app.kubernetes.io/managed-by") == "gpu-node-pools":
            out.append((res, body))
    return out


def validate_admission_policies_match_pools(args: StackValidationArgs, report: ReportViolation) -> None:
    """Every admission object the stack installs matches the declared pools (module docstring)."""
    undecided = Undecided()
    found = _bodies(args, undecided)
    if not found:
        undecided.raise_if_any()
        return
    from ...admission.drift import check  # the admission model: only for a stack that installs admission objects

    declared: dict[str, Any] = {}
    outside = []
    for pool in _stack_pools(args, undecided):
        name = (pool.labels or {}).get(POOL_LABEL_KEY)
        if name:
            declared[name] = pool.taints
        else:
            outside.append(pool.display)
    by_name = {(b.get("kind"), (b.get("metadata") or {}).get("name")): res for res, b in found}
    for drift in check([b for _, b in found], declared):
        res = by_name.get((drift.kind, drift.name))
        report(drift.message, res.urn if res is not None else None)
    if outside:
        res = found[0][0]
        report(f"GPU pools outside the GpuNodePool component ({', '.join(outside)}) are not in the admission "
               "policies, which know only the pools of gpu-node-pools:pools: the cluster does not enforce the "
               "rules for their nodes. Declare them in the stack config, or accept that only the preview judges them.",
               res.urn)
    undecided.raise_if_any()


POLICY = StackValidationPolicy(
    name="admission-policies-match-pools",
    description="The admission policies (ValidatingAdmissionPolicy or Gatekeeper) the stack installs were rendered "
                "from its declared pools and not edited since.",
    validate=validate_admission_policies_match_pools,
    enforcement_level=EnforcementLevel.MANDATORY,
    remediation_steps="Render the admission objects again from the stack (gpupool render, or let the program install "
                      "them) instead of editing or copying them; declare every GPU pool in gpu-node-pools:pools.",
)
