"""Pulumi resources of an eks-managed pool: the ``aws.eks.NodeGroup`` and, at ``minSize: 0``, the
Cluster Autoscaler node-template tags on the Auto Scaling group EKS creates."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi

from ...config import ClusterConfig
from .config import EksManagedPool


def wire(component: Any, name: str, pool: EksManagedPool, cluster: ClusterConfig) -> None:
    import pulumi_aws as aws

    from .. import _cluster_autoscaler as ca
    from . import render as eks

    node_group = aws.eks.NodeGroup(
        f"{name}-node-group",
        **eks.node_group_args(pool, cluster),
        opts=pulumi.ResourceOptions(parent=component),
    )
    component.node_group = node_group
    component.node_group_name = node_group.node_group_name
    component.node_group_arn = node_group.arn
    component.exports.update(nodeGroupName=node_group.node_group_name, nodeGroupArn=node_group.arn)
    if pool.scaling.min_size == 0:
        component.asg_tags = ca.ca_node_template_tags(pool.taint_list, pool.node_labels)
        # The tags are registered here, at construction, with the ASG name as an Output input;
        # never inside an apply (invisible to a preview and to the policy pack).
        asg_name = node_group.resources.apply(_first_asg_name)
        for key, value in component.asg_tags.items():
            aws.autoscaling.Tag(
                f"{name}-ca-{key}",
                autoscaling_group_name=asg_name,
                tag={"key": key, "value": value, "propagate_at_launch": False},
                opts=pulumi.ResourceOptions(parent=component, depends_on=[node_group]),
            )


def _first_asg_name(resources: Any) -> Any:
    """The name of the Auto Scaling group EKS created for the node group, or an unknown value.

    ``NodeGroup.resources`` = ``[{autoscaling_groups: [{name}], remote_access_security_group_id}]``.
    Under a preview of a new group, or mocks that return the inputs as outputs (Pulumi's testing
    guide), there is no name yet: the tag's input is then unknown, as in a real preview, instead
    of an exception that would fail the whole program.
    """
    from pulumi.output import UNKNOWN

    for res in resources or []:
        groups = res.get("autoscaling_groups") if isinstance(res, Mapping) else getattr(res, "autoscaling_groups", None)
        for group in groups or []:
            name = group.get("name") if isinstance(group, Mapping) else getattr(group, "name", None)
            if name:
                return name
    return UNKNOWN
