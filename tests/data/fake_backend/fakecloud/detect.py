from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_node_pool.backends._shared.gpu_pool import GpuPool
from gpu_node_pool.k8s.taints import Taint
from gpu_node_pool.sdk.props import dig, items

from . import BACKEND


def detect(resource_type: str, props: Mapping[str, Any], name: str, urn: str, context: Mapping[str, Any]) -> GpuPool:
    return GpuPool(
        backend=BACKEND.name,
        resource_type=resource_type,
        name=name,
        urn=urn,
        taints=[Taint.parse(t) for t in items(dig(props, "taints"))],
        labels=dict(dig(props, "labels") or {}),
        where="the fake pool's taints",
        ships_own_device_plugin=True,  # as FakePool.uses_nvidia_device_plugin says
    )
