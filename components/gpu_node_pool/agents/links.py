"""The one place the agents package imports the device plugin's derivations and the policies'
node-selection reading from."""

from __future__ import annotations

from ..device_plugin.chart import chart_daemonset as device_plugin_daemonset
from ..device_plugin.values import CHART as DEVICE_PLUGIN_CHART
from ..device_plugin.values import CHART_VERSION as DEVICE_PLUGIN_CHART_VERSION
from ..device_plugin.values import CRITICAL_ADDONS_ONLY, derived_tolerations, node_affinity
from ..policies.workloads import NodeSelection, stay_on

__all__ = [
    "DEVICE_PLUGIN_CHART",
    "DEVICE_PLUGIN_CHART_VERSION",
    "CRITICAL_ADDONS_ONLY",
    "device_plugin_daemonset",
    "derived_tolerations",
    "node_affinity",
    "NodeSelection",
    "stay_on",
]
