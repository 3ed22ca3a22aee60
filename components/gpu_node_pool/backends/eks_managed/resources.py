"""Pulumi resources of an eks-managed pool: the ``aws.eks.NodeGroup`` and, at ``minSize: 0``, the
Cluster Autoscaler node-template tags on the Auto Scaling group EKS creates."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi

from ...sdk.identity import ClusterIdentity
from ...sdk.provider_sdk import provider_sdk
from . import BACKEND
from .config import EksManagedPool


def wire(component: Any, name: str, pool: EksManagedPool, cluster: ClusterIdentity) -> None:
    aws = provider_sdk("pulumi_aws", "the eks-managed backend")

    from ...gpu_agents.capacity import autoscaler_resources
    from .._shared import cluster_autoscaler as ca
    from . import capacity, launch_template
    from . import render as eks

    args = eks.node_group_args(pool, cluster)
    lt_args = launch_template.launch_template_args(pool)
    if lt_args is not None:  # reserved capacity or EFA: the node group launches from this template
        if pool.efa is not None and pool.efa.enabled:  # placement group + self rules (backends._shared.efa)
            from .._shared import efa_resources as _efa

            # network_interfaces (efa.securityGroupIds on each: EKS launch-templates, groups on the interfaces or the instance) and placement.group_name
            lt_args |= _efa.wire(component, name, BACKEND, pool, pool.efa.security_group_ids or [],
                                 cluster.settings.cluster_security_group_id if cluster.settings else None)
        template = aws.ec2.LaunchTemplate(
            BACKEND.child_name("launch_template", name), **lt_args, opts=pulumi.ResourceOptions(parent=component)
        )
        args = launch_template.node_group_overrides(pool, args, template.id, template.latest_version.apply(str))
        component.launch_template = template
    elif pool.launch_template is not None:  # the user's own template, as given (kubelet.UserLaunchTemplate)
        args = launch_template.node_group_overrides(pool, args, pool.launch_template.id, pool.launch_template.version)
    node_group = aws.eks.NodeGroup(
        BACKEND.child_name("node_group", name),
        **args,
        # Cluster Autoscaler owns the desired size once the group exists (as pulumi-eks and
        # terraform-aws-eks do): a refresh must not set a scaled GPU pool back to minSize.
        opts=pulumi.ResourceOptions(parent=component, ignore_changes=["scalingConfig.desiredSize"]),
    )
    component.node_group = node_group
    component.node_group_name = node_group.node_group_name
    component.node_group_arn = node_group.arn
    component.exports.update(nodeGroupName=node_group.node_group_name, nodeGroupArn=node_group.arn)
    if pool.scaling.min_size == 0:
        # GPUs x gpuSharing replicas, or the MIG devices; else the physical count (Cluster Autoscaler node-template/resources tag)
        resources = {k: str(v) for k, v in autoscaler_resources(pool).items()}
        if not resources and pool.mig is None and (gpus := capacity.gpus_per_node(pool)):  # MIG: never whole GPUs
            resources = {ca.GPU_RESOURCE: str(gpus)}
        component.asg_tags = ca.ca_node_template_tags(pool.taint_list, pool.node_labels, resources or None)
        # The tags are registered here, at construction, with the ASG name as an Output input;
        # never inside an apply (invisible to a preview and to the policy pack).
        asg_name = node_group.resources.apply(_first_asg_name)
        for key, value in component.asg_tags.items():
            aws.autoscaling.Tag(
                BACKEND.child_name("ca_tag", name) + key,
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
