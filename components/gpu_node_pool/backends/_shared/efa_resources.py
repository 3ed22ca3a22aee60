"""Pulumi wiring of EFA pools: the cluster placement group and the self-referencing
security group rules; the rules and values are in :mod:`gpu_node_pool.backends._shared.efa` (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...sdk.provider_sdk import provider_sdk
from .efa import PLACEMENT_STRATEGY, launch_template_args, self_rule_args, self_rules_to_add

__all__ = ["wire"]


def wire(
    component: Any, name: str, backend: Any, pool: Any, security_groups: Sequence[Any],
    cluster_security_group_id: str | None = None,
) -> dict[str, Any]:
    """Register the cluster placement group and (``addSelfRules``) the self-referencing rules the
    group lacks (:func:`self_rules_to_add`) under ``component``; return the launch template's EFA
    arguments (:func:`launch_template_args`)."""
    import pulumi
    aws = provider_sdk("pulumi_aws", "an EFA pool's placement group and security group rules")

    opts = pulumi.ResourceOptions(parent=component)
    group = aws.ec2.PlacementGroup(
        backend.child_name("placement_group", name),
        strategy=PLACEMENT_STRATEGY,
        tags={"gpu-node-pools/pool": pool.name},
        opts=opts,
    )
    component.placement_group = group
    rules = self_rules_to_add(pool, cluster_security_group_id)
    if rules:
        ingress, egress = self_rule_args(security_groups[0], pool.name)
        if "ingress" in rules:
            aws.vpc.SecurityGroupIngressRule(backend.child_name("efa_ingress", name), **ingress, opts=opts)
        aws.vpc.SecurityGroupEgressRule(backend.child_name("efa_egress", name), **egress, opts=opts)
    component.exports["placementGroupName"] = group.name
    return launch_template_args(pool.instance_types, security_groups, group.name)
