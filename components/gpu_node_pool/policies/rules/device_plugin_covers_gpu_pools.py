"""Policy ``device-plugin-covers-gpu-pools``: every GPU pool that needs NVIDIA's device plugin has one that tolerates its
taints and whose node selection admits every kind of node it will get (mandatory).

Judged where the plugin lands (:func:`gpu_node_pool.policies.placement.place`): the pool's labels plus
those its platform sets, per instance type and zone; a plugin pinned to other instance types, or to a
label the pool's nodes never carry, leaves those nodes without ``nvidia.com/gpu``. A finding of an untolerated taint
names each key of the plugin's tolerations that is no field of ``Toleration``
(:func:`gpu_node_pool.policies.workloads.toleration_notes`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    ReportViolation,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

from ...expand.identify import is_device_plugin_chart, is_device_plugin_image
from ...k8s.taints import Toleration
from ...k8s.wellknown import NVIDIA_DEVICE_PLUGIN_TYPE, POOL_LABEL_KEY
from ...sdk.props import Undecided, UnknownValueError, dig, mapping, plain, text
from ..gpu_agents import agent_resources, discovery_agents, operator_device_plugins
from ..placement import SELECTION_FIX
from ..pools import (
    CHART_TYPES,
    GKE_NO_DEFAULT_PLUGIN_LABEL,
)
from ..stack import stack_index
from ..workloads import (
    NodeSelection,
    containers,
    kind_of,
    notes_text,
    read_tolerations,
    toleration_notes,
    workload_of,
)
from ._shared import GPU_RESOURCE, _resource, _stack_placements, _stack_pools, placement_fix


def _is_plugin_image(image: Any) -> bool:
    return is_device_plugin_image(image)  # NVIDIA's k8s-device-plugin image, by repository


#: How :func:`_plugin_daemonsets` names a DaemonSet it found by its image (its pod spec at ``spec.template.spec``).
_DAEMONSET = "DaemonSet"


def _of_component(res: Any) -> bool:
    """Whether ``res`` is a descendant of an ``NvidiaDevicePlugin`` component: its URN's type chain
    (``urn:pulumi:<stack>::<project>::<parent type>$...$<type>::<name>``) holds the component's type."""
    urn = getattr(res, "urn", "") or ""
    chain = urn.split("::")[2] if urn.count("::") >= 3 else ""
    return NVIDIA_DEVICE_PLUGIN_TYPE in chain.split("$")[:-1]


def _plugin_daemonsets(resources: Sequence[Any], undecided: Undecided, broken: list[str] | None = None,
                       owned: set[str] | None = None) -> list[tuple[str, Mapping[str, Any]]]:
    """``(display, pod spec)`` of every NVIDIA device plugin: DaemonSets running its image, else chart values.

    ``owned`` receives the display of each that an ``NvidiaDevicePlugin`` component declares (:func:`_of_component`).

    ``broken`` receives ``"<chart>: <why>"`` for each device-plugin chart whose values the chart
    cannot render (:func:`gpu_node_pool.gpu_agents.device_plugin.chart.chart_daemonset` raises ``ValueError``)."""
    from ...gpu_agents.device_plugin.chart import chart_daemonset

    found: list[tuple[str, Mapping[str, Any]]] = []
    operators = operator_device_plugins(resources, undecided)  # the GPU Operator's plugin
    for res in resources:
        if kind_of(res.resource_type) != "DaemonSet":
            continue
        try:
            workload = workload_of(res.resource_type, res.props, res.name)
            assert workload is not None
            if any(_is_plugin_image(dig(c, "image")) for _, c in containers(workload.pod_spec)):
                found.append((f"{_DAEMONSET} {workload.namespace}/{workload.name}", workload.pod_spec))
                if owned is not None and _of_component(res):
                    owned.add(found[-1][0])
        except UnknownValueError as err:
            undecided.add(_resource(res), err)
    if found:
        return found + operators
    for res in resources:  # no child visible (helm.v3.Release, or chart values unknown at preview)
        if res.resource_type not in CHART_TYPES:
            continue
        try:
            chart = text(dig(res.props, "chart")) or ""
            if not is_device_plugin_chart(res.resource_type, {"chart": chart}):  # by name, never "a chart"
                continue
            values = plain(mapping(dig(res.props, "values")))
            namespace = text(dig(res.props, "namespace")) or "default"
            release = text(dig(res.props, "name")) or res.name
            try:
                ds = chart_daemonset(values, namespace, release)
            except ValueError as err:  # the chart renders no DaemonSet from these values
                if broken is not None:
                    broken.append(f"chart {chart} {res.name!r}: {err}")
                continue
            if ds is not None:
                found.append((f"chart {chart} {res.name!r} (its DaemonSet from the chart values)", ds["spec"]["template"]["spec"]))
                if owned is not None and _of_component(res):
                    owned.add(found[-1][0])
        except UnknownValueError as err:
            undecided.add(_resource(res), err)
    return found + operators


