"""The admission guard on the cluster: which of the product's admission objects are installed, their action,
and whether they still match the declared pools (drift, :mod:`gpu_node_pool.admission.drift`). Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .findings import Finding, NotJudged

__all__ = ["admission_verdicts"]

_HOW = ("kubectl get validatingadmissionpolicies,validatingadmissionpolicybindings -o json (Gatekeeper: "
        "kubectl get constrainttemplates,constraints -o json) into the dump")


def admission_verdicts(objects: Sequence[Mapping[str, Any]], read: bool, declared: Any | None
                       ) -> tuple[list[Finding], list[NotJudged], list[str]]:
    """``(findings, not judged, notes)`` for the admission objects read (``read``: any admission list was).

    ``declared``: the :class:`~.declared.Declared` stack, or None (no ``--stack``): then installed objects are
    listed and checked against their own model (hand edits) only.
    """
    from ..admission.drift import action_of, check, model_from
    from ..admission.render import RULES

    settings = getattr(declared, "admission", None) or {}
    if not read:
        if settings.get("enabled"):
            return [], [NotJudged("admission", f"the stack enables admission policies but no admission list was read; {_HOW}")], []
        return [], [], []
    ours = [o for o in objects if str((o.get("metadata") or {}).get("name")) in RULES
            or (((o.get("metadata") or {}).get("labels") or {}).get("app.kubernetes.io/managed-by") == "gpu-node-pools")]
    notes = [f"admission: {o.get('kind')} {(o.get('metadata') or {}).get('name')} installed"
             + (f", action {action_of(o)}" if action_of(o) is not None else "") for o in ours]
    findings: list[Finding] = []
    if settings.get("enabled"):
        installed = {str((o.get("metadata") or {}).get("name")) for o in ours if action_of(o) is not None}
        for rule in RULES:
            if rule not in installed:
                findings.append(Finding("mandatory", "admission-not-installed", f"admission rule {rule}",
                                        f"the stack enables admission ({settings.get('engine')}) but the cluster has no "
                                        "binding or Constraint of this rule: the cluster does not enforce it",
                                        "pulumi up the stack, or apply the files of gpupool render"))
        want = settings.get("action")
        for o in ours:
            if action_of(o) is None:
                continue
            try:
                model = model_from(o)
            except ValueError:
                continue  # reported by check() below
            if want and model.action != want:
                findings.append(Finding("advisory", "admission-action-drift", f"{o.get('kind')} {o['metadata']['name']}",
                                        f"installed with action {model.action} ({action_of(o)}), the stack says {want}",
                                        "pulumi up the stack"))
    if declared is not None:
        pools = {p.name: p.taints for p in declared.pools}
        for drift in check(ours, pools):
            findings.append(Finding("mandatory", f"admission-{drift.status}", f"{drift.kind} {drift.name}", drift.message,
                                    "render and install the admission objects again from the stack"))
    else:
        for drift in check(ours, {}):
            if drift.status != "stale":  # no declared pools to be stale against
                findings.append(Finding("mandatory", f"admission-{drift.status}", f"{drift.kind} {drift.name}",
                                        drift.message, "render and install the admission objects again"))
    return findings, [], notes
