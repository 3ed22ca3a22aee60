"""NVIDIA's device plugin: derived chart values (:mod:`.values`), the chart's DaemonSet as the
template renders it (:mod:`.chart`), and the Pulumi component (:mod:`.component`).

``NvidiaDevicePlugin`` and ``NvidiaDevicePluginArgs`` are loaded on first use, so that the
pure modules import without the Pulumi SDK.
"""

from __future__ import annotations

from typing import Any

__all__ = ["NvidiaDevicePlugin", "NvidiaDevicePluginArgs"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import component

        return getattr(component, name)
    raise AttributeError(name)
