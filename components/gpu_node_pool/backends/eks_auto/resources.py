"""Pulumi resources of an eks-auto pool: the NodePool and, with ``nodeClass``, its Auto Mode NodeClass."""

from __future__ import annotations

from typing import Any

from ...sdk.identity import ClusterIdentity
from .._shared.custom_resource import custom_resource
from . import BACKEND
from .config import EksAutoPool


def wire(component: Any, name: str, pool: EksAutoPool, cluster: ClusterIdentity) -> None:
    """Register ``<name>-nodeclass`` (when created) and ``<name>-nodepool`` as CustomResources under ``component``."""
    from . import render

    depends_on: list[Any] = []
    if pool.node_class is not None:
        component.auto_nodeclass = custom_resource(
            BACKEND.child_name("nodeclass", name), render.nodeclass_manifest(pool, cluster), component
        )
        depends_on.append(component.auto_nodeclass)
    nodepool = render.nodepool_manifest(pool, cluster)
    component.nodepool = custom_resource(BACKEND.child_name("nodepool", name), nodepool, component, depends_on)
    component.nodepool_name = nodepool["metadata"]["name"]
    component.exports["autoModeNodePool"] = component.nodepool_name
    component.exports["autoModeNodeClass"] = pool.node_class_name
