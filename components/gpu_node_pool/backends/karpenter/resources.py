"""Pulumi resources of a karpenter pool: the ``karpenter.sh/v1`` NodePool and, with ``nodeClass``, its EC2NodeClass."""

from __future__ import annotations

from typing import Any

import pulumi

from ...config import ClusterConfig
from . import BACKEND
from .config import KarpenterPool


def wire(component: Any, name: str, pool: KarpenterPool, cluster: ClusterConfig) -> None:
    import pulumi_kubernetes as k8s

    from . import render as karpenter

    depends_on: list[pulumi.Resource] = []
    if pool.node_class is not None:
        node_class = karpenter.ec2nodeclass_manifest(pool, cluster)
        component.ec2nodeclass = k8s.apiextensions.CustomResource(
            BACKEND.child_name("ec2nodeclass", name),
            api_version=node_class["apiVersion"],
            kind=node_class["kind"],
            metadata=node_class["metadata"],
            spec=node_class["spec"],
            opts=pulumi.ResourceOptions(parent=component),
        )
        depends_on.append(component.ec2nodeclass)
    nodepool = karpenter.nodepool_manifest(pool, cluster)
    component.nodepool = k8s.apiextensions.CustomResource(
        BACKEND.child_name("nodepool", name),
        api_version=nodepool["apiVersion"],
        kind=nodepool["kind"],
        metadata=nodepool["metadata"],
        spec=nodepool["spec"],
        opts=pulumi.ResourceOptions(parent=component, depends_on=depends_on),
    )
    component.nodepool_name = nodepool["metadata"]["name"]
    component.exports["karpenterNodePool"] = component.nodepool_name
