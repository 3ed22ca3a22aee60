"""One GPU pool of each backend that writes a Karpenter NodePool (karpenter, eks-auto), and their cluster, for the
tests of what the two backends judge alike."""

from __future__ import annotations

from typing import Any

CLUSTER = {"name": "ml-prod", "nodeRoleArn": "arn:aws:iam::444455556666:role/ml-prod-gpu-node",
           "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}
#: backend -> its pool, without ``limits`` (a test adds the limits it judges).
POOLS: dict[str, dict[str, Any]] = {
    "karpenter": {"name": "burst", "backend": "karpenter", "instanceFamilies": ["g6e"], "nodeClass": {},
                  "taints": ["nvidia.com/gpu=present:NoSchedule"]},
    "eks-auto": {"name": "burst", "backend": "eks-auto", "instanceFamilies": ["g6e"],
                 "taints": ["nvidia.com/gpu=present:NoSchedule"]},
}
BACKENDS = sorted(POOLS)
#: Each pool with a plain GPU limit, as a pool that is not about its limits has.
LIMITED = {backend: {**pool, "limits": {"nvidia.com/gpu": 16}} for backend, pool in POOLS.items()}
