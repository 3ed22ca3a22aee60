"""Policy ``gpu-toleration-allowlist``: pods that request no GPU tolerate GPU pool taints (or everything) only in
allow-listed namespaces (mandatory)."""

from __future__ import annotations

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    StackValidationArgs,
    StackValidationPolicy,
)

from ...k8s.taints import tolerates
from ...sdk.props import Undecided, UnknownValueError
from ..stack import stack_index
from ..workloads import gpu_resources_requested, read_tolerations
from ._shared import (
    _TAINT_LIST,
    CONFIG_DEFAULTS,
    _config,
    _fmt,
    _resource,
    _stack_gpu_taints,
)


def validate_gpu_toleration_allowlist(args: StackValidationArgs, report: ReportViolation) -> None:
    """Only allow-listed namespaces carry tolerations of GPU pool taints, or catch-all tolerations.

    A pod that requests a GPU resource (``nvidia.com/gpu``, ``nvidia.com/gpu.shared``,
    ``nvidia.com/mig-*``) is a GPU workload wherever it lives: its GPU tolerations are never
    flagged (the allow-list is for pods that tolerate GPU taints without requesting GPUs).
    Catch-all tolerations are flagged for every pod outside the allow-list.
    """
    config = _config(args, "gpu-toleration-allowlist")
    allowed = set(config.get("allowedNamespaces") or [])
    undecided = Undecided()
    gpu_taints = _stack_gpu_taints(args, config, undecided)
    for res, workload, read_error in stack_index(args).workloads():
        try:
            if read_error is not None:
                raise read_error
            if workload is None or workload.namespace in allowed:
                continue
            tolerations, _ = read_tolerations(workload.pod_spec)
            gpu_workload = bool(gpu_resources_requested(workload.pod_spec))
        except UnknownValueError as err:
            undecided.add(_resource(res), err)
            continue
        offending = []
        for tol in tolerations:
            if tol.is_catch_all:
                offending.append(f"catch-all toleration {tol}")
                continue
            hit = [t for t in gpu_taints if tolerates(tol, t)]
            if hit and not gpu_workload:  # a pod that requests GPUs is a GPU workload wherever it lives
                offending.append(f"toleration {tol} (tolerates {_fmt(hit)})")
        if offending:
            report(
                f"{workload.display} carries {'; '.join(offending)}, but namespace {workload.namespace!r} is not "
                f"allowed to tolerate GPU taints (allowedNamespaces: {sorted(allowed)}). A toleration only permits; "
                "remove it, or add the namespace to allowedNamespaces if it runs GPU work or node agents.",
                res.urn,
            )
    undecided.raise_if_any()


POLICY = StackValidationPolicy(
    name="gpu-toleration-allowlist",
    description="Pods that request no GPU may carry tolerations for GPU pool taints only in allow-listed namespaces; catch-all tolerations (empty key with Exists) only there too.",
    validate=validate_gpu_toleration_allowlist,
    enforcement_level=EnforcementLevel.MANDATORY,
    config_schema=PolicyConfigSchema(
        properties={
            "allowedNamespaces": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Namespaces whose pods may tolerate GPU taints (GPU workloads, node agents).",
                "default": CONFIG_DEFAULTS["gpu-toleration-allowlist"]["allowedNamespaces"],
            },
            "extraTaints": {
                **_TAINT_LIST,
                "description": "GPU taints of pools outside this stack, kubelet form key=value:Effect.",
                "default": CONFIG_DEFAULTS["gpu-toleration-allowlist"]["extraTaints"],
            },
        }
    ),
    remediation_steps=(
        "Remove the GPU toleration from ordinary workloads, or list the namespace in the policy's "
        "allowedNamespaces (policy pack config) when it hosts GPU workloads or node agents."
    ),
)
