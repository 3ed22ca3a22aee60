"""NVIDIA device plugin chart values, derived from the pools it serves.

The chart (``nvidia-device-plugin`` 0.20.0, https://nvidia.github.io/k8s-device-plugin)
renders ``.Values.tolerations``, ``.Values.affinity`` and ``.Values.priorityClassName``
verbatim into its DaemonSet. A custom ``tolerations`` list *replaces* the chart's defaults
(Helm lists do not merge), so ``CriticalAddonsOnly`` is added back here.

Sources: NVIDIA/k8s-device-plugin v0.20.0 ``deployments/helm/nvidia-device-plugin/values.yaml``
and ``templates/daemonset-device-plugin.yml``; the static manifest's container
``securityContext`` (``allowPrivilegeEscalation: false``, ``capabilities.drop: [ALL]``).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..config import POOL_LABEL_KEY, DevicePluginConfig
from ..taints import Taint, TaintEffect, Toleration, tolerations_tolerate_taint

__all__ = [
    "CHART",
    "CHART_VERSION",
    "CHART_REPO",
    "APP_VERSION",
    "CRITICAL_ADDONS_ONLY",
    "ServedPool",
    "derived_tolerations",
    "node_affinity",
    "chart_values",
    "read_tolerations",
    "coverage",
    "CHART_DEFAULT_VALUES",
    "chart_daemonset",
]

CHART = "nvidia-device-plugin"
CHART_VERSION = "0.20.0"
APP_VERSION = "0.20.0"
CHART_REPO = "https://nvidia.github.io/k8s-device-plugin"
IMAGE_REPOSITORY = "nvcr.io/nvidia/k8s-device-plugin"
CRITICAL_ADDONS_ONLY = Toleration(key="CriticalAddonsOnly", operator="Exists")


class ServedPool(Protocol):
    """What the device plugin needs of a pool (every pool config model provides it)."""

    name: str

    @property
    def taint_list(self) -> list[Taint]: ...

    @property
    def node_labels(self) -> dict[str, str]: ...

    @property
    def uses_nvidia_device_plugin(self) -> bool: ...


def derived_tolerations(pools: Iterable[ServedPool], extra: Sequence[Toleration] = ()) -> list[Toleration]:
    """``CriticalAddonsOnly`` plus one ``Exists`` toleration per distinct ``(key, effect)`` of the pools' taints.

    ``Exists`` (not ``Equal``) so that a changed taint value never strands the plugin; startup
    taints are not pool taints and are never included. Order: CriticalAddonsOnly, then the
    taints sorted by key and effect, then ``extra``.
    """
    identities = sorted({t.identity for pool in pools for t in pool.taint_list}, key=lambda i: (i[0], i[1].value))
    out = [CRITICAL_ADDONS_ONLY]
    out += [Toleration(key=key, operator="Exists", effect=effect) for key, effect in identities]
    out += [t for t in extra if t not in out]
    return out


def node_affinity(pools: Iterable[ServedPool], gpu_label_of: Any = None) -> dict[str, Any]:
    """A required node affinity that matches exactly the served pools' nodes.

    One ``nodeSelectorTerm`` per distinct GPU label: ``<gpu label> In [<value>]`` and
    ``gpu-node-pools/pool In [<pool names>]`` (terms are ORed, expressions ANDed).
    """
    by_label: dict[tuple[str, str], list[str]] = {}
    for pool in pools:
        label = (pool.gpu_label.key, pool.gpu_label.value)
        by_label.setdefault(label, []).append(pool.name)
    terms = [
        {
            "matchExpressions": [
                {"key": key, "operator": "In", "values": [value]},
                {"key": POOL_LABEL_KEY, "operator": "In", "values": sorted(names)},
            ]
        }
        for (key, value), names in sorted(by_label.items())
    ]
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}


def chart_values(pools: Sequence[ServedPool], config: DevicePluginConfig) -> dict[str, Any]:
    """The chart ``values`` for the pools that need NVIDIA's plugin (``uses_nvidia_device_plugin``).

    Keys: ``tolerations`` (derived), ``affinity`` (derived), ``priorityClassName``
    (``system-node-critical``), ``image`` (tag pinned to the app version, or a digest), and an
    unprivileged container ``securityContext``.
    """
    served = [p for p in pools if p.uses_nvidia_device_plugin]
    extra = [t.to_toleration() for t in config.extra_tolerations]
    image: dict[str, Any] = {"repository": IMAGE_REPOSITORY, "tag": f"v{APP_VERSION}"}
    if config.image_digest:
        image["tag"] = f"v{APP_VERSION}@{config.image_digest}"
    return {
        "tolerations": [t.to_k8s() for t in derived_tolerations(served, extra)],
        "affinity": node_affinity(served),
        "priorityClassName": "system-node-critical",
        "image": image,
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "privileged": False,
            "capabilities": {"drop": ["ALL"]},
        },
    }


def read_tolerations(values: Mapping[str, Any]) -> list[Toleration]:
    """Tolerations back from chart values (the inverse of the ``tolerations`` key)."""
    return [Toleration.from_k8s(t) for t in (values.get("tolerations") or [])]


@dataclass(frozen=True)
class Coverage:
    pool: str
    taint: Taint
    tolerated: bool


def coverage(values: Mapping[str, Any], pools: Iterable[ServedPool]) -> list[Coverage]:
    """For each served pool and taint: does the plugin (these chart values) tolerate it?"""
    tolerations = read_tolerations(values)
    return [
        Coverage(pool.name, taint, tolerations_tolerate_taint(tolerations, taint))
        for pool in pools
        if pool.uses_nvidia_device_plugin
        for taint in pool.taint_list
    ]


# --- the chart's DaemonSet, as templates/daemonset-device-plugin.yml renders it ----------

#: The v0.20.0 chart defaults that reach the device-plugin DaemonSet's scheduling fields
#: (``values.yaml``). The default toleration effect goes through ``TaintEffect``.
CHART_DEFAULT_VALUES: dict[str, Any] = {
    "nameOverride": "",
    "fullnameOverride": "",
    "namespaceOverride": "",
    "image": {"repository": IMAGE_REPOSITORY, "pullPolicy": "IfNotPresent", "tag": ""},
    "updateStrategy": {"type": "RollingUpdate"},
    "nodeSelector": {},
    "affinity": {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [
                        {"key": "feature.node.kubernetes.io/pci-10de.present", "operator": "In", "values": ["true"]}
                    ]},
                    {"matchExpressions": [
                        {"key": "feature.node.kubernetes.io/cpu-model.vendor_id", "operator": "In", "values": ["NVIDIA"]}
                    ]},
                    {"matchExpressions": [{"key": "nvidia.com/gpu.present", "operator": "In", "values": ["true"]}]},
                ]
            }
        }
    },
    "tolerations": [
        CRITICAL_ADDONS_ONLY.to_k8s(),
        Toleration(key="nvidia.com/gpu", operator="Exists", effect=TaintEffect.NO_SCHEDULE).to_k8s(),
    ],
    "priorityClassName": "system-node-critical",
    "runtimeClassName": None,
    "devicePlugin": {"enabled": True},
}


def _coalesce(user: Any, default: Any) -> Any:
    """Helm's values merge: maps merge key by key, a ``None`` deletes a default, anything else replaces."""
    if isinstance(user, Mapping) and isinstance(default, Mapping):
        out = dict(default)
        for key, value in user.items():
            if value is None:
                out.pop(key, None)
            elif key in out:
                out[key] = _coalesce(value, out[key])
            else:
                out[key] = value
        return out
    return user


