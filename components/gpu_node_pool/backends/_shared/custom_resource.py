"""Registering a rendered Kubernetes object (NodePool, EC2NodeClass, NodeClass) as a
``kubernetes.apiextensions.CustomResource`` child of a GpuNodePool: shared by karpenter and eks_auto."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi

from ...sdk.provider_sdk import provider_sdk


def custom_resource(name: str, manifest: Mapping[str, Any], parent: Any, depends_on: Sequence[Any] = ()) -> Any:
    """``CustomResource(name, apiVersion, kind, metadata, spec)`` of ``manifest`` with ``parent`` (and ``depends_on``)."""
    k8s = provider_sdk("pulumi_kubernetes", "a Karpenter or EKS Auto Mode NodePool (a Kubernetes custom resource)")

    return k8s.apiextensions.CustomResource(
        name,
        api_version=manifest["apiVersion"],
        kind=manifest["kind"],
        metadata=manifest["metadata"],
        spec=manifest["spec"],
        opts=pulumi.ResourceOptions(parent=parent, depends_on=list(depends_on)),
    )
