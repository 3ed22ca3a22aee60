"""Capacity rules of eks-managed pools: catalog types, Capacity Blocks, On-Demand Capacity
Reservations, EFA, node repair and the scale-from-zero GPU count.

Sources: the EKS user guide (capacity-blocks-mng, launch-templates, node-health), the EC2 user guide
(capacity-blocks-launch), aws-ia/terraform-aws-eks-blueprints ``patterns/targeted-odcr``,
terraform-aws-modules/terraform-aws-eks@v21.19.0 ``modules/eks-managed-node-group/main.tf`` and
kubernetes/autoscaler ``cluster-autoscaler/cloudprovider/aws``; each message names its own.
``pool_problems`` are refusals (the pool's model validator raises them), ``pool_warnings`` what is
valid but risky (unconfirmed upstream, known risks of a type), ``stack_problems`` the rules that need
the cluster's subnets. Pure.
"""

from __future__ import annotations

from typing import Any

from ... import catalog
from ...text.listing import listed, listed_counts
from .._shared import efa as _efa_rules
from .._shared.capacity import CAPACITY_BLOCK_TYPES, unknown_type_findings

__all__ = ["effective_subnets", "pool_problems", "pool_warnings", "stack_problems", "uses_launch_template"]

CAPACITY_BLOCK = "CAPACITY_BLOCK"


def uses_launch_template(pool: Any) -> bool:
    """The pool needs the component's launch template: a Capacity Block (EKS user guide
    capacity-blocks-mng), an ODCR (terraform-aws-eks-blueprints targeted-odcr), EFA (interfaces and
    placement group live in the template), ``kubelet`` settings beyond taints and labels, or
    Bottlerocket settings (``bottlerocket`` beyond taints and labels, or ``mig`` on a ``BOTTLEROCKET_*``
    AMI type: Bottlerocket's MIG settings): its user data. Taints and labels alone go on the node group."""
    from .bottlerocket import writes_settings
    from .kubelet import kubelet_settings

    return (pool.capacity_type == CAPACITY_BLOCK or pool.capacity_reservation is not None or _efa(pool)
            or kubelet_settings(pool) != {} or writes_settings(pool))


#: An eks-managed EFA pool without security groups: the groups go on each interface of the launch template.
_NO_EFA_GROUPS = (
    "efa.securityGroupIds: required on eks-managed: with network interfaces in the launch template the "
    "security groups go on each interface (https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html), "
    "and which group EKS would add there is not documented; name the nodes' groups, e.g. the EKS cluster security "
    "group (aws eks describe-cluster --query cluster.resourcesVpcConfig.clusterSecurityGroupId)"
)


def _efa(pool: Any) -> bool:
    return pool.efa is not None and pool.efa.enabled