def _read_plugins(
    plugins: list[tuple[str, Mapping[str, Any]]],
) -> list[tuple[str, list[Toleration], NodeSelection | UnknownValueError]]:
    """Each plugin's tolerations and node selection, read once for every pool: ``(display, tolerations,
    selection)``, the selection being the ``UnknownValueError`` met while reading either."""
    out: list[tuple[str, list[Toleration], NodeSelection | UnknownValueError]] = []
    for display, pod_spec in plugins:
        try:
            tolerations, _ = read_tolerations(pod_spec)
            node_selection: NodeSelection | UnknownValueError = NodeSelection.of(pod_spec)
        except UnknownValueError as err:
            tolerations, node_selection = [], err
        out.append((display, tolerations, node_selection))
    return out


def _plugin_notes(plugins: list[tuple[str, Mapping[str, Any]]]) -> list[list[str]]:
    """Per plugin of ``plugins`` (in their order), the notes on keys of its tolerations that are no field of
    ``Toleration`` (:func:`~gpu_node_pool.policies.workloads.toleration_notes`), each starting with the plugin's
    display and, for a DaemonSet, the path of its pod spec (chart values and a GPU Operator's operand hold the
    tolerations at ``tolerations`` themselves)."""
    return [toleration_notes(pod_spec, f"{display}: " + ("spec.template.spec." if display.startswith(f"{_DAEMONSET} ") else ""))
            for display, pod_spec in plugins]


def _excluded_text(placement: Any, pool: Any, of_component: bool) -> str:
    """What keeps a plugin off some of ``pool``'s kinds of node, and its fix. When every kind excluded is refused by
    the same labels, those labels are named as what excludes the nodes (the kinds differ in instance type only):
    with the pool's value when the pool sets them (``pool.labels``), as absent when the key is the pool label
    ``gpu-node-pools/pool`` the pool does not set (a pool outside ``GpuNodePool``). A plugin of an
    ``NvidiaDevicePlugin`` component selects only the pools passed in ``NvidiaDevicePluginArgs(pools=[...])`` (a
    required node affinity on ``gpu-node-pools/pool``, derived from them), so its fix is to pass the pool there;
    any other plugin's is :data:`~gpu_node_pool.policies.placement.SELECTION_FIX`."""
    keys = {k for _, k in placement.excluded}
    own = next(iter(keys)) if len(keys) == 1 else ()
    labels = pool.labels or {}
    some = "every node" if len(placement.excluded) == placement.kinds else f"{len(placement.excluded)} of the {placement.kinds} kind(s) of node"
    if own and all(k in labels for k in own):
        shown_labels = ", ".join(f"{k}={labels[k]}" for k in own)
        text = f"its node selection excludes {some} of the pool by the pool's label {shown_labels}, a value it does not admit"
    elif own == (POOL_LABEL_KEY,):
        text = f"its node selection excludes {some} of the pool by {POOL_LABEL_KEY}, a label the pool's nodes do not carry"
    else:
        text = replace(placement, missing=()).describe()
    if not of_component:
        return f"{text}; {SELECTION_FIX}"
    if pool.declared_as.startswith("GpuNodePool "):
        return (f"{text}; NvidiaDevicePlugin selects only the pools it is given, so add the .spec of {pool.declared_as} "
                "to NvidiaDevicePluginArgs(pools=[...]) (every pool of the cluster, in one NvidiaDevicePlugin)")
    return (f"{text}; NvidiaDevicePlugin selects only the pools it is given (by {POOL_LABEL_KEY}), and a pool written "
            "by hand is none of them: declare it as a GpuNodePool and add its .spec to NvidiaDevicePluginArgs(pools=[...]), "
            "or install for it a plugin whose node selection admits its nodes")


def _derive_fix(failing: list[str], owned: set[str]) -> str:
    """The closing fix of a finding, unless every plugin that fails the pool (``failing``, displays) is an
    ``NvidiaDevicePlugin`` component's (``owned``), whose reason gives the fix: pass the pool to it."""
    if failing and all(display in owned for display in failing):
        return ""
    return (" Derive the plugin's tolerations (one Exists toleration per pool taint) and node affinity (the pool's GPU "
            "label) from the pools (NvidiaDevicePlugin does).")


