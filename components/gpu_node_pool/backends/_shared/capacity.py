"""Capacity settings shared by the AWS backends: instance types the catalog must know, On-Demand
Capacity Reservations, EFA and node repair.

Every rule names its public source: the AWS CloudFormation ``AWS::EC2::LaunchTemplate``
reference (CapacityReservationSpecification / CapacityReservationTarget), the EKS API reference
(NodeRepairConfig), the GKE API reference (NodeManagement) and Cluster Autoscaler's AWS provider
(kubernetes/autoscaler ``cluster-autoscaler/cloudprovider/aws``). Pure: no Pulumi import (the
models are read by config validation).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal, NoReturn

from pydantic import Field, model_validator

from ... import catalog
from ...config.common import Model, fail

__all__ = [
    "CAPACITY_BLOCK_TYPES",
    "CapacityReservation",
    "NodeRepair",
    "capacity_reservation_spec",
    "efa_problems",
    "gpus_per_node_problem",
    "raise_pool_problems",
    "unknown_type_findings",
]

#: Instance types with Capacity Blocks: the SageMaker API's ``ReservedCapacityInstanceType`` enum
#: (https://docs.aws.amazon.com/sdk-for-kotlin/api/latest/sagemaker/aws.sdk.kotlin.services.sagemaker.model/-reserved-capacity-instance-type). The EKS
#: guide defers to EC2's Capacity Blocks prerequisites
#: (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-using.html#capacity-blocks-prerequisites),
#: which this list is not checked against: UNCONFIRMED for EC2, so a type outside it is a warning, never a refusal.
CAPACITY_BLOCK_TYPES = frozenset({
    "p4d.24xlarge", "p4de.24xlarge", "p5.4xlarge", "p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge",
    "p6-b200.48xlarge", "p6e-gb200.36xlarge", "trn1.32xlarge", "trn2.48xlarge",
})  # fmt: skip
#: ``CapacityReservationPreference`` values (CloudFormation ``AWS::EC2::LaunchTemplate
#: CapacityReservationSpecification``; older revisions list only ``open`` and ``none``).
CAPACITY_RESERVATION_PREFERENCES = ("open", "none", "capacity-reservations-only")


def gpus_per_node_problem(pool: Any) -> str | None:
    """Why the pool's ``gpusPerNode`` contradicts the catalog, or None.

    ``gpusPerNode`` is the physical GPUs of a node: the Cluster Autoscaler tag and the agents multiply it by
    ``gpuSharing`` replicas or MIG devices per GPU (:func:`gpu_node_pool.gpu_agents.sharing.advertised_gpus`,
    :mod:`gpu_node_pool.gpu_agents.mig`), so a count other than the catalog's for an instance type (Cluster
    Autoscaler's ``ec2_instance_types.go``) tags the group with GPUs no node has, and the autoscaler scales it
    up for pods that never fit. Types without a count in the catalog (fractional GPUs, types newer than it
    under ``allowUnknownInstanceTypes``) are what ``gpusPerNode`` is for and are not judged.
    """
    given = getattr(pool, "gpus_per_node", None)
    if given is None:
        return None
    wrong = {t: n for t in getattr(pool, "instance_types", None) or () if (n := catalog.gpus(t)) and n != given}
    if not wrong:
        return None
    counts = ", ".join(f"{t} has {n} GPU{'s' if n > 1 else ''}" for t, n in wrong.items())
    return (f"{given}, but the instance catalog says {counts} (Cluster Autoscaler's table, kubernetes/autoscaler "
            "cluster-autoscaler/cloudprovider/aws/ec2_instance_types.go); gpusPerNode counts physical GPUs (gpuSharing "
            "replicas and MIG devices multiply it), so the scale-from-zero tag and the plan would promise GPUs no "
            "node has: remove gpusPerNode (the catalog's count is used); to advertise more, set gpuSharing or mig")


def unknown_type_findings(types: Iterable[str], allow: bool, where: str = "instanceTypes") -> tuple[list[str], list[str]]:
    """``(errors, warnings)`` for instance types missing from the catalog (:func:`catalog.unknown_type_problems`).

    Unknown types are errors with "did you mean" suggestions; with ``allowUnknownInstanceTypes: true``
    (``allow``) the same sentences become warnings (a type newer than the catalog: EC2 is the judge).
    """
    sentences = catalog.unknown_type_problems(list(types))
    if not allow:
        return [f"{where}: {p}" for p in sentences], []
    return [], [
        p.split(" For a type newer than the catalog", 1)[0]
        + " allowUnknownInstanceTypes is set, so it is used as written: EC2 refuses it at launch if it does not "
        "exist, and Cluster Autoscaler cannot scale it from zero unless it knows it (kubernetes/autoscaler "
        "cluster-autoscaler/cloudprovider/aws/README.md: a group of an unknown type has no template node)"
        for p in sentences
    ]


def raise_pool_problems(problems: list[str], types: list[str], allow: bool,
                        located: Sequence[tuple[tuple[str | int, ...], str]] = ()) -> NoReturn:
    """Raise a pool's refusals, each where the user fixes it: every instance type missing from the catalog
    (:func:`unknown_type_findings`' errors among ``problems``) at its own ``instanceTypes[i]``, each of ``located``
    (``(where in the pool, sentence)``) at its place, and the other ``problems`` (sentences) joined at the pool.

    Raises:
        pydantic.ValidationError: the errors, each with its own path and ``file:line``.
    """
    from ...config.errors import fail_each

    errors, _ = unknown_type_findings(types, allow)
    unknown = [i for i, t in enumerate(types) if catalog.find(t) is None]
    at = list(located) + [(("instanceTypes", i), e.removeprefix("instanceTypes: "))
                          for i, e in zip(unknown, errors, strict=False) if e in problems]
    rest = [p for p in problems if p not in errors]
    if rest:
        at.append(((), "; ".join(rest)))
    raise fail_each(at)


class CapacityReservation(Model):
    """An EC2 On-Demand Capacity Reservation for the pool's launch template (``capacityReservation``).

    Exactly one of ``id`` (``cr-...``) or ``resourceGroupArn`` (a resource group of reservations:
    the ``CapacityReservationTarget``), or ``preference`` (``open`` | ``none`` |
    ``capacity-reservations-only``): target and preference are exclusive, and a target is an id or a
    resource group, not both (CloudFormation ``AWS::EC2::LaunchTemplate``
    ``CapacityReservationSpecification`` / ``CapacityReservationTarget``).
    """

    id: str | None = Field(None, pattern=r"^cr-[0-9a-f]+$", description="Capacity reservation ID, cr-...")
    resource_group_arn: str | None = Field(
        None, pattern=r"^arn:aws[a-z-]*:resource-groups:[a-z0-9-]+:[0-9]{12}:group/[a-zA-Z0-9_.-]{1,300}$",
        description="ARN of a resource group of capacity reservations (AWS Resource Groups API: GroupArn, group name [a-zA-Z0-9_.-]{1,300}).",
    )
    preference: Literal["open", "none", "capacity-reservations-only"] | None = Field(
        None, description="open | none | capacity-reservations-only"
    )

    @model_validator(mode="after")
    def _one(self) -> CapacityReservation:
        given = [k for k in ("id", "resourceGroupArn", "preference") if getattr(self, _ATTR[k]) is not None]
        if len(given) != 1:
            raise fail(
                f"set exactly one of id, resourceGroupArn (the reservation target) or preference, got "
                f"{given or 'none'}: a launch template's CapacityReservationSpecification takes a target or a "
                "preference, one option at a time (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/"
                "aws-properties-ec2-launchtemplate-capacityreservationspecification.html)"
            )
        return self

    @property
    def is_target(self) -> bool:
        return self.preference is None


_ATTR = {"id": "id", "resourceGroupArn": "resource_group_arn", "preference": "preference"}


def capacity_reservation_spec(reservation_id: str | None, odcr: CapacityReservation | None) -> dict | None:
    """The launch template's ``capacity_reservation_specification`` (pulumi_aws snake_case), or None.

    ``reservation_id`` (a Capacity Block) -> ``{capacity_reservation_target: {capacity_reservation_id}}``
    (EKS user guide capacity-blocks-mng); an ODCR target or preference likewise (CloudFormation
    ``CapacityReservationSpecification``).
    """
    if reservation_id:
        return {"capacity_reservation_target": {"capacity_reservation_id": reservation_id}}
    if odcr is None:
        return None
    if odcr.preference is not None:
        return {"capacity_reservation_preference": odcr.preference}
    target = {"capacity_reservation_id": odcr.id} if odcr.id else {"capacity_reservation_resource_group_arn": odcr.resource_group_arn}
    return {"capacity_reservation_target": target}


class NodeRepair(Model):
    """Node auto repair (``nodeRepair: {enabled: true}``): EKS ``nodeRepairConfig.enabled``
    (https://docs.aws.amazon.com/eks/latest/APIReference/API_NodeRepairConfig.html) or GKE
    ``management.autoRepair`` (https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/NodeManagement)."""

    enabled: bool = Field(True, description="Let the provider replace (or reboot) unhealthy nodes.")


def efa_problems(types: Iterable[str]) -> list[str]:
    """Why EFA cannot be enabled on ``types``: a type whose ``MaximumEfaInterfaces`` is 0 (EC2 DescribeInstanceTypes ``EfaInfo``),
    or unknown to the catalog; empty when every type has EFA."""
    problems = []
    for name in types:
        found = catalog.find(name)
        if found is None or not found.efa_interfaces:
            have = (
                "is not in the instance catalog" if found is None
                else "has no sourced EFA interface count" if found.efa_interfaces is None
                else "has 0 EFA interfaces"
            )
            problems.append(
                f"efa: {name!r} {have}; EFA needs a type with MaximumEfaInterfaces > 0 (EC2 DescribeInstanceTypes EfaInfo, e.g. p5.48xlarge, "
                "p4d.24xlarge, g6e.48xlarge, g6.8xlarge and larger): pick one or remove efa"
            )
    return problems
