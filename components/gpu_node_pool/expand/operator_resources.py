"""Custom resources from which an operator creates DaemonSets: the one table of known kinds, and the
DaemonSets each creates where they can be derived from the resource, or why they are not judged.

A stack that declares such a resource gets node agents no Pulumi resource shows. Each row of
:data:`OPERATOR_KINDS` is ``(API group, kind)`` with the operator, the public source of what its
controller builds, and either an expander (the DaemonSets, tolerations and node selection as the
controller writes them) or the reason they cannot be derived from the resource alone. A resource of
a group no row names yields nothing (:func:`expand_custom_resource` returns None): it is not an
operator this table knows. A kind of the table always yields :class:`Expanded` (possibly with no
object, when the resource asks for no DaemonSet) or :class:`NotJudged`.

Rows (sources at the tag or path named):

* ``nvidia.com`` ``ClusterPolicy`` (NVIDIA GPU Operator, NVIDIA/gpu-operator@v26.7.0): one DaemonSet per
  enabled operand (``api/nvidia/v1/clusterpolicy_types.go`` ``IsEnabled``: driver, toolkit, device
  plugin, DCGM, DCGM exporter, GFD and MIG manager default on, node status exporter off; the validator
  always), each as its asset writes it (``assets/state-*/*_daemonset.yaml``, ``assets/state-dcgm/0400_dcgm.yml``,
  ``assets/gpu-feature-discovery/0500_daemonset.yaml``): label ``app: <name>`` on the DaemonSet, its selector and
  its pod template, ``nodeSelector`` ``nvidia.com/gpu.deploy.<operand>: "true"``, ``priorityClassName``
  ``system-node-critical``; ``controllers/object_controls.go`` ``applyCommonDaemonsetConfig`` then replaces the
  priority class with ``spec.daemonsets.priorityClassName`` and the tolerations (the assets' ``nvidia.com/gpu``
  ``Exists`` ``NoSchedule``) with ``spec.daemonsets.tolerations`` when set (:func:`operand_daemonset`).
* ``nvidia.com`` ``NVIDIADriver`` (same operator): the driver DaemonSet, ``nodeSelector``
  ``nvidia.com/gpu.deploy.driver: "true"`` (``vgpu-manager`` for ``driverType: vgpu-host-manager``) plus
  ``spec.nodeSelector``, tolerations ``nvidia.com/gpu`` ``Exists`` ``NoSchedule`` plus ``spec.tolerations``
  (``manifests/state-driver/0500_daemonset.yaml``). ``spec.nodeAffinity`` is applied in controller code
  this table does not model: such a resource is not judged.
* ``agent.k8s.elastic.co`` ``Agent`` and ``beat.k8s.elastic.co`` ``Beat`` (Elastic ECK,
  elastic/cloud-on-k8s ``pkg/apis/agent/v1alpha1/agent_types.go``, ``pkg/apis/beat/v1beta1/beat_types.go``):
  with ``spec.daemonSet`` a DaemonSet from ``spec.daemonSet.podTemplate`` (tolerations and node
  selection as written); ``spec.deployment``/``spec.statefulSet`` create no DaemonSet.
* ``monitoring.coreos.com`` ``PrometheusAgent`` (Prometheus Operator,
  prometheus-operator/prometheus-operator ``pkg/apis/monitoring/v1alpha1/prometheusagent_types.go``):
  ``spec.mode: DaemonSet`` (alpha, feature gate ``PrometheusAgentDaemonSet``) runs one pod per node with
  the resource's ``tolerations``, ``nodeSelector`` and ``affinity``; the default mode is a StatefulSet.
* Not judged, with the reason (the operator merges defaults in controller code this table does not hold):
  ``mellanox.com`` ``NicClusterPolicy`` (NVIDIA Network Operator, Mellanox/network-operator
  ``api/v1alpha1/nicclusterpolicy_types.go``), ``nfd.kubernetes.io`` and ``nfd.k8s-sigs.io``
  ``NodeFeatureDiscovery`` (kubernetes-sigs/node-feature-discovery-operator ``api/v1/nodefeaturediscovery_types.go``),
  ``datadoghq.com`` ``DatadogAgent`` (DataDog/datadog-operator ``api/datadoghq/v2alpha1/datadogagent_types.go``),
  ``dynatrace.com`` ``DynaKube`` (Dynatrace/dynatrace-operator ``pkg/api/latest/dynakube/oneagent/spec.go``),
  ``instance.falcosecurity.dev`` ``Falco`` (falcosecurity/falco-operator ``api/instance/v1alpha1/falco_types.go``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..k8s.discovery import OPERATOR_DEPLOY_PREFIX
from ..k8s.taints import TaintEffect, Toleration
from ..k8s.wellknown import GPU_OPERATOR_NAMESPACE, SYSTEM_NODE_CRITICAL
from .result import Expanded, NotJudged, find_unknown

__all__ = ["OperatorKind", "OPERATOR_KINDS", "OPERATOR_OPERANDS", "Operand", "operand", "group_kind", "known_kind",
           "expand_custom_resource", "cluster_policy_daemonsets", "operand_daemonset"]

#: The operands' default toleration (assets/state-*/*_daemonset.yaml): nvidia.com/gpu Exists NoSchedule.
_GPU = Toleration("nvidia.com/gpu", "Exists", None, TaintEffect.NO_SCHEDULE).to_k8s()
_MARK = "gpu-node-pools/synthesized-from"


@dataclass(frozen=True)
class Operand:
    """A GPU Operator operand: the ClusterPolicy key, its DaemonSet, the deploy label it selects, whether it
    is on when ``enabled`` is not set, the image naming it (the readers find agents by image), its main container
    (the one the operator sets the image of) and the ``app.kubernetes.io/part-of`` label its selector also matches
    (``""``: none)."""

    key: str
    daemonset: str
    deploy_label: str
    default_on: bool
    image: str
    container: str
    part_of: str = ""

    @property
    def labels(self) -> dict[str, str]:
        """The labels its asset puts on the DaemonSet, in its selector's ``matchLabels`` and on its pod template."""
        return {"app": self.daemonset, **({"app.kubernetes.io/part-of": self.part_of} if self.part_of else {})}


