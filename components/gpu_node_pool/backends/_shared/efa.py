"""Elastic Fabric Adapter for multi-node training (``efa: {enabled: true}``), shared by the
eks-managed and self-managed backends (issue 15 item 5).

Every rule cites its row in ``../shared/facts/aws-gpu-capacity.md`` (§5) and, through it, the
upstream source:

* one EFA interface per EFA-capable network card, as many as the type's ``MaximumEfaInterfaces``
  (the catalog's ``efa_interfaces``; facts §5a, row 5.1); a type with 0 (or none sourced) is refused;
* the launch template pattern of terraform-aws-eks (row 5.3): interface ``i`` on
  ``network_card_index = i``, ``device_index`` 0 on card 0 and 1 elsewhere, ``delete_on_termination``;
  every interface is ``efa`` (never ``efa-only``, which needs VPC CNI >= 1.18.5 and cannot be card 0,
  row 5.2); security groups go on the interfaces, none on the template (rows 1.19, 5.3);
* a cluster placement group referenced by the launch template's ``placement.group_name`` (row 5.4);
* exactly one subnet, i.e. one Availability Zone (rows 5.5, 5.6);
* a security group that allows all traffic to and from itself (row 5.7): the component adds the
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

#: ``InterfaceType`` of every interface the component attaches (facts row 5.2).
EFA_INTERFACE_TYPE = "efa"
#: Placement group strategy of an EFA pool (facts row 5.4).
PLACEMENT_STRATEGY = "cluster"


class EfaConfig(Model):
    """Elastic Fabric Adapter for multi-node training (``efa``).

    Shape: ``{enabled: true, securityGroupIds: [sg-...], addSelfRules: true}``.

    * ``securityGroupIds``: the groups of every EFA interface. With network interfaces in the launch
      template the groups cannot also be set on the instance (facts rows 1.19, 5.3). eks-managed:
      **required** - which group EKS itself would add to interfaces the template defines is not
      sourced in the facts, so name the nodes' groups (usually the EKS cluster security group,
      ``aws eks describe-cluster --query cluster.resourcesVpcConfig.clusterSecurityGroupId``).
      self-managed: defaults to the pool's ``securityGroupIds``.
    * ``addSelfRules``: add ingress and egress rules allowing all traffic from and to itself on the
      first of those groups (row 5.7). Set false when that group has them already (the EKS cluster
      security group has the egress rule, row 5.8): EC2 refuses a duplicate rule at deploy.
    """

    enabled: bool = Field(True, description="Attach EFA interfaces, a cluster placement group and the EFA security group rules.")
    security_group_ids: list[Annotated[str, Field(pattern=r"^sg-[0-9a-f]+$")]] | None = Field(
        None, min_length=1, description="Security groups of every EFA interface (eks-managed: required)."
    )
    add_self_rules: bool = Field(
        True, description="Add the all-traffic self-referencing ingress/egress rules to the first group (facts row 5.7)."
    )


def efa_enabled(pool: Any) -> bool:
    """The pool asks for EFA (``efa.enabled``)."""
    efa = getattr(pool, "efa", None)
    return efa is not None and efa.enabled


def interface_count(types: Sequence[str]) -> int | None:
    """The EFA interfaces a node of ``types`` gets: their common ``MaximumEfaInterfaces`` (facts §5a,
    row 5.1), None when a type has none or the types disagree (see :func:`pool_problems`)."""
    counts = {(found.efa_interfaces if (found := catalog.find(t)) else None) for t in types}
    if len(counts) != 1:
        return None
    (count,) = counts
    return count or None


def pool_problems(types: Sequence[str], security_group_ids: Sequence[str] | None, backend: str) -> list[str]:
    """Refusals for an EFA pool of ``types`` (one sentence each: rule, facts row, fix).

    A type without EFA (facts §5a); types with different EFA counts (one launch template describes one
    set of interfaces, row 5.1); no security group for the interfaces (rows 1.19, 5.3, 5.7).
    """
    problems = efa_problems(types)
    if not problems and interface_count(types) is None:
        counts = {t: catalog.find(t).efa_interfaces for t in types}  # type: ignore[union-attr]
        problems.append(
            f"efa: instanceTypes have different EFA interface counts {counts}: the launch template describes one "
            "interface per network card and a type with fewer cards cannot launch it (facts row 5.1, §5a); split "
            "them into pools of one count"
        )
    if not security_group_ids:
        if backend == "eks-managed":
            problems.append(
                "efa.securityGroupIds: required on eks-managed: with network interfaces in the launch template the "
                "security groups go on each interface (facts rows 1.19, 5.3), and which group EKS would add there is "
                "not sourced; name the nodes' groups, e.g. the EKS cluster security group (aws eks describe-cluster "
                "--query cluster.resourcesVpcConfig.clusterSecurityGroupId)"
            )
        else:
            problems.append("efa: needs securityGroupIds (the pool's or efa.securityGroupIds) for the EFA interfaces (facts rows 5.3, 5.7)")
    return problems


def subnet_problem(subnets: Sequence[str], own: bool) -> str | None:
    """One subnet (one AZ) for an EFA pool (facts rows 5.5, 5.6); ``own``: the pool set ``subnetIds``."""
    if len(subnets) == 1:
        return None
    where = "" if own else " (from cluster.subnetIds)"
    return (
        f"{len(subnets)} subnets{where} {list(subnets)}, but EFA traffic and a cluster placement group stay in one "
        "Availability Zone (facts rows 5.5-5.6): set subnetIds to the one subnet of that zone, e.g. subnetIds: [subnet-...]"
    )


def network_interfaces(count: int, security_groups: Sequence[Any]) -> list[dict[str, Any]]:
    """``LaunchTemplate.network_interfaces``: one ``efa`` interface per network card ``0..count-1``
    (facts rows 5.1-5.3), ``device_index`` 0 on card 0 else 1, the groups on each, deleted with the
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
    ``placement.group_name`` (rows 5.3, 5.4). The caller drops ``vpc_security_group_ids`` (row 1.19).

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


def self_rule_args(security_group_id: Any, pool: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``aws.vpc.SecurityGroupIngressRule`` and ``SecurityGroupEgressRule`` keyword arguments: all
    protocols (``ip_protocol = "-1"``) from and to the group itself (facts row 5.7)."""
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

