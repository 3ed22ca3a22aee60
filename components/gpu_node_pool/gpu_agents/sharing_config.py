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

A MIG pool's config carries its own ``flags.migStrategy`` (``single`` | ``mixed``; the chart's
``mig-single``/``mig-mixed`` example, values.yaml L1-19), so pools with different strategies share one
cluster. The file's flag counts only where no ``MIG_STRATEGY`` environment variable is set on the plugin
(precedence flag > environment > file: ``api/config/v1/config.go`` ``NewConfig``); the GPU Operator sets
none when ``ClusterPolicy.spec.mig.strategy`` is empty ("let plugin decide this per node":
NVIDIA/gpu-operator@v26.7.0 ``controllers/object_controls.go`` ``applyMIGConfiguration``, applied to the
device plugin, GFD and the MPS control daemon, which all mount the same named configs). Once any config
names a MIG strategy, ``default`` says ``migStrategy: none`` outright.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import yaml

from ..config.sharing_names import mig_config_name, sharing_config_name
from ..k8s.wellknown import NVIDIA_GPU_RESOURCE

__all__ = [
    "DEFAULT_CONFIG_NAME",
    "MIG",
    "setting_name",
    "plugin_config",
    "config_documents",
    "config_values",
    "pool_sharing",
    "pool_setting",
]

#: The chart falls back to the entry named ``default`` (values.yaml L20-28, ``fallbackStrategies: [named]``).
DEFAULT_CONFIG_NAME = "default"

#: The first element of a MIG setting: ``(MIG, "single" | "mixed")``.
MIG = "mig"
#: ``(timeSlicing | mps, replicas)`` for sharing, ``(MIG, single | mixed)`` for a MIG strategy.
Setting = tuple[str, Any]


def setting_name(setting: Setting) -> str:
    """The config's name (and ``nvidia.com/device-plugin.config`` label value): ``timeslicing-<N>``,
    ``mps-<N>``, ``mig-single`` or ``mig-mixed``."""
    kind, value = setting
    return mig_config_name(value) if kind == MIG else sharing_config_name(kind, value)


def plugin_config(setting: Setting | None, *, mig_aware: bool = False) -> dict[str, Any]:
    """The config document of one setting (None: the plain default, no sharing).

    Shape: ``{version: v1}``; sharing: ``{version: v1, sharing: {<timeSlicing|mps>: {renameByDefault: false,
    resources: [{name: nvidia.com/gpu, replicas: N}]}}}``; MIG: ``{version: v1, flags: {migStrategy: single|mixed}}``.
    ``mig_aware``: another config of the map names a MIG strategy, so this one says ``migStrategy: none``.
    """
    doc: dict[str, Any] = {"version": "v1"}
    if setting is not None and setting[0] == MIG:
        doc["flags"] = {"migStrategy": setting[1]}
        return doc
    if mig_aware:
        doc["flags"] = {"migStrategy": "none"}
    if setting is not None:
        strategy, replicas = setting
        doc["sharing"] = {
            strategy: {"renameByDefault": False, "resources": [{"name": NVIDIA_GPU_RESOURCE, "replicas": replicas}]}
        }
    return doc


def config_documents(settings: Iterable[Setting]) -> dict[str, str]:
    """``{name: YAML}``: ``default`` plus one named config per distinct setting (sorted by name); ``{}`` without any."""
    distinct = set(settings)
    if not distinct:
        return {}
    mig_aware = any(kind == MIG for kind, _ in distinct)
    docs = {DEFAULT_CONFIG_NAME: plugin_config(None, mig_aware=mig_aware)}
    for setting in sorted(distinct, key=setting_name):
        docs[setting_name(setting)] = plugin_config(setting, mig_aware=mig_aware)
    return {name: yaml.safe_dump(doc, sort_keys=False) for name, doc in docs.items()}


def config_values(settings: Iterable[Setting]) -> dict[str, Any]:
    """The chart's ``config`` values: ``{map: {default: <YAML>, <name>: <YAML>...}, default: default}``; ``{}`` without sharing."""
    documents = config_documents(settings)
    return {"map": documents, "default": DEFAULT_CONFIG_NAME} if documents else {}


def pool_sharing(pool: Any) -> Setting | None:
    """``(strategy, replicas)`` of a pool config model's ``gpuSharing`` (or an AgentPool's ``sharing``), or None."""
    sharing = getattr(pool, "gpu_sharing", None) or getattr(pool, "sharing", None)
    return None if sharing is None else (sharing.strategy, sharing.replicas)


def pool_setting(pool: Any, *, mig_in_plugin: bool) -> Setting | None:
    """The one named config a pool's nodes select: its sharing (:func:`pool_sharing`), else with
    ``mig_in_plugin`` (the NVIDIA plugin serving the pool exposes its MIG devices) ``(MIG, strategy)``,
    else None. The stack rules refuse sharing and MIG together, so at most one applies."""
    sharing = pool_sharing(pool)
    if sharing is not None:
        return sharing
    mig = getattr(pool, "mig", None)
    return (MIG, mig.strategy) if mig is not None and mig_in_plugin else None
