from __future__ import annotations

from typing import Any

import pulumi

from . import BACKEND


def wire(component: Any, name: str, pool: Any, cluster: Any) -> None:
    pulumi.CustomResource(
        BACKEND.child_type("pool"),
        BACKEND.child_name("pool", name),
        {"flavor": pool.flavor, "machines": pool.machines, "taints": [str(t) for t in pool.taint_list],
         "labels": pool.node_labels},
        opts=pulumi.ResourceOptions(parent=component),
    )
