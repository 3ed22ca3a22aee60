"""Policy ``gpu-workloads-select-gpu-nodes``: a pod template that tolerates a GPU taint also selects GPU nodes (the pool label)
or requests ``nvidia.com/gpu`` (advisory); and a GPU agent DaemonSet (NVIDIA's device plugin, the DCGM exporter) selects GPU
nodes at all, instead of landing on every CPU node."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    StackValidationArgs,
    StackValidationPolicy,
)

from ...k8s.labels import DEFAULT_GPU_LABEL
from ...k8s.quantity import parse_quantity
from ...k8s.taints import Taint, Toleration, tolerates
from ...k8s.wellknown import is_gpu_resource
from ...sdk.props import Undecided, UnknownValueError, dig, mapping
from ..gpu_agents import agent_resources, dcgm_exporters, gpu_operators, operator_device_plugins
from ..placement import lands_on_plain_nodes
from ..stack import stack_index
from ..workloads import (
    NodeSelection,
    containers,
    read_tolerations,
    selects_any_of,
)
from ._shared import (
    _TAINT_LIST,
    CONFIG_DEFAULTS,
    GPU_RESOURCE,
    REFUSED_FIX,
    _config,
    _fmt,
    _gpu_taints,
    _resource,
    _stack_pools,
)


def _requests_gpu(pod_spec: Mapping[str, Any]) -> bool:
    """A container asks for a GPU resource (``wellknown.is_gpu_resource``: ``nvidia.com/gpu``,
    ``nvidia.com/gpu.shared``, ``nvidia.com/mig-<profile>``) in limits or requests."""
    for _, container in containers(pod_spec):
        for field in ("limits", "requests"):
            asked = mapping(dig(container, "resources", field))
            for resource in [k for k in asked if is_gpu_resource(k)]:
                qty = parse_quantity(dig(asked, resource))
                if qty is not None and qty > 0:
                    return True
    return False


def validate_gpu_workloads_select_gpu_nodes(args: StackValidationArgs, report: ReportViolation) -> None:
    """A pod template that tolerates a GPU taint also selects GPU nodes or requests nvidia.com/gpu."""
    config = _config(args, "gpu-workloads-select-gpu-nodes")
    undecided = Undecided()
    pools = _stack_pools(args, undecided)
    gpu_taints = _gpu_taints(pools, config)
    pairs = {(k, v) for p in pools if p.labels for k, v in p.labels.items()}
    for label in config.get("gpuLabels") or []:
        key, _, value = str(label).partition("=")
        pairs.add((key, value))
    targeted_by: dict[tuple[Toleration, ...], list[Taint]] = {}  # per content of the tolerations: the GPU taints they target
    for res, workload, read_error in stack_index(args).workloads():
        try:
            if read_error is not None:
                raise read_error
            if workload is None or workload.kind == "DaemonSet":  # node agents tolerate to run everywhere
                continue
            tolerations, _ = read_tolerations(workload.pod_spec)
            own = tuple(tolerations)
            targeted = targeted_by.get(own)
            if targeted is None:
                targeted = targeted_by[own] = [
                    t for t in gpu_taints if any(not tol.is_catch_all and tolerates(tol, t) for tol in tolerations)]
            if not targeted:
                continue
            if _requests_gpu(workload.pod_spec) or selects_any_of(workload.pod_spec, pairs):
                continue
            refused = NodeSelection.of(workload.pod_spec).refused
        except UnknownValueError as err:
            undecided.add(_resource(res), err)
            continue
        if refused:  # the API server refuses it (a toleration, its selection): it lands on no node at all
            undecided.not_judged(workload.display, f"not judged: its pod template's {refused}", REFUSED_FIX)
            continue
        report(
            f"{workload.display} tolerates GPU taint(s) {_fmt(targeted)} but neither selects GPU nodes nor requests "
            f"{GPU_RESOURCE}: a toleration permits, it never attracts, so it may land on any node, and takes GPU "
            f"node room when it does. Add a nodeSelector on the pool's GPU label (e.g. "
            f"{DEFAULT_GPU_LABEL[0]}: \"{DEFAULT_GPU_LABEL[1]}\"), or request {GPU_RESOURCE} in limits, or drop "
            "the toleration.",
            res.urn,
        )
    _gpu_agents_select_gpu_nodes(args, report, undecided)
    undecided.raise_if_any()


def _gpu_agents_select_gpu_nodes(args: StackValidationArgs, report: ReportViolation, undecided: Undecided) -> None:
    """A GPU agent DaemonSet (NVIDIA's device plugin, the DCGM exporter) whose node selection admits a
    node of no GPU pool (:func:`gpu_node_pool.policies.placement.lands_on_plain_nodes`) runs on every CPU
    node too. The GPU Operator's operands are placed by the operator's ``nvidia.com/gpu.deploy.*`` labels
    (NVIDIA/gpu-operator ``controllers/object_controls.go``) and are not judged here. The finding names the
    agent's resource (its DaemonSet, or the chart or release whose values give its pod spec: :func:`_agent_urn`),
    so reports place it there."""
    from .device_plugin_covers_gpu_pools import _plugin_daemonsets

    resources = agent_resources(stack_index(args))
    operands = {d for d, _ in operator_device_plugins(resources, undecided)}
    operands |= {f"the DCGM exporter of the {op.display}" for op in gpu_operators(resources, undecided)}
    readers: list[_Reader] = [_plugin_daemonsets, dcgm_exporters]
    agents = [(display, pod_spec, read) for read in readers for display, pod_spec in read(resources, undecided)]
    for display, pod_spec, read in agents:
        if display in operands:
            continue
        try:
            selection = NodeSelection.of(pod_spec)
            admits = lands_on_plain_nodes(selection)
        except UnknownValueError as err:
            undecided.add(display, err)
            continue
        if selection.refused:  # the API server refuses it: where it would land is moot
            undecided.not_judged(display, f"not judged: its pod template's {selection.refused}", REFUSED_FIX)
            continue
        if admits:
            report(
                f"GPU agent {display} selects no GPU nodes: its nodeSelector/required node affinity admits a node "
                "with no GPU pool label and no GPU feature label, so it runs on every CPU node too (where it finds no "
                "GPU: restarts, wasted requests). Give it a required node affinity on the GPU pools' label (chart "
                f"values affinity/nodeSelector, e.g. {DEFAULT_GPU_LABEL[0]}: \"{DEFAULT_GPU_LABEL[1]}\"), as "
                "NvidiaDevicePlugin and gpuAgents.dcgmExporter derive from the pools.",
                _agent_urn(resources, display, read),
            )


#: An agent reader of :mod:`gpu_node_pool.policies.gpu_agents`: ``(resources, undecided) -> [(display, pod spec)]``.
_Reader = Callable[[Sequence[Any], Undecided], list[tuple[str, Mapping[str, Any]]]]


def _agent_urn(resources: Sequence[Any], display: str, read: _Reader) -> str | None:
    """The URN of the resource ``read`` reads the agent ``display`` from: its DaemonSet (found by image), or the
    chart or release whose values give its pod spec. Each resource is read alone, so the agent's own resource is
    found whatever else the stack holds; None when none gives ``display`` alone (the finding is then the stack's)."""
    for res in resources:
        if any(found == display for found, _ in read([res], Undecided())):
            return str(res.urn)
    return None


POLICY = StackValidationPolicy(
    name="gpu-workloads-select-gpu-nodes",
    description="A pod template that tolerates a GPU taint also selects GPU nodes (nodeSelector or required node affinity on the pool label) or requests nvidia.com/gpu.",
    validate=validate_gpu_workloads_select_gpu_nodes,
    enforcement_level=EnforcementLevel.ADVISORY,
    config_schema=PolicyConfigSchema(
        properties={
            "extraTaints": {
                **_TAINT_LIST,
                "description": "GPU taints of pools outside this stack, kubelet form key=value:Effect.",
                "default": CONFIG_DEFAULTS["gpu-workloads-select-gpu-nodes"]["extraTaints"],
            },
            "gpuLabels": {
                "type": "array",
                "items": {"type": "string", "pattern": "^[^=]+=.*$"},
                "description": "key=value node labels that mean 'a GPU node' besides the stack's pool labels.",
                "default": CONFIG_DEFAULTS["gpu-workloads-select-gpu-nodes"]["gpuLabels"],
            },
        }
    ),
    remediation_steps=(
        "Add nodeSelector (or required node affinity) on the GPU pool's label, or request nvidia.com/gpu in "
        "limits; a toleration alone lets the pod anywhere."
    ),
)
