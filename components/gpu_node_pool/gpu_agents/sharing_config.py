"""The device plugin's own config file format for GPU sharing, and the chart's ``config`` values built from it.

NVIDIA's device plugin (chart ``nvidia-device-plugin`` 0.20.0) reads named configs from the
chart's ``config.map`` (``<name>: <YAML string>``, written verbatim into a ConfigMap by
``templates/configmap.yml``) and picks one per node from the node label
``nvidia.com/device-plugin.config=<name>``; nodes without the label get ``config.default``.
Config format ``version: v1`` with ``sharing.timeSlicing.resources[{name, replicas}]`` or
``sharing.mps.resources[...]``; ``renameByDefault`` stays off, so the resource keeps the name
``nvidia.com/gpu`` and every GPU counts ``replicas`` times.
Source: NVIDIA/k8s-device-plugin@v0.20.0 README.md L383-430, L515-599, L725-846 ("Shared Access to GPUs") and
``deployments/helm/nvidia-device-plugin/values.yaml`` L1-28.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import yaml

from ..config.common import sharing_config_name
from ..k8s.wellknown import NVIDIA_GPU_RESOURCE

__all__ = ["DEFAULT_CONFIG_NAME", "plugin_config", "config_documents", "config_values", "pool_sharing"]

#: The chart falls back to the entry named ``default`` (values.yaml L20-28, ``fallbackStrategies: [named]``).
DEFAULT_CONFIG_NAME = "default"

Setting = tuple[str, int]  # (strategy timeSlicing|mps, replicas)


def plugin_config(setting: Setting | None) -> dict[str, Any]:
    """The config document of one setting (None: the plain default, no sharing).

    Shape: ``{version: v1}`` or ``{version: v1, sharing: {<timeSlicing|mps>: {renameByDefault: false,
    resources: [{name: nvidia.com/gpu, replicas: N}]}}}``.
    """
    doc: dict[str, Any] = {"version": "v1"}
    if setting is not None:
        strategy, replicas = setting
        doc["sharing"] = {
            strategy: {"renameByDefault": False, "resources": [{"name": NVIDIA_GPU_RESOURCE, "replicas": replicas}]}
        }
    return doc


def config_documents(settings: Iterable[Setting]) -> dict[str, str]:
    """``{name: YAML}``: ``default`` plus one named config per distinct setting (sorted by name); ``{}`` without any."""
    distinct = {(s, r) for s, r in settings}
    if not distinct:
        return {}
    docs = {DEFAULT_CONFIG_NAME: plugin_config(None)}
    for setting in sorted(distinct, key=lambda s: sharing_config_name(*s)):
        docs[sharing_config_name(*setting)] = plugin_config(setting)
    return {name: yaml.safe_dump(doc, sort_keys=False) for name, doc in docs.items()}


def config_values(settings: Iterable[Setting]) -> dict[str, Any]:
    """The chart's ``config`` values: ``{map: {default: <YAML>, <name>: <YAML>...}, default: default}``; ``{}`` without sharing."""
    documents = config_documents(settings)
    return {"map": documents, "default": DEFAULT_CONFIG_NAME} if documents else {}


def pool_sharing(pool: Any) -> Setting | None:
    """``(strategy, replicas)`` of a pool config model's ``gpuSharing`` (or an AgentPool's ``sharing``), or None."""
    sharing = getattr(pool, "gpu_sharing", None) or getattr(pool, "sharing", None)
    return None if sharing is None else (sharing.strategy, sharing.replicas)