#: NVIDIA/gpu-operator@v26.7.0: ``assets/state-*`` DaemonSets (names, main containers, selectors) and
#: ``clusterpolicy_types.go`` defaults.
OPERATOR_OPERANDS: tuple[Operand, ...] = (
    Operand("driver", "nvidia-driver-daemonset", "driver", True, "nvcr.io/nvidia/driver", "nvidia-driver-ctr"),
    Operand("toolkit", "nvidia-container-toolkit-daemonset", "container-toolkit", True, "nvcr.io/nvidia/k8s/container-toolkit",
            "nvidia-container-toolkit-ctr"),
    Operand("devicePlugin", "nvidia-device-plugin-daemonset", "device-plugin", True, "nvcr.io/nvidia/k8s-device-plugin",
            "nvidia-device-plugin"),
    Operand("dcgm", "nvidia-dcgm", "dcgm", True, "nvcr.io/nvidia/cloud-native/dcgm", "nvidia-dcgm-ctr"),
    Operand("dcgmExporter", "nvidia-dcgm-exporter", "dcgm-exporter", True, "nvcr.io/nvidia/k8s/dcgm-exporter",
            "nvidia-dcgm-exporter"),
    Operand("gfd", "gpu-feature-discovery", "gpu-feature-discovery", True, "nvcr.io/nvidia/k8s-device-plugin",
            "gpu-feature-discovery", "nvidia-gpu"),
    Operand("migManager", "nvidia-mig-manager", "mig-manager", True, "nvcr.io/nvidia/cloud-native/k8s-mig-manager",
            "nvidia-mig-manager"),
    Operand("nodeStatusExporter", "nvidia-node-status-exporter", "node-status-exporter", False, "nvcr.io/nvidia/gpu-operator",
            "nvidia-node-status-exporter"),
    Operand("validator", "nvidia-operator-validator", "operator-validator", True, "nvcr.io/nvidia/gpu-operator",
            "nvidia-operator-validator", "gpu-operator"),
)
_OPERANDS = {o.key: o for o in OPERATOR_OPERANDS}


def operand(key: str) -> Operand:
    """The operand of ClusterPolicy key ``key`` (``devicePlugin``, ``driver``, ...).

    Raises:
        KeyError: no operand of :data:`OPERATOR_OPERANDS` has that key.
    """
    return _OPERANDS[key]


