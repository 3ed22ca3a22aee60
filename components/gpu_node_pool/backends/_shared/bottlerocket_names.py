"""Addresses in Bottlerocket's documentation that messages of several modules cite.

Imports nothing, so a module names them without loading the settings table of :mod:`.bottlerocket_settings`.
The ``settings.kubelet-device-plugins`` reference, which the GPU agents cite too, is
:data:`gpu_node_pool.gpu_agents.bottlerocket_sharing.DEVICE_PLUGINS_REFERENCE`: ``gpu_agents`` is a layer below
``backends`` and cannot import this module.
"""

from __future__ import annotations

__all__ = ["SETTINGS_INDEX"]

#: Bottlerocket's settings reference, every settings group and key: where a user checks a key or group.
SETTINGS_INDEX = "https://bottlerocket.dev/en/os/latest/#/api/settings/"
