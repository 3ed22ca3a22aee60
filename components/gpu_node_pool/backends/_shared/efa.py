"""Elastic Fabric Adapter for multi-node training (``efa: {enabled: true}``), shared by the
eks-managed and self-managed backends.

Rules and their public sources:

* one EFA interface per EFA-capable network card, as many as the type's ``MaximumEfaInterfaces``
  (the catalog's ``efa_interfaces``; EKS user guide
  https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html: at most one EFA per network card);
  a type with 0 (or none sourced) is refused;
* the launch template pattern of terraform-aws-modules/terraform-aws-eks@v21.19.0
  ``modules/eks-managed-node-group/main.tf``: interface ``i`` on ``network_card_index = i``,
  ``device_index`` 0 on card 0 and 1 elsewhere, ``delete_on_termination``; every interface is ``efa``
  (never ``efa-only``, which needs VPC CNI >= 1.18.5 and cannot be card 0, node-efa guide); security
  groups go on the interfaces, none on the template (EKS user guide
  https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html: groups on the instance or
  on the interfaces, not both);
* a cluster placement group referenced by the launch template's ``placement.group_name`` (the same
  terraform-aws-eks module);
* exactly one subnet, i.e. one Availability Zone: a cluster placement group lives in one zone (EC2
  user guide https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-strategies.html) and
  terraform-aws-eks v21 leaves single-AZ subnets to the caller (``docs/UPGRADE-21.0.md``);
* a security group that allows all traffic to and from itself (EC2 user guide
  https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-start.html): the component adds the
  self-referencing all-protocol ingress and egress rules to the first of ``efa.securityGroupIds``.

Pure (plain pulumi_aws keyword arguments, no Pulumi import); ``_efa_resources.wire`` registers the
placement group and the rules under Pulumi.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import Field

from ... import catalog
from ...config.common import Model
from ...text.listing import listed, listed_counts
from .capacity import efa_problems

__all__ = [
    "EFA_INTERFACE_TYPE",
    "PLACEMENT_STRATEGY",
    "EfaConfig",
    "efa_enabled",
    "interface_count",
    "launch_template_args",
    "network_interfaces",
    "pool_problems",
    "self_rule_args",
    "subnet_problem",
]

#: ``InterfaceType`` of every interface the component attaches (``efa``; ``efa-only`` is the other
#: EFA value, EKS user guide node-efa).
EFA_INTERFACE_TYPE = "efa"
#: Placement group strategy of an EFA pool (as terraform-aws-eks creates for EFA node groups).
PLACEMENT_STRATEGY = "cluster"


class EfaConfig(Model):
    """Elastic Fabric Adapter for multi-node training (``efa``).

    Shape: ``{enabled: true, securityGroupIds: [sg-...], addSelfRules: true}``.

    * ``securityGroupIds``: the groups of every EFA interface. With network interfaces in the launch
      template the groups cannot also be set on the instance (EKS user guide launch-templates). eks-managed:
      **required** - which group EKS itself would add to interfaces the template defines is not
      documented, so name the nodes' groups (usually the EKS cluster security group,
      ``aws eks describe-cluster --query cluster.resourcesVpcConfig.clusterSecurityGroupId``).
      self-managed: defaults to the pool's ``securityGroupIds``.
    * ``addSelfRules``: add ingress and egress rules allowing all traffic from and to itself on the
      first of those groups (EC2 user guide efa-start). The EKS cluster security group already has
      the ingress rule (EKS user guide https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html)
      and EC2 refuses a duplicate rule at deploy: with ``cluster.clusterSecurityGroupId`` stated and
      equal to the first group only the egress rule is added; set false when the group has both.
    """

    enabled: bool = Field(True, description="Attach EFA interfaces, a cluster placement group and the EFA security group rules.")
    security_group_ids: list[Annotated[str, Field(pattern=r"^sg-[0-9a-f]+$")]] | None = Field(
        None, min_length=1, description="Security groups of every EFA interface (eks-managed: required)."
    )
    add_self_rules: bool = Field(
        True, description="Add the all-traffic self-referencing ingress/egress rules to the first group (EC2 user guide efa-start)."
    )


def efa_enabled(pool: Any) -> bool:
    """The pool asks for EFA (``efa.enabled``)."""
    efa = getattr(pool, "efa", None)
    return efa is not None and efa.enabled


def interface_count(types: Sequence[str]) -> int | None:
    """The EFA interfaces a node of ``types`` gets: their common ``MaximumEfaInterfaces`` (EC2
    DescribeInstanceTypes ``EfaInfo``), None when a type has none or the types disagree (see :func:`pool_problems`)."""
    counts = {(found.efa_interfaces if (found := catalog.find(t)) else None) for t in types}
    if len(counts) != 1:
        return None
    (count,) = counts
    return count or None


#: The refusal of an EFA pool with no security group for its interfaces, where the backend has nothing to add.
NO_SECURITY_GROUPS = ("efa: needs securityGroupIds (the pool's or efa.securityGroupIds) for the EFA interfaces "
                      "(https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-start.html)")


def pool_problems(types: Sequence[str], security_group_ids: Sequence[str] | None,
                  no_groups: str = NO_SECURITY_GROUPS) -> list[str]:
    """Refusals for an EFA pool of ``types`` (one sentence each: rule, source, fix).

    A type without EFA; types with different EFA counts (one launch template describes one set of
    interfaces, one per network card: EKS user guide node-efa); no security group for the interfaces
    (EKS user guide launch-templates, EC2 user guide efa-start): ``no_groups``, the backend's own sentence
    for it (:data:`NO_SECURITY_GROUPS` unless the backend says more).
    """
    problems = efa_problems(types)
    if not problems and interface_count(types) is None:
        counts = {t: catalog.find(t).efa_interfaces for t in types}  # type: ignore[union-attr]
        problems.append(
            f"efa: instanceTypes have different EFA interface counts ({listed_counts(counts)}): the launch template describes one "
            "interface per network card and a type with fewer cards cannot launch it (https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html); split "
            "them into pools of one count"
        )
    if not security_group_ids:
        problems.append(no_groups)
    return problems


def subnet_problem(subnets: Sequence[str], own: bool) -> str | None:
    """One subnet (one AZ) for an EFA pool (EC2 placement-strategies: a cluster placement group is in one AZ); ``own``: the pool set ``subnetIds``."""
    if len(subnets) == 1:
        return None
    where = "" if own else " (from cluster.subnetIds)"
    return (
        f"{len(subnets)} subnets{where} ({listed(subnets)}), but EFA traffic and a cluster placement group stay in one "
        "Availability Zone (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-strategies.html): set subnetIds to the one subnet of that zone, e.g. subnetIds: [subnet-...]"
    )


def network_interfaces(count: int, security_groups: Sequence[Any]) -> list[dict[str, Any]]:
    """``LaunchTemplate.network_interfaces``: one ``efa`` interface per network card ``0..count-1``
    (terraform-aws-eks ``modules/eks-managed-node-group/main.tf``), ``device_index`` 0 on card 0 else 1, the groups on each, deleted with the
    instance (pulumi_aws takes ``delete_on_termination`` as a string)."""
    return [
        {
            "device_index": 0 if card == 0 else 1,
            "network_card_index": card,
            "interface_type": EFA_INTERFACE_TYPE,
            "delete_on_termination": "true",
            "security_groups": list(security_groups),
        }
        for card in range(count)
    ]


def launch_template_args(
    types: Sequence[str], security_groups: Sequence[Any], placement_group_name: Any
) -> dict[str, Any]:
    """The EFA part of ``aws.ec2.LaunchTemplate`` keyword arguments: ``network_interfaces`` and
    ``placement.group_name`` (terraform-aws-eks). The caller drops ``vpc_security_group_ids`` (EKS user
    guide launch-templates: groups on the instance or on the interfaces, not both).

    Raises:
        ValueError: ``types`` have no common EFA count (config validation refuses that first).
    """
    count = interface_count(types)
    if count is None:
        raise ValueError(f"instance types {list(types)} have no common EFA interface count")
    return {
        "network_interfaces": network_interfaces(count, security_groups),
        "placement": {"group_name": placement_group_name},
    }


#: EKS user guide: the cluster security group's default rules (inbound all traffic from itself,
#: outbound all traffic to 0.0.0.0/0 and ::/0).
CLUSTER_SG_SOURCE = "https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html"


def self_rules_to_add(pool: Any, cluster_security_group_id: str | None) -> tuple[str, ...]:
    """Which self-referencing rules the component adds to the first EFA group: ``("ingress",
    "egress")``, ``("egress",)`` when that group is the EKS cluster security group (EKS already gives
    it the all-traffic ingress from itself, and EC2 refuses a duplicate rule: ``CLUSTER_SG_SOURCE``;
    its egress to 0.0.0.0/0 is not the self-referencing egress EFA asks for, EC2 user guide efa-start),
    or ``()`` with ``addSelfRules: false``."""
    if not (efa_enabled(pool) and pool.efa.add_self_rules):
        return ()
    groups = getattr(pool, "efa_security_groups", None) or pool.efa.security_group_ids or []
    if cluster_security_group_id is not None and groups and groups[0] == cluster_security_group_id:
        return ("egress",)
    return ("ingress", "egress")


def self_rules_note(pool: Any, cluster_security_group_id: str | None) -> str | None:
    """A warning for an eks-managed EFA pool adding both self rules while ``cluster.clusterSecurityGroupId``
    is not stated: the usual first group is the EKS cluster security group, which has the ingress rule."""
    if self_rules_to_add(pool, cluster_security_group_id) != ("ingress", "egress") or cluster_security_group_id:
        return None
    return (
        "efa.addSelfRules adds an all-traffic ingress rule from the group itself to the first of "
        "efa.securityGroupIds; if that group is the EKS cluster security group, EKS already has that rule "
        f"({CLUSTER_SG_SOURCE}) and EC2 refuses the duplicate at deploy: state the group with "
        "gpu-node-pools:cluster.clusterSecurityGroupId (then only the egress rule is added), or set "
        "efa.addSelfRules: false when the group has both rules"
    )


def self_rule_args(security_group_id: Any, pool: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``aws.vpc.SecurityGroupIngressRule`` and ``SecurityGroupEgressRule`` keyword arguments: all
    protocols (``ip_protocol = "-1"``) from and to the group itself (EC2 user guide efa-start)."""
    common = {
        "security_group_id": security_group_id,
        "referenced_security_group_id": security_group_id,
        "ip_protocol": "-1",
        "tags": {"gpu-node-pools/pool": pool},
    }
    return (
        common | {"description": f"EFA: all traffic from itself (gpu-node-pools {pool})"},
        common | {"description": f"EFA: all traffic to itself (gpu-node-pools {pool})"},
    )

