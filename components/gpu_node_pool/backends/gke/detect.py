"""Recognise GKE GPU node pools (``gcp:container/nodePool:NodePool``), ours or hand-written (pulumi_gcp ``container/_inputs.py``; https://cloud.google.com/kubernetes-engine/docs/how-to/gpus)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...k8s.wellknown import GKE_NO_DEFAULT_PLUGIN_LABEL
from ...sdk.props import dig, items, text
from .._shared.gpu_pool import GpuPool, int_or_none, read_taints, string_labels
from . import BACKEND

#: GKE machine types that come with GPUs attached (A2, A3, A4, G2, G4 series).
_GKE_GPU_MACHINE = re.compile(r"^(a2|a3|a4|a4x|g2|g4)-")


def detect(resource_type: str, props: Mapping[str, Any], name: str, urn: str, context: Mapping[str, Any]) -> GpuPool | None:
    """A ``gcp:container/nodePool:NodePool`` is a GPU pool with guest accelerators or an A2/A3/A4/G2/G4 machine type."""
    from . import read as gke

    accelerators = [a for a in items(dig(props, "nodeConfig", "guestAccelerators")) if isinstance(a, Mapping)]
    machine = text(dig(props, "nodeConfig", "machineType")) or ""
    if not accelerators and not _GKE_GPU_MACHINE.match(machine):
        return None
    taints, problem = read_taints(gke.read_node_pool_taints, props)
    labels = string_labels(dig(props, "nodeConfig", "labels"))
    accel_type = text(dig(accelerators[0], "type")) if accelerators else None
    if accel_type:
        labels.setdefault("cloud.google.com/gke-accelerator", accel_type)
    opted_out = labels.get(GKE_NO_DEFAULT_PLUGIN_LABEL) == "true"
    driver = text(dig(accelerators[0], "gpuDriverInstallationConfig", "gpuDriverVersion")) if accelerators else None
    return GpuPool(
        backend=BACKEND.name,
        resource_type=resource_type,
        name=name,
        urn=urn,
        taints=taints,
        labels=labels,
        where="gcp.container.NodePool node_config.taints (GpuNodePool taints)",
        gke_managed_plugin=not opted_out,
        platform="gke",
        min_size=int_or_none(dig(props, "autoscaling", "totalMinNodeCount", default=dig(props, "autoscaling", "minNodeCount"))),
        problem=problem,
        # who installs the driver: INSTALLATION_DISABLED means nobody unless the stack does
        extra={"gpu_driver_version": driver, "node_pool_name": text(dig(props, "name")),
               "confidential_nodes": dig(props, "nodeConfig", "confidentialNodes", "enabled")},
        instance_types=(machine,) if machine else None,
        zones=tuple(z for z in items(dig(props, "nodeLocations")) if isinstance(z, str)) or None,
    )
