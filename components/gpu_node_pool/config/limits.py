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

from ..k8s.integers import INT32_MAX
from ..k8s.patterns import full_match
from ..text.listing import listed
from .common import Model
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
    ids_are = f"is not a {what} id" if len(bad) == 1 else f"are not {what} ids"
    return f"{listed(bad, quote=True)} {ids_are}, e.g. {example} ({_ID_SOURCE}); list them with `{how}`"


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


def eks_version_problem(version: str, cluster: str = "<cluster>") -> str | None:
    """Why no EKS cluster runs ``version`` (``"1.20"``): a minor older than every row of the calendar, whose
    extended support ended before the oldest row's did. EKS creates clusters only of the versions it offers in
    standard or extended support and lets no control plane stay on a version past the end of its extended
    support (EKS user guide ``kubernetes-versions.adoc``@01385604, "Understand the Kubernetes version lifecycle"
    and "Amazon EKS extended support FAQs"); None for any other version. ``cluster`` names it in the fix."""
    minor = parse_minor(version)
    oldest = EKS.oldest
    if minor is None or minor >= oldest:
        return None
    return (f"{version!r} is older than {oldest[0]}.{oldest[1]}, the oldest version in this package's EKS calendar, "
            f"whose extended support ended {EKS.entries[oldest].end_extended}: no EKS cluster runs {version}. EKS "
            "creates clusters only of the versions it offers in standard or extended support and does not let a "
            "control plane stay on a version whose extended support ended: it upgrades it (EKS user guide "
            "kubernetes-versions.adoc@01385604: 'You can create new Amazon EKS clusters on any version offered in "
            "standard or extended support'; 'Amazon EKS doesn't allow control planes to stay on a version that "
            f"reached end of extended support'; {EKS.source}); write your cluster's version "
            f"(aws eks describe-cluster --name {cluster} --query cluster.version)")


def eks_version_warning(version: str, today: datetime.date | None = None) -> str | None:
    """A warning for ``version`` (``"1.33"``) on ``today``: a row of the calendar past the end of its extended
    support (EKS creates no new cluster of it and upgrades a control plane still on it at any time, without
    notice), or newer than the calendar (worded by :func:`~.version_calendars.newer_than_table`); None while it is
    in standard or extended support, and for a version older than the calendar, which is an error
    (:func:`eks_version_problem`)."""
    today = today or datetime.date.today()
    minor = parse_minor(version)
    if minor is None or minor < EKS.oldest:
        return None
    fix = _VERSION_FIX
    if minor in EKS.entries:
        extended = EKS.entries[minor].end_extended
        if extended is None or today <= extended:
            return None
        return (f"{version!r}: EKS extended support ended {extended.isoformat()}; since then EKS creates no new "
                "cluster of it and upgrades a control plane still on it to the oldest supported version at any "
                f"time, without notice, while managed and self-managed nodes stay on {version} ({EKS_CALENDAR_SOURCE}; "
                f"row: {EKS.entries[minor].source}, 'What will happen at the end of 12 months of extended support?'): "
                "upgrade the cluster and write its new version, or, while your control plane is still on it, set "
                "limits.allowUnsupportedKubernetesVersion: true")
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
        False, description="Do not warn about a cluster.kubernetesVersion past the end of EKS extended support, "
        "or newer than the package's EKS/GKE version calendars (a version older than the EKS calendar is an error)."
    )
