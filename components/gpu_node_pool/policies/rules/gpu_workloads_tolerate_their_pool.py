"""Policy ``gpu-workloads-tolerate-their-pool``: a workload that targets GPU nodes can land on them
(issue 16 §1).

For each pod template (not a DaemonSet: ``daemonsets-tolerate-gpu-taints`` judges those) whose
required node selection (``nodeSelector``, required node affinity) is met by the labels of some
GPU pools, every ``NoSchedule``/``NoExecute`` taint of at least one of those pools must be
tolerated by the pod's *effective* tolerations (:func:`gpu_node_pool.taints.effective_tolerations`:
its own, plus ``ExtendedResourceToleration``'s for the extended resources it requests on EKS and
GKE, or where ``admissionPlugins`` says the plugin is on). Otherwise the pod stays Pending for
good (the pattern of aws/karpenter-provider-aws#5703 and vllm-project/aibrix#909). Matching is
Kubernetes' (``taints.py``): with ``Equal`` the values must match.
"""

from __future__ import annotations

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    StackValidationArgs,
    StackValidationPolicy,
)

from ...taints import Toleration, effective_tolerations, untolerated_taints
from ..props import Undecided, UnknownValueError, plain
from ..workloads import NodeSelection, read_tolerations, workload_of
from ._shared import _NE, _NS, _config, _fmt, _resource, _stack_pools


def validate_gpu_workloads_tolerate_their_pool(args: StackValidationArgs, report: ReportViolation) -> None:
    """A pod template pinned to GPU pools tolerates every repelling taint of at least one of them."""
    config = _config(args, "gpu-workloads-tolerate-their-pool")
    plugins = list(config.get("admissionPlugins") or [])
    undecided = Undecided()
    pools = [p for p in _stack_pools(args, undecided) if p.labels]
    if pools:
        for res in args.resources:
            try:
                workload = workload_of(res.resource_type, res.props, res.name)
                if workload is None or workload.kind == "DaemonSet":
                    continue
                selection = NodeSelection.of(workload.pod_spec)
                if not selection.keys:
                    continue  # selects nothing: gpu-workloads-select-gpu-nodes' business
                targets = [p for p in pools if selection.on(p.labels) is True]
                if not targets:
                    continue
                spec = plain(workload.pod_spec)
                own, _ = read_tolerations(workload.pod_spec)  # malformed items skipped (and reported elsewhere)
            except UnknownValueError as err:
                undecided.add(_resource(res), err)
                continue
            misses = []
            for pool in targets:
                # the stack's admission plugins describe a self-managed API server; EKS and GKE keep their defaults
                enabled = (plugins or None) if pool.platform == "self-managed" else None
                tolerations = effective_tolerations(spec, pool.platform, workload.kind, admission_plugins=enabled,
                                                    tolerations=own)
                missing = [t for t in untolerated_taints(tolerations, pool.taints) if t.effect.repels]
                if not missing:
                    break
                misses.append((pool, missing))
            else:
                details = "; ".join(f"{pool.display}: {_fmt(missing)} not tolerated" for pool, missing in misses)
                fixes = {str(Toleration.for_taint(t)) for _, missing in misses[:1] for t in missing}
                report(
                    f"{workload.display} selects GPU nodes it can never land on, so its pods stay Pending: "
                    f"{details}. Add the toleration(s) {sorted(fixes)} (with Equal the value must match the "
                    "taint's exactly), or select another pool.",
                    res.urn,
                )
    undecided.raise_if_any()


gpu_workloads_tolerate_their_pool = StackValidationPolicy(
    name="gpu-workloads-tolerate-their-pool",
    description=f"A pod template whose node selection targets GPU pools tolerates every {_NS}/{_NE} taint "
    "of at least one of them (effective tolerations: its own plus what admission adds).",
    validate=validate_gpu_workloads_tolerate_their_pool,
    enforcement_level=EnforcementLevel.ADVISORY,
    config_schema=PolicyConfigSchema(
        properties={
            "admissionPlugins": {
                "type": "array",
                "items": {"type": "string"},
                "description": "API server admission plugins of a self-managed (kubeadm) cluster, e.g. "
                "[ExtendedResourceToleration]; EKS and GKE have it on already.",
                "default": [],
            },
        }
    ),
    remediation_steps="Add a toleration for each taint of the pool the workload selects (operator Equal with the "
    "taint's value, or Exists), or change its nodeSelector/affinity.",
)
