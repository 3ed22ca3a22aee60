"""Pulumi resources of an eks-auto pool: the NodePool and, with ``nodeClass``, its Auto Mode NodeClass."""

from __future__ import annotations

from typing import Any

import pulumi

from ...config import ClusterConfig
from . import BACKEND
from .config import AutoModePool


def wire(component: Any, name: str, pool: AutoModePool, cluster: ClusterConfig) -> None:
    """Register ``<name>-nodeclass`` (when created) and ``<name>-nodepool`` as CustomResources under ``component``."""
    import pulumi_kubernetes as k8s

    from . import render

    depends_on: list[pulumi.Resource] = []
    if pool.node_class is not None:
        node_class = render.nodeclass_manifest(pool, cluster)
        component.auto_nodeclass = k8s.apiextensions.CustomResource(
            BACKEND.child_name("nodeclass", name),
            api_version=node_class["apiVersion"],
            kind=node_class["kind"],
            metadata=node_class["metadata"],
            spec=node_class["spec"],
            opts=pulumi.ResourceOptions(parent=component),
        )
        depends_on.append(component.auto_nodeclass)
    nodepool = render.nodepool_manifest(pool, cluster)
    component.nodepool = k8s.apiextensions.CustomResource(
        BACKEND.child_name("nodepool", name),
        api_version=nodepool["apiVersion"],
        kind=nodepool["kind"],
        metadata=nodepool["metadata"],
        spec=nodepool["spec"],
        opts=pulumi.ResourceOptions(parent=component, depends_on=depends_on),
    )
    component.nodepool_name = nodepool["metadata"]["name"]
    component.exports["autoModeNodePool"] = component.nodepool_name
    component.exports["autoModeNodeClass"] = pool.node_class_name
