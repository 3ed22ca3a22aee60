"""Provider limits checked before the cloud: id shapes, tag counts, EKS quotas and the EKS version calendar.

Hard caps (an API refuses the value whatever the account) are errors raised by the models that use
the helpers here. Values an account can get past (a service-quota increase, extended support) are
warnings (:mod:`.warnings`), each with an override key in the stack's ``limits`` block
(:class:`LimitsConfig`): set your account's applied quota and the warning goes away.

Sources, checked 2026-12-01:

* EC2 resource ids: ``<prefix>-`` and 8 or 17 lower-case hex digits (EC2 User Guide, "Resource IDs":
  https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/resource-ids.html).
* 50 tags per Auto Scaling group (EC2 Auto Scaling User Guide, "Tag Auto Scaling groups and instances":
  https://docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-tagging.html).
* EKS service quotas "Managed node groups per cluster" 30 and "Nodes per managed node group" 450, both
  adjustable (https://docs.aws.amazon.com/eks/latest/userguide/service-quotas.html).
* EKS version calendar: 14 months of standard then 12 of extended support
  (https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html; dates as listed by
  https://endoflife.date/amazon-eks, read 2026-12-01).
"""

from __future__ import annotations

import datetime
import re

from pydantic import Field

from .common import Model

# --- ids --------------------------------------------------------------------------------

_ID_SOURCE = "EC2 resource ids are <prefix>- and 8 or 17 hex digits (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/resource-ids.html)"
_ID_KINDS = {
    "subnet": ("subnet", "subnet-0a1b2c3d4e5f60718", "aws ec2 describe-subnets"),
    "sg": ("security group", "sg-0123456789abcdef0", "aws eks describe-cluster --query cluster.resourcesVpcConfig.clusterSecurityGroupId"),
    "cr": ("capacity reservation", "cr-0123456789abcdef0", "aws ec2 describe-capacity-reservations"),
}


def aws_id_problem(prefix: str, ids: list[str] | None) -> str | None:
    """Why ``ids`` are not EC2 ids of ``prefix`` (``subnet``, ``sg``, ``cr``): ``<prefix>-[0-9a-f]{8,17}``; None if all are."""
    bad = [i for i in ids or [] if not re.fullmatch(rf"{prefix}-[0-9a-f]{{8,17}}", i)]
    if not bad:
        return None
    what, example, how = _ID_KINDS[prefix]
    return f"{bad} are not {what} ids, e.g. {example} ({_ID_SOURCE}); list them with `{how}`"


# --- Auto Scaling group tags -----------------------------------------------------------

ASG_MAX_TAGS = 50
ASG_TAGS_SOURCE = "https://docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-tagging.html"
#: Tags EKS puts on the Auto Scaling group of a managed node group: eks:cluster-name, eks:nodegroup-name
#: (kubernetes/autoscaler cloudprovider/aws README; facts/aws-eks-karpenter.md "EKS MNG at zero") and the
#: two Cluster Autoscaler auto-discovery tags (EKS user guide managed-node-groups: "automatically tagged for
#: auto-discovery by the Kubernetes Cluster Autoscaler"). EKS does not copy the node group's own tags there.
EKS_ASG_OWN_TAGS = 4


def asg_tag_count_problem(count: int, detail: str, fix: str = "remove labels or tags, or keep minSize >= 1") -> str | None:
    """The error for an Auto Scaling group that would carry ``count`` tags (``detail`` says which; ``fix`` ends it), or None."""
    if count <= ASG_MAX_TAGS:
        return None
    return (
        f"the Auto Scaling group would carry {count} tags ({detail}); AWS allows {ASG_MAX_TAGS} per group "
        f"({ASG_TAGS_SOURCE}): Cluster Autoscaler needs one node-template tag per label and taint to scale from "
        f"zero: {fix}"
    )


# --- EKS quotas and versions (warnings; overrides in LimitsConfig) -----------------------

