"""Pulumi resources of a karpenter pool: the ``karpenter.sh/v1`` NodePool, with ``nodeClass`` its EC2NodeClass, and
with ``nodeOverlay`` its NodeOverlays (``karpenter.sh/v1alpha1``)."""

from __future__ import annotations

from typing import Any

from ...sdk.identity import ClusterIdentity
from .._shared.custom_resource import custom_resource
from . import BACKEND
from .config import KarpenterPool


def wire(component: Any, name: str, pool: KarpenterPool, cluster: ClusterIdentity) -> None:
    from . import render as karpenter

    depends_on: list[Any] = []
    if pool.node_class is not None:
        component.ec2nodeclass = custom_resource(
            BACKEND.child_name("ec2nodeclass", name), karpenter.ec2nodeclass_manifest(pool, cluster), component
        )
        depends_on.append(component.ec2nodeclass)
    nodepool = karpenter.nodepool_manifest(pool, cluster)
    component.nodepool = custom_resource(BACKEND.child_name("nodepool", name), nodepool, component, depends_on)
    component.nodepool_name = nodepool["metadata"]["name"]
    component.exports["karpenterNodePool"] = component.nodepool_name
    from .node_overlay import manifests as overlay_manifests

    overlays = overlay_manifests(pool)
    component.nodeoverlays = [
        custom_resource(overlay_child_name(name, overlay), overlay, component, [component.nodepool]) for overlay in overlays
    ]
    if overlays:
        component.exports["karpenterNodeOverlays"] = [o["metadata"]["name"] for o in overlays]


def overlay_child_name(pool_name: str, overlay: dict[str, Any]) -> str:
    """``<pool>-nodeoverlay-<N>gpu``: the child name of one NodeOverlay (its ``metadata.name`` is ``<pool>-<N>gpu``)."""
    suffix = overlay["metadata"]["name"][len(pool_name) + 1:]
    return f"{BACKEND.child_name('nodeoverlay', pool_name)}-{suffix}"