@dataclass(frozen=True)
class OperatorKind:
    """One row: ``(group, kind)``, the operator, the source, and an expander or the reason it is not judged."""

    group: str
    kind: str
    operator: str
    source: str
    expand: Callable[[Mapping[str, Any], str, str], list[dict[str, Any]] | str] | None = None
    reason: str = ""
    #: the policy pack reads the resource itself (the ClusterPolicy: ``policies/gpu_agents.py``), so the plan
    #: adds no child DaemonSets for it.
    read_by_pack: bool = False


def _daemonset(name: str, namespace: str, pod_spec: Mapping[str, Any], origin: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": name, "namespace": namespace, "annotations": {_MARK: origin}},
        "spec": {"template": {"spec": dict(pod_spec)}},
    }


def _enabled(spec: Mapping[str, Any], key: str, default: bool) -> bool:
    section = spec.get(key)
    value = section.get("enabled") if isinstance(section, Mapping) else None
    return value if isinstance(value, bool) else default


def _image(section: Any, fallback: str) -> str:
    if not isinstance(section, Mapping):
        return fallback
    repo, image, version = section.get("repository"), section.get("image"), section.get("version")
    if isinstance(image, str) and image:
        name = f"{repo}/{image}" if isinstance(repo, str) and repo else image
        return f"{name}:{version}" if isinstance(version, str) and version else name
    return fallback


def operand_daemonset(spec: Mapping[str, Any], of: Operand, namespace: str, origin: str) -> dict[str, Any]:
    """The DaemonSet the GPU Operator creates for operand ``of`` from a ClusterPolicy ``spec`` (camelCase; the
    ``gpu-operator`` chart's values have the same keys for what is read here: its ``templates/clusterpolicy.yaml``
    copies ``daemonsets.tolerations``, ``daemonsets.priorityClassName`` and each operand's ``repository``, ``image``
    and ``version``), whether or not the operand is enabled, limited to what placement reads.

    Shape: ``apps/v1`` ``DaemonSet`` named ``of.daemonset`` in ``namespace``, annotated
    ``gpu-node-pools/synthesized-from: "<origin> spec.<key>"``, with ``of.labels`` on it, in
    ``spec.selector.matchLabels`` and on the pod template, whose spec holds ``nodeSelector``
    ``{"nvidia.com/gpu.deploy.<label>": "true"}``, ``tolerations`` (``spec.daemonsets.tolerations`` when a non-empty
    list, else ``nvidia.com/gpu`` ``Exists`` ``NoSchedule``), ``priorityClassName`` (``spec.daemonsets.priorityClassName``
    when a non-empty string, else ``system-node-critical``) and one container, ``of.container``, whose image is
    ``<repository>/<image>:<version>`` of ``spec.<key>`` when it names an image, else ``of.image``.
    Source: NVIDIA/gpu-operator@v26.7.0 ``assets/state-device-plugin/0500_daemonset.yaml`` (and the other
    operands' assets), ``controllers/object_controls.go`` ``applyCommonDaemonsetConfig``.
    """
    daemonsets = spec.get("daemonsets")
    daemonsets = daemonsets if isinstance(daemonsets, Mapping) else {}
    tolerations = daemonsets.get("tolerations")
    tolerations = list(tolerations) if isinstance(tolerations, list) and tolerations else [dict(_GPU)]
    priority = daemonsets.get("priorityClassName")
    pod_spec = {
        "nodeSelector": {OPERATOR_DEPLOY_PREFIX + of.deploy_label: "true"},
        "tolerations": [dict(t) if isinstance(t, Mapping) else t for t in tolerations],
        "priorityClassName": priority if isinstance(priority, str) and priority else SYSTEM_NODE_CRITICAL,
        "containers": [{"name": of.container, "image": _image(spec.get(of.key), of.image)}],
    }
    made = _daemonset(of.daemonset, namespace, pod_spec, f"{origin} spec.{of.key}")
    made["metadata"]["labels"] = dict(of.labels)
    made["spec"] = {"selector": {"matchLabels": dict(of.labels)},
                    "template": {"metadata": {"labels": dict(of.labels)}, "spec": pod_spec}}
    return made


def cluster_policy_daemonsets(spec: Mapping[str, Any], namespace: str = GPU_OPERATOR_NAMESPACE,
                              origin: str = "ClusterPolicy") -> list[dict[str, Any]]:
    """The DaemonSets of the operands a ClusterPolicy ``spec`` enables (module docstring), each as
    :func:`operand_daemonset` builds it, in the order of :data:`OPERATOR_OPERANDS`."""
    return [operand_daemonset(spec, of, namespace, origin) for of in OPERATOR_OPERANDS
            if _enabled(spec, of.key, of.default_on)]


