"""Is this the NVIDIA device plugin? Decided by what a resource is, never by its position or type.

The device plugin is the ``NvidiaDevicePlugin`` component, a chart named
``nvidia-device-plugin``, or a DaemonSet running NVIDIA's k8s-device-plugin image. Any other
chart is an ordinary workload.

Sources: the chart name and image repository of NVIDIA/k8s-device-plugin v0.20.0
(``deployments/helm/nvidia-device-plugin/Chart.yaml`` ``name``; ``values.yaml``
``image.repository: nvcr.io/nvidia/k8s-device-plugin``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..k8s.images import image_repository

__all__ = [
    "DEVICE_PLUGIN_CHART",
    "DEVICE_PLUGIN_IMAGE",
    "COMPONENT_TYPE",
    "is_device_plugin_chart",
    "is_device_plugin_image",
    "is_device_plugin_daemonset",
    "is_device_plugin_component",
]

DEVICE_PLUGIN_CHART = "nvidia-device-plugin"
DEVICE_PLUGIN_IMAGE = "nvcr.io/nvidia/k8s-device-plugin"
#: The type token of our own component (``device_plugin.TYPE_TOKEN``).
COMPONENT_TYPE = "gpu-node-pools:index:NvidiaDevicePlugin"

_CHART_TYPES = ("kubernetes:helm.sh/v4:Chart", "kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v3:Chart")
# The chart reference's last path segment without a packaged chart's "-<version>.tgz":
# "nvidia-device-plugin", "nvdp/nvidia-device-plugin", "oci://…/nvidia-device-plugin",
# "./charts/nvidia-device-plugin", "nvidia-device-plugin-0.20.0.tgz".
_PACKAGED = re.compile(r"-v?\d+\.\d+\.\d+[^/]*\.tgz$")


def _chart_basename(chart: str) -> str:
    base = chart.rstrip("/").rsplit("/", 1)[-1]
    return _PACKAGED.sub("", base)


def is_device_plugin_chart(type_token: str, inputs: Mapping[str, Any]) -> bool:
    """True for a Helm chart resource whose chart is ``nvidia-device-plugin`` and whose values do not
    turn the plugin off (``devicePlugin.enabled: false``, used to install GPU Feature Discovery alone).

    Args:
        type_token: the Pulumi type (``kubernetes:helm.sh/v4:Chart``, ``…/v3:Release`` or
            ``…/v3:Chart``); anything else is False.
        inputs: the resource inputs (camelCase); ``chart`` is a name, a repo-qualified name, an
            ``oci://`` reference, a local directory or a packaged ``.tgz``.
    """
    chart = inputs.get("chart")
    if not (type_token in _CHART_TYPES and isinstance(chart, str) and _chart_basename(chart) == DEVICE_PLUGIN_CHART):
        return False
    # the same chart with devicePlugin.enabled false installs only GFD/MPS (chart values.yaml L60-160)
    values = inputs.get("values")
    plugin = values.get("devicePlugin") if isinstance(values, Mapping) else None
    return not (isinstance(plugin, Mapping) and plugin.get("enabled") is False)


def is_device_plugin_image(image: Any) -> bool:
    """True when ``image`` is NVIDIA's k8s-device-plugin (any tag or digest, with or without ``docker://``)."""
    return image_repository(image) == DEVICE_PLUGIN_IMAGE


def is_device_plugin_daemonset(obj: Mapping[str, Any]) -> bool:
    """True for a ``DaemonSet`` object (camelCase) with a container or init container running the image."""
    if obj.get("kind") != "DaemonSet":
        return False
    pod = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
    containers = list(pod.get("containers") or []) + list(pod.get("initContainers") or [])
    return any(isinstance(c, Mapping) and is_device_plugin_image(c.get("image")) for c in containers)


def is_device_plugin_component(type_token: str) -> bool:
    """True for our ``NvidiaDevicePlugin`` component."""
    return type_token == COMPONENT_TYPE
