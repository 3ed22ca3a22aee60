"""Pulumi resources of a karpenter pool: the ``karpenter.sh/v1`` NodePool and, with ``nodeClass``, its EC2NodeClass."""

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
