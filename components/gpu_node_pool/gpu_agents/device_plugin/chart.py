"""The nvidia-device-plugin chart's DaemonSet as its template renders it (the plan's stand-in when Helm is not used)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from ...k8s.taints import TaintEffect, Toleration
from ...k8s.wellknown import NVIDIA_GPU_RESOURCE, SYSTEM_NODE_CRITICAL
from .values import APP_VERSION, CHART, CHART_VERSION, CRITICAL_ADDONS_ONLY, IMAGE_REPOSITORY

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
        Toleration(key=NVIDIA_GPU_RESOURCE, operator="Exists", effect=TaintEffect.NO_SCHEDULE).to_k8s(),
    ],
    "priorityClassName": SYSTEM_NODE_CRITICAL,
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
    ``tolerations`` when non-empty (the template's ``with`` blocks). With ``nvidiaDriverRoot`` a
    string, the container's ``NVIDIA_DRIVER_ROOT`` env and ``driver-root`` mount at ``/driver-root``
    (read-only) and the pod's ``driver-root`` ``hostPath`` volume (``type: Directory``), as the
    template renders them; other volumes, env and the config-manager containers are left out.

    Args:
        values: the chart values as given to the chart (the user's, not merged).
        namespace: the release namespace.
        release_name: the Helm release name (``helm.v4.Chart`` uses the resource name when
            ``name`` is not set).

    Returns:
        The DaemonSet as a Kubernetes object (camelCase), or None when
        ``devicePlugin.enabled`` is false (the template renders nothing).

    Raises:
        ValueError: ``values.image`` or ``values.devicePlugin`` is not a map. The chart's template
            reads ``image.repository``/``image.tag`` and ``devicePlugin.enabled``, so ``helm
            template`` fails on such values (Helm keeps a non-map over a default map, "cannot
            overwrite table with non table") and the chart renders no DaemonSet.
    """
    merged = copy.deepcopy(_coalesce(dict(values or {}), CHART_DEFAULT_VALUES))
    for key, fields in (("image", "repository, tag"), ("devicePlugin", "enabled")):
        if merged.get(key) is not None and not isinstance(merged[key], Mapping):
            raise ValueError(
                f"values.{key} is {merged[key]!r}, not a map: the chart reads {key}.{fields.split(',')[0]}, so "
                f"helm template fails; give a map ({fields})"
            )
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
    container: dict[str, Any] = {"name": "nvidia-device-plugin-ctr", "image": f"{image.get('repository')}:{tag}"}
    pod_spec["containers"] = [container]
    driver_root = merged.get("nvidiaDriverRoot")
    if isinstance(driver_root, str):  # the template's `typeIs "string" .Values.nvidiaDriverRoot` blocks
        container["env"] = [{"name": "NVIDIA_DRIVER_ROOT", "value": driver_root}]
        container["volumeMounts"] = [{"name": "driver-root", "mountPath": "/driver-root", "readOnly": True}]
        pod_spec["volumes"] = [{"name": "driver-root", "hostPath": {"path": driver_root, "type": "Directory"}}]
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
