"""``eks-managed``: an EKS managed node group (``aws.eks.NodeGroup``) per pool.

Files: ``config.py`` (pool model, stack rules), ``render.py`` (NodeGroup inputs), ``read.py``
(taints back from NodeGroup inputs), ``resources.py`` (Pulumi wiring), ``summary.py`` (plan
entry and text), ``detect.py`` (recognise GPU node groups for the policies), ``capacity.py``
(capacity rules), ``launch_template.py`` (the component's launch template), ``kubelet.py`` (kubelet
settings and the user's own launch template), ``bottlerocket.py`` (Bottlerocket TOML settings and MIG),
``pass_through.py`` (taints and labels of kubelet and Bottlerocket settings merged with the pool's), ``release.py``
(``releaseVersion``: its form per AMI family, its Kubernetes minor against the cluster's, and the Bottlerocket
release it pins). Cluster Autoscaler
tags are shared with ``self_managed`` in ``backends/_shared/cluster_autoscaler.py``.

Cluster Autoscaler builds the template node of an empty managed node group from its Auto Scaling group's
node-template tags and also from what ``eks:DescribeNodegroup`` returns, when its IAM role may call it
(kubernetes/autoscaler ``cluster-autoscaler/cloudprovider/aws/README.md``, "eks:DescribeNodegroup" permission):
the node group's labels (since cluster-autoscaler-1.24.0, the managed node group cache) and its taints that have a
value (``aws_wrapper.go`` ``getManagedNodegroupInfo`` skips a taint without one), in the Kubernetes effect spelling
only since cluster-autoscaler-1.31.0 (kubernetes/autoscaler#6482; before it a taint kept EKS's ``NO_SCHEDULE``,
which the scheduler ignores: kubernetes/autoscaler#6481). :data:`DESCRIBE_NODEGROUP` tells the registry.
"""

from __future__ import annotations

from ...k8s.wellknown import AUTOSCALING_TAG, EKS_NODE_GROUP, LAUNCH_TEMPLATE
from ...registry import AutoscalerGroupApi, Backend, PoolNameLimit, register
from .._shared.cloud_names import AUTONAME_SUFFIX
from .._shared.efa_names import CHILDREN as EFA_CHILDREN
from .names import NODE_GROUP_NAME

#: How Cluster Autoscaler reads a managed node group's labels and valued taints (the module docstring).
DESCRIBE_NODEGROUP = AutoscalerGroupApi(
    action="eks:DescribeNodegroup",
    since="1.31.0",
    why=(
        "Cluster Autoscaler reads an EKS managed node group's labels (since cluster-autoscaler-1.24.0) and its taints "
        "that have a value (correctly since cluster-autoscaler-1.31.0: kubernetes/autoscaler#6482) through "
        "eks:DescribeNodegroup when its IAM role may call it (kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/"
        "README.md; aws_wrapper.go getManagedNodegroupInfo)"
    ),
    tag_target=(
        "EKS creates it, so it is not in the program, and the node group's own tags do not reach it (Amazon EKS API "
        "reference, Nodegroup, tags: 'Node group tags do not propagate to any other resources associated with the node "
        "group', https://docs.aws.amazon.com/eks/latest/APIReference/API_Nodegroup.html); register one "
        "aws.autoscaling.Tag per tag with autoscalingGroupName set to the node group's "
        "resources[0].autoscalingGroups[0].name output (Python: node_group.resources[0].autoscaling_groups[0].name) and "
        "tag {key, value, propagateAtLaunch: false}, as GpuNodePool does for its eks-managed pools (Pulumi registry, "
        "aws.autoscaling.Tag: for Auto Scaling groups created outside the provider, such as an EKS node group's, "
        "https://www.pulumi.com/registry/packages/aws/api-docs/autoscaling/tag/)"
    ),
)

#: The node group's resource name: Pulumi autonames the ``aws.eks.NodeGroup`` from it.
_NODE_GROUP_CHILD = "{pool}-node-group"
_NODE_GROUP_ROOM = NODE_GROUP_NAME.longest - len(_NODE_GROUP_CHILD.format(pool="")) - AUTONAME_SUFFIX
#: The stack program names a pool's GpuNodePool after the pool, so the node group's name is derived from it.
POOL_NAME = PoolNameLimit(_NODE_GROUP_ROOM, (
    "Pulumi names its node group '<name>-node-group-' + 7 random characters, and an EKS node "
    f"group name is at most {NODE_GROUP_NAME.longest} characters (pulumi-aws aws.eks.NodeGroup nodeGroupName)"))

BACKEND = register(
    Backend(
        name="eks-managed",
        package=__name__,
        config_model="config:EksManagedPool",
        stack_checks="config:stack_issues",
        stack_warnings="config:stack_warnings",
        platform="eks",
        autoscaler_tags=True,
        autoscaler_group_api=DESCRIBE_NODEGROUP,
        wire="resources:wire",
        resource_name="names:resource_name_problem",
        summarise="summary:summarise",
        report="summary:report",
        detect="detect:detect",
        node_labels="labels:node_labels",
        bottlerocket_release="release:bottlerocket_release",
        pool_name=POOL_NAME,
        detects=(EKS_NODE_GROUP,),
        children={
            "node_group": (EKS_NODE_GROUP, _NODE_GROUP_CHILD),
            # reserved capacity, EFA, kubelet or Bottlerocket settings: the template the node group launches from
            "launch_template": (LAUNCH_TEMPLATE, "{pool}-launch-template"),
            # one per Cluster Autoscaler node-template tag: "<pool>-ca-<tag key>"
            "ca_tag": (AUTOSCALING_TAG, "{pool}-ca-"),
            # EFA: cluster placement group and the self-referencing rules
            **EFA_CHILDREN,
        },
    )
)
