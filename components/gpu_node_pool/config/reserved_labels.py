"""Node labels the component writes itself, which a pool may not set by hand in any field that reaches its nodes
(``labels``, a kubelet's ``--node-labels``, a Bottlerocket ``node-labels`` setting, user data).

* ``gpu-node-pools/pool``: the pool's name, which the device plugin's affinity and ``workload_node_selector`` read.
* ``nvidia.com/device-plugin.config``: picks one of the device plugin's named configs (NVIDIA k8s-device-plugin
  v0.20.0 README, "Multiple Device Plugin Configs"). The node then advertises that config's count, which the plan
  cannot know, and a name the chart's configs lack stops the plugin's config manager at start; the component
  writes it from ``gpuSharing`` and ``mig``.
* ``nvidia.com/mig.config``: the layout the GPU Operator's MIG manager partitions the node's GPUs into (GPU
  Operator docs, "GPU Operator with MIG"); the component writes it from ``mig``.
"""

from __future__ import annotations

from typing import Any

from ..k8s.wellknown import DEVICE_PLUGIN_CONFIG_LABEL, MIG_CONFIG_LABEL, NVIDIA_GPU_RESOURCE, POOL_LABEL_KEY

__all__ = ["RESERVED_LABELS", "reserved_label_problem"]

#: The label keys :func:`reserved_label_problem` refuses.
RESERVED_LABELS = (POOL_LABEL_KEY, DEVICE_PLUGIN_CONFIG_LABEL, MIG_CONFIG_LABEL)


def reserved_label_problem(key: str, value: Any, *, sharing: str | None = None, mig: str | None = None,
                           mig_layout: str | None = None) -> str | None:
    """Why a pool may not set label ``key`` (to ``value``) by hand, or None. ``sharing``: the device-plugin config
    the pool's ``gpuSharing`` names (``timeslicing-4``), ``mig``: its ``mig`` config (``mig-single``),
    ``mig_layout``: the MIG manager layout its ``mig`` names (``all-1g.10gb``); each None when the pool has none.
    ``value`` None: not known where the label is written (it is not shown)."""
    given = f" ({value!r})" if value is not None else ""
    if key == POOL_LABEL_KEY:
        return f"{POOL_LABEL_KEY!r} is set by the component to the pool name; remove it"
    if key == DEVICE_PLUGIN_CONFIG_LABEL:
        if sharing is not None:
            return f"{key!r} is set by the component from gpuSharing ({sharing!r}); remove it"
        if mig is not None:
            return f"{key!r} is set by the component from mig ({mig!r}, the device-plugin config carrying migStrategy); remove it"
        return (f"{key!r}{given} picks the device plugin's named config, which the component writes from "
                f"gpuSharing and mig so that the plan knows how many {NVIDIA_GPU_RESOURCE} each node advertises; set "
                "gpuSharing or mig instead (a name the plugin's configs lack keeps it from starting), and remove the label")
    if key == MIG_CONFIG_LABEL:
        if mig_layout is not None:
            return (f"{key!r} is set by the component from mig ({mig_layout!r} where the GPU Operator's MIG manager "
                    "partitions); remove it")
        return (f"{key!r}{given} makes the GPU Operator's MIG manager partition the node's GPUs, which the "
                "component sets from mig so that the plan knows what each node advertises; set mig instead, and remove "
                "the label")
    return None
