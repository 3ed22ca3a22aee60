"""GPU agents found among a stack's resources, whoever installs them: the GPU Operator, driver
installers, feature discovery workers. Each is read back as ``(display, pod spec)``: the tolerations and
node selection its DaemonSet pods get, which the coverage policies judge against every pool.

Sources:

* GPU Operator (NVIDIA/gpu-operator@v26.7.0 ``deployments/gpu-operator/values.yaml``,
  ``templates/clusterpolicy.yaml``, ``controllers/object_controls.go`` ``applyCommonDaemonsetConfig``): Helm ``daemonsets.tolerations`` become
  ``ClusterPolicy.spec.daemonsets.tolerations``, which *replace* every operand DaemonSet's tolerations
  (default ``[nvidia.com/gpu Exists NoSchedule]``); operands have no affinity or nodeSelector of ours -
  the operator places them through ``nvidia.com/gpu.deploy.*`` labels driven by NFD. Its NFD
  worker's tolerations are ``node-feature-discovery.worker.tolerations`` (default control-plane Equal ""
  and ``nvidia.com/gpu`` Exists). ``driver.enabled`` and ``devicePlugin.enabled`` default true.
* nvidia-device-plugin chart 0.20.0 with ``gfd.enabled``: its NFD subchart's worker tolerates
  ``nvidia.com/gpu=present`` with operator ``Equal`` only (NVIDIA/k8s-device-plugin@v0.20.0
  ``deployments/helm/nvidia-device-plugin/values.yaml`` ``nfd.worker.tolerations``; the ``Equal present`` trap).
* NVIDIA's MIG manager (``k8s-mig-manager`` image; the GPU Operator's ``migManager`` operand, on by default:
  NVIDIA/gpu-operator@v26.7.0 ``deployments/gpu-operator/values.yaml`` ``migManager.enabled``), the only agent that
  applies the MIG layout a node's ``nvidia.com/mig.config`` label names
  (https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html).
* GKE's ``nvidia-driver-installer`` DaemonSet (container-engine-accelerators
  ``nvidia-driver-installer/cos/daemonset-preloaded.yaml``: init container image
  ``cos-nvidia-installer:fixed``, tolerations ``[{operator: Exists}]``), and NVIDIA's driver
  container ``nvcr.io/nvidia/driver`` in a user's own DaemonSet.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..expand.operator_resources import OPERATOR_OPERANDS, operand_daemonset
from ..k8s.discovery import GFD, GPU_OPERATOR, NFD
from ..k8s.taints import TaintEffect, Toleration
from ..k8s.wellknown import AGENT_COMPONENT_TYPES, AGENT_NAMESPACE_PROP, CHART_TYPES, NVIDIA_GPU_RESOURCE
from ..sdk.props import Undecided, UnknownValueError, dig, mapping, plain, text
from .stack import StackIndex
from .workloads import containers, kind_of, workload_of

__all__ = [
    "CLUSTER_POLICY_TYPE",
    "GpuOperator",
    "gpu_operators",
    "operator_device_plugins",
    "driver_installers",
    "standalone_nfd_workers",
    "dcgm_exporters",
    "efa_device_plugins",
    "mig_managers",
    "installed_agent_namespaces",
    "discovery_agents",
]

CLUSTER_POLICY_TYPE = "kubernetes:nvidia.com/v1:ClusterPolicy"
#: NVIDIA/gpu-operator@v26.7.0 deployments/gpu-operator/values.yaml ``daemonsets.tolerations`` default.
_OPERATOR_DEFAULT_TOLERATIONS = [Toleration(NVIDIA_GPU_RESOURCE, "Exists", None, TaintEffect.NO_SCHEDULE).to_k8s()]
_CONTROL_PLANE = Toleration("node-role.kubernetes.io/control-plane", "Equal", "", TaintEffect.NO_SCHEDULE).to_k8s()
_OPERATOR_DEFAULT_NFD_TOLERATIONS = [_CONTROL_PLANE, *_OPERATOR_DEFAULT_TOLERATIONS]
#: NVIDIA/k8s-device-plugin@v0.20.0 deployments/helm/nvidia-device-plugin/values.yaml ``nfd.worker.tolerations`` default.
_PLUGIN_NFD_DEFAULT_TOLERATIONS = [
    Toleration("node-role.kubernetes.io/master", "Equal", "", TaintEffect.NO_SCHEDULE).to_k8s(),
    Toleration(NVIDIA_GPU_RESOURCE, "Equal", "present", TaintEffect.NO_SCHEDULE).to_k8s(),
]
#: dcgm-exporter chart 4.8.2 ``deployment/values.yaml`` ``tolerations`` default: the control plane only (NVIDIA/dcgm-exporter#731).
_DCGM_DEFAULT_TOLERATIONS = [Toleration("node-role.kubernetes.io/control-plane", "Exists", None, TaintEffect.NO_SCHEDULE).to_k8s()]
#: Images that install the NVIDIA driver: GKE's installers and NVIDIA's driver container.
_DRIVER_IMAGES = ("nvidia-installer", "nvidia-driver-installer", "cos-gpu-installer", "nvcr.io/nvidia/driver")


class GpuOperator:
    """One GPU Operator found in the stack: from a ``ClusterPolicy`` or a chart's declared values.

    Attributes:
        display: how messages name it.
        spec: what its operands are built from, ClusterPolicy-shaped (``daemonsets.tolerations``,
            ``daemonsets.priorityClassName``, each operand's image keys): the ClusterPolicy's ``spec``, or the chart's
            values, whose ``templates/clusterpolicy.yaml`` copies those keys into it (NVIDIA/gpu-operator@v26.7.0).
        nfd_tolerations: its NFD worker's tolerations, or None when its NFD is off or not known.
        device_plugin, driver, dcgm_exporter, gfd, mig_manager: whether those operands are enabled (defaults: true).
    """

    def __init__(self, display: str, spec: Mapping[str, Any], nfd_tolerations: list[Any] | None,
                 device_plugin: bool, driver: bool, dcgm_exporter: bool = True, gfd: bool = True,
                 mig_manager: bool = True) -> None:
        self.display = display
        self.spec = spec
        self.dcgm_exporter = dcgm_exporter
        self.mig_manager = mig_manager
        self.nfd_tolerations = nfd_tolerations
        self.device_plugin = device_plugin
        self.driver = driver
        self.gfd = gfd

    def operand_spec(self, key: str) -> dict[str, Any]:
        """The pod spec of operand ``key`` (``devicePlugin``, ``driver``, ``dcgmExporter``...) as the operator
        writes it, from the one builder the plan and the audit use
        (:func:`gpu_node_pool.expand.operator_resources.operand_daemonset`): ``spec.daemonsets.tolerations`` when a
        non-empty list, else the operand asset's own ``nvidia.com/gpu`` ``Exists`` ``NoSchedule``, and
        ``nodeSelector: {nvidia.com/gpu.deploy.<operand>: "true"}``."""
        operand = next(o for o in OPERATOR_OPERANDS if o.key == key)
        made = operand_daemonset(self.spec, operand, "", self.display)
        return made["spec"]["template"]["spec"]


def _agent_type(resource_type: str) -> bool:
    return resource_type == CLUSTER_POLICY_TYPE or resource_type in CHART_TYPES or kind_of(resource_type) == "DaemonSet"


def agent_resources(index: StackIndex) -> list[Any]:
    """The only resources the readers of this module look at (DaemonSets, charts, GPU Operator
    ``ClusterPolicy`` objects), in stack order: what a stack policy passes them instead of every resource."""
    return index.select("gpu agents", _agent_type)


def _enabled(values: Mapping[str, Any], key: str, default: bool = True) -> bool:
    value = dig(values, key, "enabled", default=default)
    return bool(value) if isinstance(value, bool) else default


def gpu_operators(resources: Sequence[Any], undecided: Undecided) -> list[GpuOperator]:
    """Every GPU Operator: rendered ``ClusterPolicy`` objects, else ``gpu-operator`` charts/releases by their values."""
    found: list[GpuOperator] = []
    for res in resources:
        if res.resource_type != CLUSTER_POLICY_TYPE:
            continue
        try:
            spec = plain(mapping(dig(res.props, "spec")))
            found.append(GpuOperator(
                f"GPU Operator ClusterPolicy {res.name!r} (spec.daemonsets.tolerations)", spec, None,
                _enabled(spec, "devicePlugin"), _enabled(spec, "driver"), _enabled(spec, "dcgmExporter"), _enabled(spec, "gfd"),
                _enabled(spec, "migManager"),
            ))
        except UnknownValueError as err:
            undecided.add(f"{res.resource_type} {res.name}", err)
    if found:
        return found
    for res in resources:
        if res.resource_type not in CHART_TYPES:
            continue
        try:
            chart = text(dig(res.props, "chart")) or ""
            if not chart.rstrip("/").endswith("gpu-operator"):
                continue
            values = plain(mapping(dig(res.props, "values")))
            nfd = dig(values, "node-feature-discovery", "worker", "tolerations")
            nfd_on = _enabled(values, "nfd")
            found.append(GpuOperator(
                f"GPU Operator chart {chart} {res.name!r} (values daemonsets.tolerations)", values,
                (list(nfd) if isinstance(nfd, list) else _OPERATOR_DEFAULT_NFD_TOLERATIONS) if nfd_on else None,
                _enabled(values, "devicePlugin"), _enabled(values, "driver"), _enabled(values, "dcgmExporter"),
                _enabled(values, "gfd"), _enabled(values, "migManager"),
            ))
        except UnknownValueError as err:
            undecided.add(f"{res.resource_type} {res.name}", err)
    return found


def operator_device_plugins(resources: Sequence[Any], undecided: Undecided) -> list[tuple[str, Mapping[str, Any]]]:
    """``(display, pod spec)`` of the device plugin every GPU Operator with ``devicePlugin.enabled`` runs."""
    return [(f"the device plugin of the {op.display}", op.operand_spec("devicePlugin"))
            for op in gpu_operators(resources, undecided) if op.device_plugin]


def _is_driver_image(image: Any) -> bool:
    return isinstance(image, str) and any(part in image for part in _DRIVER_IMAGES)


def driver_installers(resources: Sequence[Any], undecided: Undecided) -> list[tuple[str, Mapping[str, Any]]]:
    """``(display, pod spec)`` of every NVIDIA driver installer: DaemonSets running an installer image (GKE's
    ``nvidia-driver-installer``, NVIDIA's driver container) and GPU Operators with ``driver.enabled``."""
    found: list[tuple[str, Mapping[str, Any]]] = []
    for res in resources:
        if kind_of(res.resource_type) != "DaemonSet":
            continue
        try:
            workload = workload_of(res.resource_type, res.props, res.name)
            if workload is not None and any(_is_driver_image(dig(c, "image")) for _, c in containers(workload.pod_spec)):
                found.append((f"driver installer DaemonSet {workload.namespace}/{workload.name}", workload.pod_spec))
        except UnknownValueError as err:
            undecided.add(f"{res.resource_type} {res.name}", err)
    found += [(f"the driver of the {op.display}", op.operand_spec("driver")) for op in gpu_operators(resources, undecided) if op.driver]
    return found


def _device_plugin_charts(resources: Sequence[Any], undecided: Undecided) -> Iterator[tuple[Any, str, Mapping[str, Any]]]:
    """``(resource, chart name, plain values)`` of each ``nvidia-device-plugin`` chart or release; one whose
    name or values are unknown at preview goes to ``undecided``."""
    for res in resources:
        if res.resource_type not in CHART_TYPES:
            continue
        try:
            chart = text(dig(res.props, "chart")) or ""
            if "nvidia-device-plugin" not in chart:
                continue
            values = plain(mapping(dig(res.props, "values")))
        except UnknownValueError as err:
            undecided.add(f"{res.resource_type} {res.name}", err)
            continue
        yield res, chart, values


def standalone_nfd_workers(resources: Sequence[Any], undecided: Undecided) -> list[tuple[str, Mapping[str, Any]]]:
    """``(display, pod spec)`` of the NFD worker of each ``nvidia-device-plugin`` chart with ``gfd.enabled``
    (or ``nfd.enabled``), and of each GPU Operator's NFD worker: feature discovery, which labels the nodes
    the plugin's affinity and the operator's operands select."""
    found: list[tuple[str, Mapping[str, Any]]] = []
    for res, chart, values in _device_plugin_charts(resources, undecided):
        try:
            if not (_enabled(values, "gfd", False) or _enabled(values, "nfd", False)):
                continue
            tolerations = dig(values, "nfd", "worker", "tolerations")
            found.append((
                f"the NFD worker of chart {chart} {res.name!r} (values nfd.worker.tolerations)",
                {"tolerations": list(tolerations) if isinstance(tolerations, list) else _PLUGIN_NFD_DEFAULT_TOLERATIONS},
            ))
        except UnknownValueError as err:
            undecided.add(f"{res.resource_type} {res.name}", err)
    for op in gpu_operators(resources, undecided):
        if op.nfd_tolerations is not None:
            found.append((f"the NFD worker of the {op.display.replace('daemonsets.tolerations', 'node-feature-discovery.worker.tolerations')}",
                          {"tolerations": op.nfd_tolerations}))
    return found


def dcgm_exporters(resources: Sequence[Any], undecided: Undecided) -> list[tuple[str, Mapping[str, Any]]]:
    """``(display, pod spec)`` of every DCGM exporter: DaemonSets running a ``dcgm-exporter`` image, else
    ``dcgm-exporter`` charts by their values (``tolerations``, ``affinity``, ``nodeSelector``; the chart's
    default tolerations when absent), plus each GPU Operator with ``dcgmExporter.enabled`` (its operands'
    tolerations)."""
    found = _by_image_else_chart(resources, undecided, "dcgm-exporter", "DCGM exporter", _DCGM_DEFAULT_TOLERATIONS,
                                 placement=True)
    found += [(f"the DCGM exporter of the {op.display}", op.operand_spec("dcgmExporter"))
              for op in gpu_operators(resources, undecided) if op.dcgm_exporter]
    return found


def mig_managers(resources: Sequence[Any], undecided: Undecided) -> list[tuple[str, Mapping[str, Any]]]:
    """``(display, pod spec)`` of every MIG manager: DaemonSets running a ``k8s-mig-manager`` image, plus each GPU
    Operator with ``migManager.enabled`` (its operand's tolerations and deploy label). NVIDIA publishes no chart of
    the MIG manager alone, so no chart is read by its values."""
    found = _by_image(resources, undecided, "k8s-mig-manager", "MIG manager")
    found += [(f"the MIG manager of the {op.display}", op.operand_spec("migManager"))
              for op in gpu_operators(resources, undecided) if op.mig_manager]
    return found


def efa_device_plugins(resources: Sequence[Any], undecided: Undecided) -> list[tuple[str, Mapping[str, Any]]]:
    """``(display, pod spec)`` of every EFA device plugin: DaemonSets running an ``aws-efa-k8s-device-plugin``
    image, else ``aws-efa-k8s-device-plugin`` charts by their values: the chart's template puts
    ``CriticalAddonsOnly: Exists`` before ``values.tolerations`` (aws/eks-charts
    ``stable/aws-efa-k8s-device-plugin/templates/daemonset.yaml``, chart v0.5.30). Its node affinity admits
    only EFA-capable instance types, which is not judged against the pools' labels here."""
    return _by_image_else_chart(resources, undecided, "aws-efa-k8s-device-plugin", "EFA device plugin", [],
                                prepend=[Toleration("CriticalAddonsOnly", "Exists").to_k8s()])


def _by_image(resources: Sequence[Any], undecided: Undecided, name: str, title: str) -> list[tuple[str, Mapping[str, Any]]]:
    """``(display, pod spec)`` of the DaemonSets with a container image containing ``name``."""
    found: list[tuple[str, Mapping[str, Any]]] = []
    for res in resources:
        if kind_of(res.resource_type) != "DaemonSet":
            continue
        try:
            workload = workload_of(res.resource_type, res.props, res.name)
            if workload is not None and any(name in str(dig(c, "image") or "") for _, c in containers(workload.pod_spec)):
                found.append((f"{title} DaemonSet {workload.namespace}/{workload.name}", workload.pod_spec))
        except UnknownValueError as err:
            undecided.add(f"{res.resource_type} {res.name}", err)
    return found


def _by_image_else_chart(resources: Sequence[Any], undecided: Undecided, name: str, title: str, default: list[Any],
                         *, placement: bool = False, prepend: Sequence[Any] = ()) -> list[tuple[str, Mapping[str, Any]]]:
    """DaemonSets with a container image containing ``name``; when there is none, charts named ``name`` read by
    their values: ``prepend`` + ``tolerations`` (``default`` when absent), with ``affinity``/``nodeSelector``
    when ``placement``."""
    found = _by_image(resources, undecided, name, title)
    if found:
        return found
    for res in resources:  # no rendered child: the chart's declared values
        if res.resource_type not in CHART_TYPES:
            continue
        try:
            chart = text(dig(res.props, "chart")) or ""
            if not chart.rstrip("/").endswith(name):
                continue
            values = plain(mapping(dig(res.props, "values")))
            tolerations = dig(values, "tolerations")
            spec: dict[str, Any] = {"tolerations": [*prepend, *(tolerations if isinstance(tolerations, list) else default)]}
            for key in ("affinity", "nodeSelector") if placement else ():
                if isinstance(values.get(key), Mapping) and values[key]:
                    spec[key] = values[key]
            found.append((f"{title} chart {chart} {res.name!r} (values tolerations{'/affinity' if placement else ''})", spec))
        except UnknownValueError as err:
            undecided.add(f"{res.resource_type} {res.name}", err)
    return found


def installed_agent_namespaces(index: StackIndex) -> set[str]:
    """The namespaces this product's agent components (``NvidiaDevicePlugin``, ``GpuOperator``,
    ``DcgmExporter``, ``EfaDevicePlugin``) install their charts into, read from each component's
    ``agentNamespace`` property. A value unknown at preview adds nothing (the namespace is a plain
    config string, so it never is)."""
    found = set()
    for res in index.of_types(AGENT_COMPONENT_TYPES):
        value = res.props.get(AGENT_NAMESPACE_PROP) if isinstance(res.props, Mapping) else None
        if isinstance(value, str) and value:
            found.add(value)
    return found


#: Images of the discovery agents' DaemonSets (NFD's worker, NVIDIA's GFD).
_DISCOVERY_IMAGES = (("node-feature-discovery", NFD), ("gpu-feature-discovery", GFD))


def discovery_agents(resources: Sequence[Any], undecided: Undecided) -> tuple[str, ...]:
    """The discovery agents the stack installs (:mod:`gpu_node_pool.k8s.discovery` names): NFD (a worker
    DaemonSet by image, the device plugin chart with ``gfd``/``nfd`` enabled, a GPU Operator with its NFD),
    GFD (by image, that chart with ``gfd.enabled``, an operator with ``gfd`` enabled) and the GPU Operator.
    Whether each reaches every pool is judged by ``gpu-agents-cover-gpu-pools``; here they only say which
    labels a new node will get once they run."""
    found: set[str] = set()
    for res in resources:
        if kind_of(res.resource_type) != "DaemonSet":
            continue
        try:
            workload = workload_of(res.resource_type, res.props, res.name)
            images = [str(dig(c, "image") or "") for _, c in containers(workload.pod_spec)] if workload else []
        except UnknownValueError as err:
            undecided.add(f"{res.resource_type} {res.name}", err)
            continue
        found |= {agent for part, agent in _DISCOVERY_IMAGES if any(part in image for image in images)}
    for _res, _chart, values in _device_plugin_charts(resources, undecided):
        if _enabled(values, "gfd", False):
            found |= {NFD, GFD}
        elif _enabled(values, "nfd", False):
            found.add(NFD)
    for op in gpu_operators(resources, undecided):
        found.add(GPU_OPERATOR)
        if op.nfd_tolerations is not None:  # the chart's NFD (a ClusterPolicy alone does not say whether NFD runs)
            found.add(NFD)
        if op.gfd:
            found.add(GFD)
    return tuple(sorted(found))