EKS_QUOTAS_SOURCE = "EKS service quotas, https://docs.aws.amazon.com/eks/latest/userguide/service-quotas.html, checked 2026-12-01"
EKS_DEFAULT_NODES_PER_NODE_GROUP = 450
EKS_DEFAULT_NODE_GROUPS_PER_CLUSTER = 30
EKS_CALENDAR_SOURCE = (
    "EKS Kubernetes version calendar, https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html "
    "(dates from https://endoflife.date/amazon-eks, read 2026-12-01)"
)
#: minor -> (end of standard support, end of extended support).
EKS_VERSION_CALENDAR: dict[tuple[int, int], tuple[datetime.date, datetime.date]] = {
    (1, 28): (datetime.date(2024, 11, 26), datetime.date(2025, 11, 26)),
    (1, 29): (datetime.date(2025, 3, 23), datetime.date(2026, 3, 23)),
    (1, 30): (datetime.date(2025, 7, 23), datetime.date(2026, 7, 23)),
    (1, 31): (datetime.date(2025, 11, 26), datetime.date(2026, 11, 26)),
    (1, 32): (datetime.date(2026, 3, 23), datetime.date(2027, 3, 23)),
    (1, 33): (datetime.date(2026, 7, 29), datetime.date(2027, 7, 29)),
    (1, 34): (datetime.date(2026, 12, 2), datetime.date(2027, 12, 2)),
    (1, 35): (datetime.date(2027, 3, 27), datetime.date(2028, 3, 27)),
}


def eks_version_warning(version: str, today: datetime.date | None = None) -> str | None:
    """Why EKS would refuse ``version`` (``"1.33"``) on ``today``: past the end of extended support, or
    newer than the calendar; None while it is in standard or extended support."""
    today = today or datetime.date.today()
    major, minor = (int(p) for p in version.split(".")[:2])
    known = sorted(EKS_VERSION_CALENDAR)
    fix = "set limits.allowUnsupportedKubernetesVersion: true if your account can still use it"
    if (major, minor) in EKS_VERSION_CALENDAR:
        _, extended = EKS_VERSION_CALENDAR[(major, minor)]
        if today <= extended:
            return None
        return (f"{version!r}: EKS extended support ended {extended.isoformat()}; EKS refuses new clusters and node "
                f"groups of it ({EKS_CALENDAR_SOURCE}); upgrade, or {fix}")
    if (major, minor) < known[0]:
        return (f"{version!r} is older than {known[0][0]}.{known[0][1]}, whose extended support ended "
                f"{EKS_VERSION_CALENDAR[known[0]][1].isoformat()}; EKS refuses it ({EKS_CALENDAR_SOURCE}); upgrade, or {fix}")
    newest = f"{known[-1][0]}.{known[-1][1]}"
    return (f"{version!r} is newer than {newest}, the newest EKS version this package knows ({EKS_CALENDAR_SOURCE}); "
            f"EKS refuses versions it has not released: check `aws eks describe-cluster-versions`, or {fix}")


class LimitsConfig(Model):
    """``gpu-node-pools:limits``: your account's applied quotas, which silence the quota warnings.

    Defaults are the AWS defaults (:data:`EKS_QUOTAS_SOURCE`). Hard caps (taints, labels, tags per
    group, id shapes) have no override: the APIs refuse them whatever the account.
    """

    eks_nodes_per_node_group: int = Field(
        EKS_DEFAULT_NODES_PER_NODE_GROUP, ge=1,
        description="EKS quota 'Nodes per managed node group' of your account (default 450).",
    )
    eks_node_groups_per_cluster: int = Field(
        EKS_DEFAULT_NODE_GROUPS_PER_CLUSTER, ge=1,
        description="EKS quota 'Managed node groups per cluster' of your account (default 30).",
    )
    allow_unsupported_kubernetes_version: bool = Field(
        False, description="Do not warn about a cluster.kubernetesVersion outside EKS standard and extended support."
    )
