"""The one place this package imports from modules that are about to move (issue 11).

When ``render/device_plugin.py`` or ``policies/workloads.py`` move, only these imports change.
"""

from __future__ import annotations

from ..policies.workloads import NodeSelection, stay_on
from ..render.device_plugin import CHART as DEVICE_PLUGIN_CHART
from ..render.device_plugin import CHART_VERSION as DEVICE_PLUGIN_CHART_VERSION
from ..render.device_plugin import CRITICAL_ADDONS_ONLY, derived_tolerations, node_affinity
from ..render.device_plugin import chart_daemonset as device_plugin_daemonset

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