def _fullname(release: str, values: Mapping[str, Any]) -> str:
    # _helpers.tpl "nvidia-device-plugin.fullname"
    if values.get("fullnameOverride"):
        return str(values["fullnameOverride"])[:63].rstrip("-")
    name = values.get("nameOverride") or CHART
    if name in release:
        return release[:63].rstrip("-")
    return f"{release}-{name}"[:63].rstrip("-")


def chart_daemonset(values: Mapping[str, Any], namespace: str, release_name: str = CHART) -> dict[str, Any] | None:
    """The device-plugin DaemonSet the chart renders for ``values``, limited to what policies judge.

    Built exactly as ``templates/daemonset-device-plugin.yml`` (chart 0.20.0) does from
    ``values`` coalesced over :data:`CHART_DEFAULT_VALUES` (Helm semantics: maps merge, lists
    replace, ``None`` removes a default): ``metadata`` (name from ``_helpers.tpl`` fullname,
    namespace ``namespaceOverride`` or ``namespace``, the chart's labels), ``spec.selector``,
    ``spec.updateStrategy``, and in ``spec.template.spec``: ``priorityClassName`` and
    ``runtimeClassName`` when set, the ``nvidia-device-plugin-ctr`` container's ``image``
    (``<repository>:<tag or v<appVersion>>``), and ``nodeSelector``, ``affinity``,
    ``tolerations`` when non-empty (the template's ``with`` blocks). Volumes, env and the
    config-manager containers are left out.

    Args:
        values: the chart values as given to the chart (the user's, not merged).
        namespace: the release namespace.
        release_name: the Helm release name (``helm.v4.Chart`` uses the resource name when
            ``name`` is not set).

    Returns:
        The DaemonSet as a Kubernetes object (camelCase), or None when
        ``devicePlugin.enabled`` is false (the template renders nothing).
    """
    merged = copy.deepcopy(_coalesce(dict(values or {}), CHART_DEFAULT_VALUES))
    if not (merged.get("devicePlugin") or {}).get("enabled", True):
        return None
    ds_name = _fullname(release_name, merged)
    name = merged.get("nameOverride") or CHART
    selector = {"app.kubernetes.io/name": name, "app.kubernetes.io/instance": release_name}
    image = merged.get("image") or {}
    tag = image.get("tag") or f"v{APP_VERSION}"
    pod_spec: dict[str, Any] = {}
    if merged.get("priorityClassName"):
        pod_spec["priorityClassName"] = merged["priorityClassName"]
    if merged.get("runtimeClassName"):
        pod_spec["runtimeClassName"] = merged["runtimeClassName"]
    pod_spec["containers"] = [{"name": "nvidia-device-plugin-ctr", "image": f"{image.get('repository')}:{tag}"}]
    for key in ("nodeSelector", "affinity", "tolerations"):
        if merged.get(key):
            pod_spec[key] = merged[key]
    spec: dict[str, Any] = {"selector": {"matchLabels": dict(selector)}}
    if merged.get("updateStrategy"):
        spec["updateStrategy"] = merged["updateStrategy"]
    spec["template"] = {"metadata": {"labels": dict(selector)}, "spec": pod_spec}
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {
            "name": ds_name,
            "namespace": merged.get("namespaceOverride") or namespace,
            "labels": {
                "helm.sh/chart": f"{name}-{CHART_VERSION}",
                **selector,
                "app.kubernetes.io/version": APP_VERSION,
                "app.kubernetes.io/managed-by": "Helm",
            },
        },
        "spec": spec,
    }