def pool_problems(pool: Any) -> list[str]:
    """Refusals for one pool (one sentence each: the rule, its source, the fix)."""
    problems, _ = unknown_type_findings(pool.instance_types, pool.allow_unknown_instance_types)
    cb = pool.capacity_type == CAPACITY_BLOCK
    if cb and not pool.capacity_reservation_id:
        problems.append(
            "capacityType CAPACITY_BLOCK needs capacityReservationId (the Capacity Block, cr-...): EKS creates "
            "Capacity Block node groups only from a launch template targeting the reservation with market type "
            "capacity-block (https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html)"
        )
    if cb and len(pool.instance_types) != 1:
        problems.append(
            f"capacityType CAPACITY_BLOCK takes exactly one instance type (the block's), got {pool.instance_types}: "
            "it goes in the launch template and the node group lists none (https://docs.aws.amazon.com/eks/latest/userguide/"
            "launch-templates.html; terraform-aws-eks modules/eks-managed-node-group/main.tf does the same)"
        )
    if pool.capacity_reservation_id and not cb:
        problems.append(
            f"capacityReservationId is for capacityType CAPACITY_BLOCK, not {pool.capacity_type} (EKS rejects a "
            "capacity-block launch template on any other capacity type, https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html); "
            "for an On-Demand Capacity Reservation use capacityReservation: {id: cr-...}"
        )
    if pool.capacity_reservation is not None and pool.capacity_type != "ON_DEMAND":
        problems.append(
            f"capacityReservation (an On-Demand Capacity Reservation) needs capacityType ON_DEMAND, not "
            f"{pool.capacity_type} (an ODCR is ordinary On-Demand capacity: aws-ia/terraform-aws-eks-blueprints "
            "patterns/targeted-odcr); a Capacity Block is capacityType CAPACITY_BLOCK with "
            "capacityReservationId"
        )
    if uses_launch_template(pool) and pool.disk_size is not None:
        problems.append(
            "diskSize cannot be set on a node group that uses a launch template "
            "(https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html); this pool gets one for its capacity "
            "reservation, EFA, kubelet or Bottlerocket settings (MIG on Bottlerocket included): remove diskSize"
        )
    if getattr(pool, "launch_template", None) is not None and uses_launch_template(pool):
        problems.append(
            "launchTemplate: this pool needs the component's own launch template (for its capacity reservation, EFA, "
            "kubelet or Bottlerocket settings, MIG on Bottlerocket included) and a managed node group takes one template "
            "(https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html): move those settings into your "
            "template and drop them here, or drop launchTemplate"
        )
    if getattr(pool, "launch_template", None) is not None and pool.disk_size is not None:
        problems.append(
            "diskSize cannot be set with launchTemplate (https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html): "
            "set the root volume in your template's block device mappings"
        )
    if getattr(pool, "kubelet", None) is not None and pool.ships_own_device_plugin:
        problems.append(
            f"kubelet: {pool.ami_type} nodes read Bottlerocket TOML settings, not a nodeadm NodeConfig "
            "(https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html); kubelet settings are for "
            "AL2023 AMI types: use bottlerocket: {settings: {...}} (e.g. settings.kubernetes.max-pods)"
        )
    if _efa(pool):  # EFA interfaces, placement group, self-referencing group (backends._shared.efa)
        problems += _efa_rules.pool_problems(pool.instance_types, pool.efa.security_group_ids, _NO_EFA_GROUPS)
    return problems


def pool_warnings(pool: Any) -> list[tuple[str, str]]:
    """Valid but risky settings of one pool: ``[(sub-path, message)]``."""
    out: list[tuple[str, str]] = []
    if getattr(pool, "launch_template", None) is not None:
        out.append(("launchTemplate", (
            f"{pool.launch_template.id}: only its id is known at preview, so taints or labels its user data registers "
            "(--register-with-taints, NodeConfig registerWithTaints) are not judged; declare them as the pool's taints "
            "and labels, which the node group carries")))
    _, unknown = unknown_type_findings(pool.instance_types, pool.allow_unknown_instance_types)
    out += [("instanceTypes", w) for w in unknown]
    for name in pool.instance_types:
        found = catalog.find(name)
        out += [("instanceTypes", w) for w in (found.warnings if found else ())]
    if pool.capacity_type == CAPACITY_BLOCK:
        odd = [t for t in pool.instance_types if t not in CAPACITY_BLOCK_TYPES]
        if odd:
            out.append(("instanceTypes", (
                f"{odd} are not in the Capacity Block instance list this package knows (the SageMaker API's "
                "ReservedCapacityInstanceType, unconfirmed for EC2): check that EC2 sells Capacity Blocks of it "
                "(https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-using.html#capacity-blocks-prerequisites)")))
        if any(t.startswith("p6e-gb200") for t in pool.instance_types):
            out.append(("instanceTypes", "p6e-gb200 UltraServer Capacity Blocks need opt-in to the Dallas Local Zone "
                                         "(https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-launch.html)"))
        if pool.scaling.desired > 0:
            out.append(("scaling.desiredSize", (
                f"desired size {pool.scaling.desired} on a Capacity Block node group: EKS accepts it, but instances "
                "fail to launch until the reservation is active, and upgrades need desired size 0 "
                "(https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html); minSize 0 and desiredSize 0 are allowed - scale up once the block starts")))
    if pool.capacity_reservation is not None and pool.capacity_reservation.resource_group_arn:
        out.append(("capacityReservation", (
            "the node group's subnets must be in the reservations' Availability Zone, else EKS fails with "
            "'The following supplied instance types do not exist' (aws-ia/terraform-aws-eks-blueprints "
            "patterns/targeted-odcr/README.md); the plan cannot see the AZs of a "
            "resource group's reservations: check subnetIds")))
    if pool.node_repair is not None and pool.node_repair.enabled:
        out.append(("nodeRepair", (
            "EKS node auto repair sees GPU faults (AcceleratedHardwareReady: XID, DCGM, NVLink errors) only with the "
            "eks-node-monitoring-agent add-on installed (https://docs.aws.amazon.com/eks/latest/userguide/node-health.html)")))
    return out


