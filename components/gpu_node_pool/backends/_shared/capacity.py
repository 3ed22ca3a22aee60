"""Capacity settings shared by the AWS backends: instance types the catalog must know, On-Demand
Capacity Reservations, EFA and node repair (issue 15).

Every rule cites its row in ``../shared/facts/aws-gpu-capacity.md`` ("facts row 2.1") and, through
it, the upstream source. Pure: no Pulumi import (the models are read by config validation).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import Field, model_validator

from ... import catalog
from ...config.common import Model, fail

__all__ = [
    "CAPACITY_BLOCK_TYPES",
    "CapacityReservation",
    "NodeRepair",
    "capacity_reservation_spec",
    "efa_problems",
    "unknown_type_findings",
]

#: Instance types with Capacity Blocks (facts row 1.16: SageMaker's ReservedCapacityInstanceType
#: list; UNCONFIRMED for EC2, so a type outside it is a warning, never a refusal).
CAPACITY_BLOCK_TYPES = frozenset({
    "p4d.24xlarge", "p4de.24xlarge", "p5.4xlarge", "p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge",
    "p6-b200.48xlarge", "p6e-gb200.36xlarge", "trn1.32xlarge", "trn2.48xlarge",
})  # fmt: skip
#: ``CapacityReservationPreference`` values (facts row 2.2, CloudFormation LaunchTemplate docs).
CAPACITY_RESERVATION_PREFERENCES = ("open", "none", "capacity-reservations-only")


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
        "exist, and Cluster Autoscaler cannot scale it from zero unless it knows it (facts row 4.6)"
        for p in sentences
    ]


class CapacityReservation(Model):
    """An EC2 On-Demand Capacity Reservation for the pool's launch template (``capacityReservation``).

    Exactly one of ``id`` (``cr-...``) or ``resourceGroupArn`` (a resource group of reservations:
    the ``CapacityReservationTarget``), or ``preference`` (``open`` | ``none`` |
    ``capacity-reservations-only``): target and preference are exclusive (facts rows 2.1, 2.2, 2.4;
    CloudFormation ``LaunchTemplate CapacityReservationSpecification``/``Target``).
    """

    id: str | None = Field(None, pattern=r"^cr-[0-9a-f]+$", description="Capacity reservation ID, cr-...")
    resource_group_arn: str | None = Field(
        None, pattern=r"^arn:aws[a-z-]*:resource-groups:[a-z0-9-]+:\d{12}:group/.+$",
        description="ARN of a resource group of capacity reservations (facts row 2.5).",
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
                "preference, one option at a time (facts rows 2.1, 2.4; CloudFormation "
                "LaunchTemplate CapacityReservationSpecification)"
            )
        return self

    @property
    def is_target(self) -> bool:
        return self.preference is None


_ATTR = {"id": "id", "resourceGroupArn": "resource_group_arn", "preference": "preference"}


def capacity_reservation_spec(reservation_id: str | None, odcr: CapacityReservation | None) -> dict | None:
    """The launch template's ``capacity_reservation_specification`` (pulumi_aws snake_case), or None.

    ``reservation_id`` (a Capacity Block) -> ``{capacity_reservation_target: {capacity_reservation_id}}``
    (facts row 1.3); an ODCR target or preference likewise (rows 2.1, 2.4).
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
    """Node auto repair (``nodeRepair: {enabled: true}``): EKS ``nodeRepairConfig.enabled`` (facts
    row 6.1, 6.3) or GKE ``management.autoRepair`` (row 6.9)."""

    enabled: bool = Field(True, description="Let the provider replace (or reboot) unhealthy nodes.")


def efa_problems(types: Iterable[str]) -> list[str]:
    """Why EFA cannot be enabled on ``types``: a type whose ``MaximumEfaInterfaces`` is 0 (facts §5a),
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
                f"efa: {name!r} {have}; EFA needs a type with MaximumEfaInterfaces > 0 (facts §5a, e.g. p5.48xlarge, "
                "p4d.24xlarge, g6e.48xlarge, g6.8xlarge and larger): pick one or remove efa"
            )
    return problems
