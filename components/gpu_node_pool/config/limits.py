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
* Kubernetes version calendars of EKS and GKE: data with their sources in :mod:`.version_calendars`.
"""

from __future__ import annotations

import datetime

from pydantic import Field

from ..k8s.patterns import full_match
from .common import INT32_MAX, Model
from .version_calendars import EKS, GKE, newer_than_table, parse_minor

# --- ids --------------------------------------------------------------------------------

_ID_SOURCE = "EC2 resource ids are <prefix>- and 8 or 17 hex digits (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/resource-ids.html)"
_ID_KINDS = {
    "subnet": ("subnet", "subnet-0a1b2c3d4e5f60718", "aws ec2 describe-subnets"),
    "sg": ("security group", "sg-0123456789abcdef0", "aws eks describe-cluster --query cluster.resourcesVpcConfig.clusterSecurityGroupId"),
    "cr": ("capacity reservation", "cr-0123456789abcdef0", "aws ec2 describe-capacity-reservations"),
}


def aws_id_problem(prefix: str, ids: list[str] | None) -> str | None:
    """Why ``ids`` are not EC2 ids of ``prefix`` (``subnet``, ``sg``, ``cr``): ``<prefix>-[0-9a-f]{8,17}``; None if all are."""
    bad = [i for i in ids or [] if not full_match(rf"{prefix}-[0-9a-f]{{8,17}}", i)]
    if not bad:
        return None
    what, example, how = _ID_KINDS[prefix]
    return f"{bad} are not {what} ids, e.g. {example} ({_ID_SOURCE}); list them with `{how}`"


# --- Auto Scaling group tags -----------------------------------------------------------

ASG_MAX_TAGS = 50
ASG_TAGS_SOURCE = "https://docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-tagging.html"
#: Tags EKS puts on the Auto Scaling group of a managed node group: eks:cluster-name, eks:nodegroup-name
#: (kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/README.md, "don't add the eks:nodegroup-name tag") and the
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
EKS_CALENDAR_SOURCE = f"EKS Kubernetes version calendar, {EKS.source} (rows as of {EKS.as_of.isoformat()})"
#: minor -> (end of standard support, end of extended support), from :data:`.version_calendars.EKS`.
EKS_VERSION_CALENDAR: dict[tuple[int, int], tuple[datetime.date | None, datetime.date | None]] = {
    minor: (entry.end_standard, entry.end_extended) for minor, entry in EKS.entries.items()
}
_VERSION_FIX = "set limits.allowUnsupportedKubernetesVersion: true if your account can still use it"


def eks_version_warning(version: str, today: datetime.date | None = None) -> str | None:
    """Why EKS would refuse ``version`` (``"1.33"``) on ``today``: past the end of extended support,
    older than the calendar, or newer than it (then worded by
    :func:`~.version_calendars.newer_than_table`: refused before the table is due a new row, the
    table is old after); None while it is in standard or extended support."""
    today = today or datetime.date.today()
    minor = parse_minor(version)
    if minor is None:
        return None
    fix = _VERSION_FIX
    if minor in EKS.entries:
        extended = EKS.entries[minor].end_extended
        if extended is None or today <= extended:
            return None
        return (f"{version!r}: EKS extended support ended {extended.isoformat()}; EKS refuses new clusters and node "
                f"groups of it ({EKS_CALENDAR_SOURCE}; row: {EKS.entries[minor].source}); upgrade, or {fix}")
    oldest = EKS.oldest
    if minor < oldest:
        return (f"{version!r} is older than {oldest[0]}.{oldest[1]}, whose extended support ended "
                f"{EKS.entries[oldest].end_extended}; EKS refuses it ({EKS_CALENDAR_SOURCE}); upgrade, or {fix}")
    return newer_than_table(EKS, version, today, f"check `aws eks describe-cluster-versions`, or {fix}")


def gke_version_warning(version: str, today: datetime.date | None = None) -> str | None:
    """A warning for ``version`` newer than every minor of :data:`.version_calendars.GKE` (GKE end dates
    are not in the stored sources, so nothing else is judged); None otherwise."""
    today = today or datetime.date.today()
    return newer_than_table(GKE, version, today, f"check `gcloud container get-server-config`, or {_VERSION_FIX}")


class LimitsConfig(Model):
    """``gpu-node-pools:limits``: your account's applied quotas, which silence the quota warnings.

    Defaults are the AWS defaults (:data:`EKS_QUOTAS_SOURCE`). Hard caps (taints, labels, tags per
    group, id shapes) have no override: the APIs refuse them whatever the account.
    """

    eks_nodes_per_node_group: int = Field(
        EKS_DEFAULT_NODES_PER_NODE_GROUP, ge=1, le=INT32_MAX,
        description="EKS quota 'Nodes per managed node group' of your account (default 450; compared with maxSize, "
        "an int32 in the EKS and Auto Scaling APIs).",
    )
    eks_node_groups_per_cluster: int = Field(
        EKS_DEFAULT_NODE_GROUPS_PER_CLUSTER, ge=1, le=INT32_MAX,
        description="EKS quota 'Managed node groups per cluster' of your account (default 30; an int32 here, as "
        "the EKS and Auto Scaling APIs' counts).",
    )
    allow_unsupported_kubernetes_version: bool = Field(
        False, description="Do not warn about a cluster.kubernetesVersion outside EKS standard and extended support, "
        "or newer than the package's EKS/GKE version calendars."
    )
