"""``self-managed``: nodes whose kubelet registers the pool's taints itself.

Files: ``config.py`` (pool model, formats, stack rules), ``bootstrap.py`` (one renderer per
bootstrap format and the format table), ``render.py`` (launch template / Auto Scaling group
inputs and tags), ``read.py`` (the bootstrap read back: format, registration, plan entry),
``resources.py`` (Pulumi wiring), ``summary.py`` (plan entry and text), ``detect.py`` (recognise
GPU launch templates for the policies), ``spot.py`` (Spot capacity of the group). Bootstrap files reach
``gpupool render`` as the pool's ``bootstrap`` stack output. The user-data readers are shared in
``backends/_shared/user_data.py``.
"""

from __future__ import annotations

from ...k8s.wellknown import AUTOSCALING_GROUP, IAM_INSTANCE_PROFILE, LAUNCH_TEMPLATE
from ...registry import Backend, register
from .._shared.efa_names import CHILDREN as EFA_CHILDREN

BACKEND = register(
    Backend(
        name="self-managed",
        package=__name__,
        config_model="config:SelfManagedPool",
        stack_checks="config:stack_issues",
        autoscaler_tags=True,  # platform per pool: SelfManagedPool.cluster_platform
        wire="resources:wire",
        resource_name="names:resource_name_problem",
        summarise="summary:summarise",
        report="summary:report",
        detect="detect:detect",
        node_labels="labels:node_labels",
        # no bottlerocket_release: format bottlerocket takes the latest release from SSM, and amiId pins an AMI by its
        # ID, which names no Bottlerocket release the config could read
        detects=(LAUNCH_TEMPLATE,),
        children={
            "launch_template": (LAUNCH_TEMPLATE, "{pool}-launch-template"),
            "asg": (AUTOSCALING_GROUP, "{pool}-asg"),
            "instance_profile": (IAM_INSTANCE_PROFILE, "{pool}-instance-profile"),
            **EFA_CHILDREN,  # EFA: placement group, self-referencing rules
        },
    )
)
