"""Policy ``gpu-toleration-allowlist``: workloads that request no GPU tolerate GPU pool taints (or everything) only in
allow-listed namespaces (mandatory).

The allow-list judges workloads, not node agents. A DaemonSet is a node agent: tolerating the GPU pools'
taints is what ``daemonsets-tolerate-gpu-taints`` and ``gpu-agents-cover-gpu-pools`` ask of it, so this rule
never fails a DaemonSet; a DaemonSet with a catch-all toleration gets the advisory
``daemonsets-tolerate-exactly`` instead. The namespaces the product installs its own agents into
(``agentNamespace`` of its agent components) are allowed on top of ``allowedNamespaces``.
"""

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
from ...text.listing import listed
from ..gpu_agents import installed_agent_namespaces
from ..stack import stack_index
from ..workloads import gpu_resources_requested, read_tolerations, tolerations_refused_text
from ._shared import (
    _TAINT_LIST,
    CONFIG_DEFAULTS,
    NAMESPACE_LIST,
    REFUSED_FIX,
    _config,
    _fmt,
    _resource,
    _stack_gpu_taints,
)


def validate_gpu_toleration_allowlist(args: StackValidationArgs, report: ReportViolation) -> None:
    """Only allow-listed namespaces carry tolerations of GPU pool taints, or catch-all tolerations.

    Allowed: ``allowedNamespaces`` plus the namespaces of the product's agent components in the stack.
    DaemonSets are never judged here (node agents; see the module docstring). A pod that requests a GPU resource (``nvidia.com/gpu``, ``nvidia.com/gpu.shared``,
    ``nvidia.com/mig-*``) is a GPU workload wherever it lives: its GPU tolerations are never
    flagged (the allow-list is for pods that tolerate GPU taints without requesting GPUs).
    Catch-all tolerations are flagged for every pod outside the allow-list.
    """
    config = _config(args, "gpu-toleration-allowlist")
    index = stack_index(args)
    allowed = set(config.get("allowedNamespaces") or []) | installed_agent_namespaces(index)
    undecided = Undecided()
    gpu_taints = _stack_gpu_taints(args, config, undecided)
    for res, workload, read_error in index.workloads():
        try:
            if read_error is not None:
                raise read_error
            if workload is None or workload.namespace in allowed or workload.kind == "DaemonSet":
                continue
            tolerations, refused = read_tolerations(workload.pod_spec)
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
        if offending and refused:  # the API server creates no such object: the finding would not be true
            undecided.not_judged(workload.display, f"not judged: {tolerations_refused_text(workload.pod_spec, refused)}", REFUSED_FIX)
        elif offending:
            report(
                f"{workload.display} carries {'; '.join(offending)}, but namespace {workload.namespace!r} is not "
                f"allowed to tolerate GPU taints (allowedNamespaces: [{listed(sorted(allowed))}]). A toleration only permits; "
                "remove it, or request the GPU the workload needs, or add the namespace to allowedNamespaces if it "
                "runs GPU work. Node agents belong in DaemonSets, which this rule does not judge.",
                res.urn,
            )
    undecided.raise_if_any()


POLICY = StackValidationPolicy(
    name="gpu-toleration-allowlist",
    description="Workloads (not DaemonSets) that request no GPU may carry tolerations for GPU pool taints only in "
    "allow-listed namespaces (allowedNamespaces plus the namespaces of the agents the product installs); catch-all "
    "tolerations (empty key with Exists) only there too.",
    validate=validate_gpu_toleration_allowlist,
    enforcement_level=EnforcementLevel.MANDATORY,
    config_schema=PolicyConfigSchema(
        properties={
            "allowedNamespaces": {
                **NAMESPACE_LIST,
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
        "allowedNamespaces (policy pack config) when it hosts GPU workloads. DaemonSets (node agents) are not judged "
        "here: they tolerate the pool taints as daemonsets-tolerate-gpu-taints asks, and a catch-all toleration on "
        "one gets the advisory daemonsets-tolerate-exactly."
    ),
)
