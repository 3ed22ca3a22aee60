"""Spot capacity of self-managed Auto Scaling groups: ``spot`` and ``capacityRebalance``.

``spot: {onDemandBaseCapacity: 0, onDemandPercentageAboveBaseCapacity: 0, allocationStrategy:
price-capacity-optimized}`` renders the group's ``mixed_instances_policy.instances_distribution``
(EC2 Auto Scaling API ``InstancesDistribution``,
https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_InstancesDistribution.html: the
on-demand base and percentage above it, ``SpotAllocationStrategy`` one of ``lowest-price``,
``capacity-optimized``, ``capacity-optimized-prioritized``, ``price-capacity-optimized``; the last is
what the EC2 Auto Scaling user guide recommends, allocation-strategies.html). ``capacityRebalance``
(``Group.capacity_rebalance``, default true with ``spot``) launches a replacement when EC2 signals a
rebalance recommendation (capacity-rebalance.html). Self-managed nodes are not drained on a Spot
interruption unless something in the cluster does it: aws/aws-node-termination-handler, or EKS's
node monitoring agent does not (the plan warns).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ...config.common import Model
from ...k8s.integers import INT32_MAX

__all__ = ["SpotConfig", "instances_distribution", "warnings"]

NTH_SOURCE = "https://github.com/aws/aws-node-termination-handler"


class SpotConfig(Model):
    """``spot``: Spot capacity in the group's mixed instances policy."""

    yaml_example = "{onDemandPercentageAboveBaseCapacity: 0, allocationStrategy: price-capacity-optimized}"

    on_demand_base_capacity: int = Field(
        0, ge=0, le=INT32_MAX,
        description="On-Demand instances before any Spot (default 0; an int32 in EC2 Auto Scaling's InstancesDistribution).",
    )
    on_demand_percentage_above_base_capacity: int = Field(
        0, ge=0, le=100, description="Percent On-Demand above the base (0: all Spot, 100: no Spot)."
    )
    allocation_strategy: Literal[
        "price-capacity-optimized", "capacity-optimized", "capacity-optimized-prioritized", "lowest-price"
    ] = Field("price-capacity-optimized", description="How EC2 picks Spot pools (EC2 Auto Scaling InstancesDistribution).")


def instances_distribution(pool: Any) -> dict[str, Any]:
    """``mixed_instances_policy.instances_distribution`` for the pool: all On-Demand without ``spot``."""
    spot = getattr(pool, "spot", None)
    if spot is None:
        return {"on_demand_percentage_above_base_capacity": 100}
    return {
        "on_demand_base_capacity": spot.on_demand_base_capacity,
        "on_demand_percentage_above_base_capacity": spot.on_demand_percentage_above_base_capacity,
        "spot_allocation_strategy": spot.allocation_strategy,
    }


def capacity_rebalance(pool: Any) -> bool | None:
    """``Group.capacity_rebalance``: the pool's ``capacityRebalance``, default true with ``spot``, else unset."""
    if pool.capacity_rebalance is not None:
        return pool.capacity_rebalance
    return True if getattr(pool, "spot", None) is not None else None


def warnings(pool: Any) -> list[tuple[str, str]]:
    """``[(sub-path, message)]``: Spot nodes of a self-managed group are not drained by anything the product installs."""
    if getattr(pool, "spot", None) is None or pool.spot.on_demand_percentage_above_base_capacity == 100:
        return []
    return [("spot", (
        "Spot nodes of a self-managed group get a two-minute interruption notice and nothing drains them unless a "
        f"handler runs in the cluster ({NTH_SOURCE}: aws-node-termination-handler in queue mode, with the group's "
        "lifecycle hook); without it GPU pods are killed mid-run"))]