def effective_subnets(pool: Any, cluster: Any) -> list[str]:
    return list(pool.subnet_ids or cluster.subnet_ids or [])


def stack_problems(pool: Any, cluster: Any) -> list[tuple[str, str]]:
    """Rules that need the cluster's subnets: one subnet (one AZ) for a Capacity Block (EC2 user
    guide capacity-blocks-launch), an ODCR by id (terraform-aws-eks-blueprints targeted-odcr) and EFA
    (a cluster placement group is in one AZ). ``[(sub-path, message)]``."""
    why = []
    if pool.capacity_type == CAPACITY_BLOCK:
        why.append("a Capacity Block launches only in its Availability Zone "
                   "(https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-launch.html)")
    if pool.capacity_reservation is not None and pool.capacity_reservation.id:
        why.append("an On-Demand Capacity Reservation serves only its Availability Zone "
                   "(aws-ia/terraform-aws-eks-blueprints patterns/targeted-odcr/README.md)")
    if _efa(pool):
        why.append("EFA traffic and a cluster placement group stay in one Availability Zone "
                   "(https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-strategies.html)")
    subnets = effective_subnets(pool, cluster)
    if why and len(subnets) != 1:
        where = "" if pool.subnet_ids else " (from cluster.subnetIds)"
        return [("subnetIds", (
            f"{len(subnets)} subnets{where} {listed(subnets)}, but {'; '.join(why)}: set subnetIds to the one subnet of that "
            "zone, e.g. subnetIds: [subnet-...]"))]
    return []


def gpus_per_node(pool: Any) -> int | None:
    """GPUs a node of the pool advertises: ``gpusPerNode``, else the catalog's count of the first
    instance type (Cluster Autoscaler models the group by its first type: kubernetes/autoscaler
    ``cluster-autoscaler/cloudprovider/aws/README.md``)."""
    if pool.gpus_per_node is not None:
        return pool.gpus_per_node
    return catalog.gpus(pool.instance_types[0])


def scale_from_zero_problems(pool: Any) -> list[str]:
    """At ``minSize: 0`` the Auto Scaling group gets ``node-template/resources/nvidia.com/gpu``
    (kubernetes/autoscaler ``cluster-autoscaler/cloudprovider/aws/README.md``): one quantity for the
    whole group, because Cluster Autoscaler builds one template node per group and expects every node
    of it to look the same (EKS best practices, Cluster Autoscaler: node groups of identical scheduling
    properties, mixed instance types of the same capacity, https://docs.aws.amazon.com/eks/latest/best-practices/cas.html;
    kubernetes/autoscaler ``cluster-autoscaler/cloudprovider/aws/README.md``, mixed instances policy). So the
    instance types must have one GPU count (else split them into pools), and a type whose GPU count no
    source gives (g6f/gr6f, unknown types) needs ``gpusPerNode``."""
    if pool.scaling.min_size != 0:
        return []
    counts = {t: catalog.gpus(t) for t in pool.instance_types}
    known = {t: n for t, n in counts.items() if n is not None}
    if len(set(known.values())) > 1:
        return [
            f"minSize 0 with instanceTypes {listed(pool.instance_types)} of different GPU counts ({listed_counts(known)}): Cluster Autoscaler "
            "builds one template node per group and its node-template/resources/nvidia.com/gpu tag is one number, "
            "so a scale-up sized for one type lands another (https://docs.aws.amazon.com/eks/latest/best-practices/cas.html, "
            "node groups of identical scheduling properties; kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/README.md); split the types into one pool per GPU count"
        ]
    if pool.gpus_per_node is not None:
        return []
    # a type the catalog lacks is refused by pool_problems unless allowUnknownInstanceTypes: only then
    # does its GPU count need gpusPerNode (a typo must get "did you mean", not this)
    unknown = [t for t, n in counts.items() if n is None and (pool.allow_unknown_instance_types or catalog.find(t) is not None)]
    if not unknown:
        return []
    return [
        f"minSize 0 with {listed(unknown)}: the GPUs a node advertises are not known to the catalog (fractional or unknown "
        "types), and Cluster Autoscaler needs node-template/resources/nvidia.com/gpu to scale the group from zero "
        "(its own table, ec2_instance_types.go, says 0 or lacks the type: kubernetes/autoscaler "
        "cluster-autoscaler/cloudprovider/aws/README.md); set gpusPerNode"
    ]
