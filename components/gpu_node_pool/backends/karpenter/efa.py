"""EFA on Karpenter pools (issue 15 item 5): ``efa: {enabled: true, placementGroup: {name | id}}``.

Renders into the component's ``EC2NodeClass`` (``karpenter.k8s.aws/v1``, shapes from the CRD copy in
``tests/data/karpenter-crds/karpenter.k8s.aws_ec2nodeclasses.yaml``):

* ``spec.placementGroupSelector`` = ``{name}`` or ``{id: pg-...}`` (exactly one; CRD CEL rules). The
  Karpenter backend creates no AWS resources, so the cluster placement group is named by the user
  (facts ``aws-gpu-capacity.md`` rows 5.4, 5.6);
* ``spec.networkInterfaces`` = the primary ``{networkCardIndex: 0, deviceIndex: 0, interfaceType:
  interface}`` (the CRD requires it) plus one ``efa-only`` interface on each further EFA network card
  (``deviceIndex`` 1, as terraform-aws-eks does, row 5.3); the count is the common
  ``MaximumEfaInterfaces`` of every type the NodePool can launch (catalog, facts §5a, row 5.1).

Rules: every candidate type has EFA and the same count (§5a, row 5.1); one zone (``zones``, rows
5.5-5.6); a created ``nodeClass`` (an existing one is not rendered). Warnings: ``efa-only`` needs
VPC CNI >= 1.18.5 (row 5.2). Pure.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field, model_validator

from ...config.common import Model, fail

__all__ = ["KarpenterEfa", "PlacementGroupSelector", "node_class_fields", "pool_problems", "pool_warnings"]


class PlacementGroupSelector(Model):
    """``spec.placementGroupSelector``: ``name`` (EC2 name, >= 1 character) or ``id`` (``pg-...``), not both."""

    name: str | None = Field(None, min_length=1, description="Placement group name in EC2.")
    id: str | None = Field(None, description="Placement group ID, pg-...")

    @model_validator(mode="after")
    def _one(self) -> PlacementGroupSelector:
        if (self.name is None) == (self.id is None):
            raise fail("set exactly one of name or id (EC2NodeClass CRD: 'name' and 'id' are mutually exclusive)")
        if self.id is not None and not re.fullmatch(r"pg-[0-9a-z]+", self.id):
            raise fail(f"id {self.id!r} must match ^pg-[0-9a-z]+$ (EC2NodeClass CRD)")
        return self

    def to_k8s(self) -> dict[str, str]:
        return {"name": self.name} if self.name is not None else {"id": self.id or ""}


class KarpenterEfa(Model):
    """``efa`` on a Karpenter pool: ``{enabled: true, placementGroup: {name: ...} | {id: pg-...}}``.

    ``placementGroup`` is required: a cluster placement group (strategy ``cluster``) you created in the
    pool's zone (facts rows 5.4, 5.6).
    """

    enabled: bool = Field(True, description="EFA interfaces and the placement group in the EC2NodeClass.")
    placement_group: PlacementGroupSelector | None = Field(None, description="{name} | {id: pg-...} of a cluster placement group.")


def _enabled(pool: Any) -> bool:
    return getattr(pool, "efa", None) is not None and pool.efa.enabled


def _counts(pool: Any) -> dict[str, int | None] | None:
    """``{candidate type: MaximumEfaInterfaces}`` of the NodePool, None when the evaluator cannot judge."""
    from ...catalog.requirements import RequirementError
    from .feasibility import evaluation

    try:
        result = evaluation(pool.requirement_list, pool.limits)
    except RequirementError:
        return None
    return {t.name: t.efa_interfaces for t in result.gpu_candidates}


def pool_problems(pool: Any) -> list[str]:
    """Refusals for an EFA Karpenter pool (sentences: rule, facts row, fix)."""
    if not _enabled(pool):
        return []
    problems = []
    if pool.node_class is None:
        problems.append(
            "efa: needs nodeClass (an EC2NodeClass the component creates): it renders networkInterfaces and "
            "placementGroupSelector there; an existing nodeClassRef is yours to change"
        )
    if pool.efa.placement_group is None:
        problems.append(
            "efa.placementGroup: required on Karpenter pools, {name: ...} or {id: pg-...} of a cluster placement group "
            "in the pool's zone (facts rows 5.4, 5.6; EC2NodeClass placementGroupSelector): the Karpenter backend "
            "creates no AWS resources"
        )
    if not pool.zones or len(pool.zones) != 1:
        problems.append(
            f"efa: zones {pool.zones or 'unset'}; EFA traffic and a cluster placement group stay in one Availability "
            "Zone (facts rows 5.5-5.6): set zones to the placement group's zone, e.g. zones: [us-east-1a]"
        )
    counts = _counts(pool)
    if counts:
        without = sorted(t for t, n in counts.items() if not n)
        if without:
            problems.append(
                f"efa: the NodePool can launch {without[:6]}{' ...' if len(without) > 6 else ''} ({len(without)} types) "
                "with 0 or no sourced EFA interfaces (facts §5a): restrict instanceTypes/instanceFamilies to EFA types, "
                "e.g. p5.48xlarge, p4d.24xlarge, g6e.48xlarge"
            )
        elif len(set(counts.values())) > 1:
            problems.append(
                f"efa: the NodePool's types have different EFA interface counts {dict(sorted(counts.items()))}: one "
                "EC2NodeClass describes one set of network interfaces (facts row 5.1, §5a); split them into pools"
            )
    return problems


def pool_warnings(pool: Any) -> list[tuple[str, str]]:
    """``[(sub-path, message)]``: ``efa-only`` interfaces need VPC CNI >= 1.18.5 (facts row 5.2)."""
    if not _enabled(pool) or (_interface_count(pool) or 0) < 2:
        return []
    return [("efa", (
        "the EC2NodeClass gets efa-only interfaces on network cards 1 and up: they need the Amazon VPC CNI >= 1.18.5 "
        "(facts row 5.2, EKS user guide node-efa); pods get EFA devices through the aws-efa-k8s-device-plugin "
        "(vpc.amazonaws.com/efa, row 3.17)"))]


def _interface_count(pool: Any) -> int | None:
    counts = set((_counts(pool) or {}).values())
    return counts.pop() if len(counts) == 1 else None


def node_class_fields(pool: Any) -> dict[str, Any]:
    """``spec.networkInterfaces`` and ``spec.placementGroupSelector`` for the pool's EC2NodeClass, or ``{}``
    without EFA. Card 0 carries the primary ``interface``; cards ``1..n-1`` one ``efa-only`` each."""
    if not _enabled(pool):
        return {}
    count = _interface_count(pool) or 1
    nics = [{"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"}]
    nics += [{"networkCardIndex": card, "deviceIndex": 1, "interfaceType": "efa-only"} for card in range(1, count)]
    out: dict[str, Any] = {"networkInterfaces": nics}
    if pool.efa.placement_group is not None:
        out["placementGroupSelector"] = pool.efa.placement_group.to_k8s()
    return out
