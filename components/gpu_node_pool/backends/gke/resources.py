"""Pulumi resources of a gke pool: the ``gcp.container.NodePool``."""

from __future__ import annotations

from typing import Any

import pulumi

from ...sdk.identity import ClusterIdentity
from ...sdk.provider_sdk import provider_sdk
from . import BACKEND
from .config import GkePool


def wire(component: Any, name: str, pool: GkePool, cluster: ClusterIdentity) -> None:
    gcp = provider_sdk("pulumi_gcp", "the gke backend")

    from . import render as gke

    node_pool = gcp.container.NodePool(
        BACKEND.child_name("node_pool", name),
        **gke.node_pool_args(pool, cluster),
        opts=pulumi.ResourceOptions(parent=component),
    )
    component.node_pool = node_pool
    component.node_pool_name = node_pool.name
    component.exports["nodePoolName"] = node_pool.name
