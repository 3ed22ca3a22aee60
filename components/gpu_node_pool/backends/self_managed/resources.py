"""Pulumi resources of a self-managed pool: with ``provider: aws`` the launch template, Auto Scaling
group and instance profile; with ``provider: none`` only the rendered bootstrap (outputs)."""

from __future__ import annotations

from typing import Any

import pulumi

from ...sdk import cluster_inputs
from ...sdk.identity import ClusterIdentity
from ...sdk.provider_sdk import provider_sdk
from . import BACKEND
from .config import SelfManagedPool


def wire(component: Any, name: str, pool: SelfManagedPool, cluster: ClusterIdentity) -> None:
    from . import render as kubelet

    component.bootstrap_format = pool.format
    # Plain identity: the files as before. Identity Outputs (endpoint, CA...): Output.all(...).apply
    # of the pure renderer, so the user data follows the data; nothing is registered inside apply.
    component.bootstrap = cluster_inputs.resolved(cluster, lambda c: kubelet.bootstrap_files(pool, c))
    component.exports["bootstrapFormat"] = pool.format
    if pool.provider == "none":
        component.exports["bootstrap"] = component.bootstrap
        return  # bare metal: the rendered bootstrap is the whole product (stack outputs)

    aws = provider_sdk("pulumi_aws", "the self-managed backend (EC2 launch template and Auto Scaling group)")

    opts = pulumi.ResourceOptions(parent=component)
    image_id: Any = pool.ami_id
    if image_id is None:
        parameter = kubelet.ami_ssm_parameter(pool.format, cluster.kubernetes_version or "", pool.arch)
        image_id = aws.ssm.get_parameter_output(
            name=parameter, opts=pulumi.InvokeOutputOptions(parent=component)
        ).value
    profile_arn: Any = pool.instance_profile_arn
    if profile_arn is None:
        profile = aws.iam.InstanceProfile(
            BACKEND.child_name("instance_profile", name),
            role=cluster_inputs.lift(cluster.node_role_arn or "", kubelet.role_name_from_arn),
            opts=opts,
        )
        profile_arn = profile.arn
    efa_args: dict[str, Any] = {}
    if pool.efa is not None and pool.efa.enabled:  # placement group + self rules (backends._shared.efa)
        from .._shared import efa_resources as _efa

        efa_args = _efa.wire(component, name, BACKEND, pool, pool.efa_security_groups,
                             cluster.settings.cluster_security_group_id if cluster.settings else None)
    template = aws.ec2.LaunchTemplate(
        BACKEND.child_name("launch_template", name),
        **kubelet.launch_template_args(
            pool, cluster, image_id=image_id, instance_profile_arn=profile_arn, files=component.bootstrap,
            placement_group_name=efa_args["placement"]["group_name"] if efa_args else None,
        ),
        opts=opts,
    )
    group = aws.autoscaling.Group(
        BACKEND.child_name("asg", name),
        **kubelet.autoscaling_group_args(
            pool,
            cluster,
            launch_template_id=template.id,
            launch_template_version=template.latest_version.apply(str),
        ),
        # Cluster Autoscaler owns the desired size once the group exists.
        opts=pulumi.ResourceOptions(parent=component, ignore_changes=["desiredCapacity"]),
    )
    component.launch_template = template
    component.autoscaling_group = group
    component.launch_template_id = template.id
    component.autoscaling_group_name = group.name
    component.asg_tags = kubelet.ca_tags(pool, cluster)
    component.exports.update(launchTemplateId=template.id, autoScalingGroupName=group.name)