def validate_device_plugin_covers_gpu_pools(args: StackValidationArgs, report: ReportViolation) -> None:
    """GPU pools that need NVIDIA's device plugin have one that tolerates their taints and selects their nodes."""
    undecided = Undecided()
    pools = [p for p in _stack_pools(args, undecided) if not p.problem]
    needing = [p for p in pools if p.needs_nvidia_device_plugin]
    broken: list[str] = []
    owned: set[str] = set()  # the plugins an NvidiaDevicePlugin component declares
    plugins = _plugin_daemonsets(agent_resources(stack_index(args)), undecided, broken, owned) if pools else []
    if needing and not plugins:
        names = ", ".join(p.display for p in needing)
        why = f" ({'; '.join(broken)})" if broken else ""
        report(
            f"No NVIDIA device plugin in this stack{why}, but these pools need one: {names}. Without it their nodes "
            f"advertise no {GPU_RESOURCE} and GPU pods stay Pending. Add NvidiaDevicePlugin (the nvidia-device-plugin "
            "chart) with tolerations and node affinity derived from the pools.",
            None,
        )
    read: list[tuple[str, list[Toleration], NodeSelection | UnknownValueError]] | None = None
    notes_of: list[list[str]] | None = None  # per plugin, read at the first finding of a taint it leaves untolerated
    discovered = discovery_agents(agent_resources(stack_index(args)), undecided) if plugins else ()
    placed = _stack_placements(args)  # each pool's kinds of node once, each plugin placed once per pool
    for pool in needing if plugins else []:
        if pool.labels is None:
            undecided.add(pool.display, UnknownValueError(UNKNOWN_STRING_VALUE, [pool.name, "labels"]))
            continue
        reasons = []
        failing: list[str] = []  # the plugins of reasons
        notes: list[str] = []  # on the tolerations of the plugins that leave a taint of the pool untolerated
        covered = unjudged = False
        read = read if read is not None else _read_plugins(plugins)
        for i, (display, tolerations, node_selection) in enumerate(read):
            if isinstance(node_selection, UnknownValueError):
                undecided.add(f"{display} on {pool.display}", node_selection)
                continue
            placement = placed(pool, tolerations, node_selection, discovered=discovered)
            if placement.runs:
                covered = True
                break
            if placement.status == "notJudged":  # it may cover the pool: never a finding, never a pass
                undecided.not_judged(f"{display} on {pool.display}", placement.not_judged_text(), placement_fix(placement))
                unjudged = True
                continue
            why = []
            if placement.excluded:
                why.append(_excluded_text(placement, pool, display in owned))
            if placement.missing:
                why.append("; ".join(s.describe() for s in placement.missing))
                notes_of = notes_of if notes_of is not None else _plugin_notes(plugins)
                notes += notes_of[i]
            reasons.append(f"{display}: {', and '.join(why)}")
            failing.append(display)
        if not covered and not unjudged and reasons:
            report(
                f"The NVIDIA device plugin does not cover {pool.display}: {' | '.join(reasons)}.{notes_text(notes)} Its nodes would "
                f"advertise no {GPU_RESOURCE}.{_derive_fix(failing, owned)}",
                pool.urn or None,
            )
    for pool in pools:  # two device plugins on one node both register nvidia.com/gpu with its kubelet
        if pool.labels is None or not plugins:
            continue
        read = read if read is not None else _read_plugins(plugins)
        landing = []
        for display, tolerations, node_selection in read:
            if isinstance(node_selection, UnknownValueError):
                undecided.add(f"{display} on {pool.display}", node_selection)
                continue
            if placed(pool, tolerations, node_selection).status in ("runs", "partial"):  # no discovery agent counted
                landing.append(display)
        if pool.gke_managed_plugin and landing:
            report(
                f"{landing[0]} would run on {pool.display}, where GKE already runs its own device plugin: both "
                f"advertise {GPU_RESOURCE} and allocations fail intermittently. Label the pool "
                f"{GKE_NO_DEFAULT_PLUGIN_LABEL}=true with gpu_driver_version INSTALLATION_DISABLED, or keep "
                "NVIDIA's plugin off it.",
                pool.urn or None,
            )
        elif pool.ships_own_device_plugin and landing:
            report(
                f"{' and '.join(landing)} would run on {pool.display}, whose node image already runs NVIDIA's device "
                f"plugin (Bottlerocket NVIDIA variants, EKS Auto Mode): two plugins register {GPU_RESOURCE} with one "
                "kubelet, which keeps only the last registration, so the GPUs flap between them. Keep the plugin off "
                "this pool (its node affinity on the pools that need it, as NvidiaDevicePlugin derives; the GPU "
                "Operator's plugin: the node label nvidia.com/gpu.deploy.device-plugin=false).",
                pool.urn or None,
            )
        elif len(landing) > 1:
            report(
                f"{len(landing)} NVIDIA device plugins would run on {pool.display}: {'; '.join(landing)}. Each "
                f"registers {GPU_RESOURCE} with the node's kubelet, which keeps only the last registration, so "
                "allocations flap between them (the kubelet's device manager replaces the endpoint of a resource name on each registration: kubernetes/kubernetes pkg/kubelet/cm/devicemanager/manager.go). "
                "Install one plugin per cluster (NvidiaDevicePlugin, or the GPU Operator's) and remove the other.",
                pool.urn or None,
            )
    undecided.raise_if_any()


POLICY = StackValidationPolicy(
    name="device-plugin-covers-gpu-pools",
    description="GPU pools that need NVIDIA's device plugin (EKS, Karpenter, self-managed, GKE opted out) have one that tolerates every pool taint and whose node affinity matches the pools' labels.",
    validate=validate_device_plugin_covers_gpu_pools,
    enforcement_level=EnforcementLevel.MANDATORY,
    remediation_steps=(
        "Install NvidiaDevicePlugin once per cluster with all its GPU pools: it derives one Exists toleration per "
        "pool taint (plus CriticalAddonsOnly) and a required node affinity on the pools' GPU label. Pools on "
        "Bottlerocket NVIDIA AMIs and GKE-managed pools bring their own plugin."
    ),
)