def _cluster_policy(obj: Mapping[str, Any], namespace: str, origin: str) -> list[dict[str, Any]] | str:
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        return "its spec is not an object"
    return cluster_policy_daemonsets(spec, namespace, origin)


def _nvidia_driver(obj: Mapping[str, Any], namespace: str, origin: str) -> list[dict[str, Any]] | str:
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        return "its spec is not an object"
    if spec.get("nodeAffinity"):
        return "spec.nodeAffinity is applied by the operator's controller code, which this table does not model"
    label = "vgpu-manager" if spec.get("driverType") == "vgpu-host-manager" else "driver"
    selector = {f"nvidia.com/gpu.deploy.{label}": "true"}
    extra = spec.get("nodeSelector")
    if isinstance(extra, Mapping):
        selector.update({str(k): v for k, v in extra.items()})
    more = spec.get("tolerations")
    tolerations = [dict(_GPU)] + (list(more) if isinstance(more, list) else [])
    name = str((obj.get("metadata") or {}).get("name") or "nvidiadriver")
    pod_spec = {"nodeSelector": selector, "tolerations": tolerations,
                "containers": [{"name": "nvidia-driver", "image": _image(spec, "nvcr.io/nvidia/driver")}]}
    return [_daemonset(f"nvidia-{name}-driver", namespace, pod_spec, origin)]


def _elastic(obj: Mapping[str, Any], namespace: str, origin: str) -> list[dict[str, Any]] | str:
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        return "its spec is not an object"
    daemon = spec.get("daemonSet")
    if daemon is None:
        if spec.get("deployment") is not None or spec.get("statefulSet") is not None:
            return []  # a Deployment or StatefulSet: no node agent
        return "it sets none of spec.daemonSet, spec.deployment, spec.statefulSet"
    template = daemon.get("podTemplate") if isinstance(daemon, Mapping) else None
    pod_spec = template.get("spec") if isinstance(template, Mapping) else None
    name = str((obj.get("metadata") or {}).get("name") or "agent")
    kind = str(obj.get("kind") or "Agent").lower()
    return [_daemonset(f"{name}-{'agent' if kind == 'agent' else 'beat'}", namespace,
                       pod_spec if isinstance(pod_spec, Mapping) else {}, origin)]


def _prometheus_agent(obj: Mapping[str, Any], namespace: str, origin: str) -> list[dict[str, Any]] | str:
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        return "its spec is not an object"
    if spec.get("mode") != "DaemonSet":
        return []  # the default mode runs a StatefulSet
    pod_spec = {k: spec[k] for k in ("tolerations", "nodeSelector", "affinity") if spec.get(k) is not None}
    name = str((obj.get("metadata") or {}).get("name") or "agent")
    return [_daemonset(f"prom-agent-{name}", namespace, pod_spec, origin)]


_IN_CODE = "builds its DaemonSets' tolerations and node selection in controller code, merging defaults this table does not hold"
#: The one table of operator kinds known to create DaemonSets (module docstring for each row's source).
OPERATOR_KINDS: tuple[OperatorKind, ...] = (
    OperatorKind("nvidia.com", "ClusterPolicy", "NVIDIA GPU Operator", "NVIDIA/gpu-operator@v26.7.0", _cluster_policy,
                 read_by_pack=True),
    OperatorKind("nvidia.com", "NVIDIADriver", "NVIDIA GPU Operator", "NVIDIA/gpu-operator@v26.7.0 manifests/state-driver", _nvidia_driver),
    OperatorKind("agent.k8s.elastic.co", "Agent", "Elastic ECK", "elastic/cloud-on-k8s pkg/apis/agent/v1alpha1", _elastic),
    OperatorKind("beat.k8s.elastic.co", "Beat", "Elastic ECK", "elastic/cloud-on-k8s pkg/apis/beat/v1beta1", _elastic),
    OperatorKind("monitoring.coreos.com", "PrometheusAgent", "Prometheus Operator",
                 "prometheus-operator/prometheus-operator pkg/apis/monitoring/v1alpha1/prometheusagent_types.go", _prometheus_agent),
    OperatorKind("mellanox.com", "NicClusterPolicy", "NVIDIA Network Operator",
                 "Mellanox/network-operator api/v1alpha1/nicclusterpolicy_types.go", reason=_IN_CODE),
    OperatorKind("nfd.kubernetes.io", "NodeFeatureDiscovery", "NFD Operator",
                 "kubernetes-sigs/node-feature-discovery-operator api/v1/nodefeaturediscovery_types.go", reason=_IN_CODE),
    OperatorKind("nfd.k8s-sigs.io", "NodeFeatureDiscovery", "NFD Operator",
                 "kubernetes-sigs/node-feature-discovery-operator config/crd/bases", reason=_IN_CODE),
    OperatorKind("datadoghq.com", "DatadogAgent", "Datadog Operator",
                 "DataDog/datadog-operator api/datadoghq/v2alpha1/datadogagent_types.go", reason=_IN_CODE),
    OperatorKind("dynatrace.com", "DynaKube", "Dynatrace Operator",
                 "Dynatrace/dynatrace-operator pkg/api/latest/dynakube", reason=_IN_CODE + " (the OneAgent DaemonSet of cloudNativeFullStack/classicFullStack/hostMonitoring)"),
    OperatorKind("instance.falcosecurity.dev", "Falco", "Falco Operator",
                 "falcosecurity/falco-operator api/instance/v1alpha1/falco_types.go", reason=_IN_CODE),
)
_BY_KEY = {(row.group, row.kind): row for row in OPERATOR_KINDS}
_GROUPS = {row.group for row in OPERATOR_KINDS}


def group_kind(resource_type: str) -> tuple[str, str] | None:
    """``kubernetes:nvidia.com/v1:ClusterPolicy`` -> ``("nvidia.com", "ClusterPolicy")``; None for other tokens."""
    if not resource_type.startswith("kubernetes:"):
        return None
    _, _, rest = resource_type.partition(":")
    group_version, _, kind = rest.rpartition(":")
    group = group_version.rpartition("/")[0] if "/" in group_version else ""
    return (group, kind) if group and kind else None


def known_kind(group: str, kind: str) -> OperatorKind | None:
    """The table's row for ``(group, kind)``, or None."""
    return _BY_KEY.get((group, kind))


def expand_custom_resource(resource_type: str, obj: Mapping[str, Any], *, resource: str = "",
                           namespace: str | None = None, unknown_markers: tuple[Any, ...] = ()) -> Expanded | NotJudged | None:
    """The DaemonSets a custom resource makes its operator create.

    Args:
        resource_type: the Pulumi type token (``kubernetes:<group>/<version>:<Kind>``).
        obj: the resource (camelCase: ``metadata``, ``spec``).
        resource: its URN or name, for the result.
        namespace: where the operator creates them (default: the resource's namespace, else the operator's
            usual one; the placement verdicts do not depend on it).
        unknown_markers: the values that stand for "unknown at preview" (a spec holding one is not judged).

    Returns:
        None when no row names the group (not an operator this table knows) or the group is known but the
        kind creates no DaemonSet; :class:`Expanded` (DaemonSets, maybe none) or :class:`NotJudged` (why).
    """
    key = group_kind(resource_type)
    if key is None or key[0] not in _GROUPS:
        return None
    row = _BY_KEY.get(key)
    if row is None:
        return None
    who = resource or str((obj.get("metadata") or {}).get("name") or resource_type)
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    ns = namespace or str(meta.get("namespace") or "") or (GPU_OPERATOR_NAMESPACE if row.group == "nvidia.com" else "default")
    fix = (f"judge the DaemonSets {row.operator} creates after apply (`gpupool audit` reads them from the cluster), "
           "or check by hand that they tolerate the GPU pools' taints and select the nodes they should")
    if row.expand is None:
        return NotJudged(who, resource_type, f"{row.operator} {row.reason} ({row.source})", fix)
    unknown = find_unknown(obj.get("spec"), unknown_markers, "spec")
    if unknown is not None:
        return NotJudged(who, resource_type, f"{unknown} is unknown before apply, so the DaemonSets {row.operator} "
                         "creates from it cannot be derived", "make it a plain value, or judge after apply with `gpupool audit`")
    made = row.expand(obj, ns, f"{row.kind} {meta.get('name', '')}".strip())
    if isinstance(made, str):
        return NotJudged(who, resource_type, f"{row.kind} not expanded: {made} ({row.source})", fix)
    return Expanded(who, resource_type, made, f"operator table ({row.source})")
