"""EFA on Karpenter pools: ``efa: {enabled: true, placementGroup: {name | id}}``.

Renders into the component's ``EC2NodeClass`` (``karpenter.k8s.aws/v1``, shapes from the CRD copy in
``tests/data/karpenter-crds/karpenter.k8s.aws_ec2nodeclasses.yaml``):

* ``spec.placementGroupSelector`` = ``{name}`` or ``{id: pg-...}`` (exactly one; CRD CEL rules). The
  Karpenter backend creates no AWS resources, so the cluster placement group is named by the user
  (a cluster placement group lives in one Availability Zone: EC2 user guide
  https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-strategies.html);
* ``spec.networkInterfaces`` as the EKS user guide's Karpenter example lays them out
  (https://docs.aws.amazon.com/eks/latest/userguide/device-management-efa.html; EC2 user guide
  https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html): the primary ENA
  ``{networkCardIndex: 0, deviceIndex: 0, interfaceType: interface}`` (the CRD requires it and an
  EFA-only interface cannot be primary), an ``efa-only`` interface on card 0 at ``deviceIndex`` 1,
  and one ``efa-only`` at ``deviceIndex`` 0 on each further card. So a node gets exactly the type's
  ``MaximumEfaInterfaces`` EFA devices (32 on p5.48xlarge, 1 on a one-card type), which is the
  ``vpc.amazonaws.com/efa`` count Karpenter models. The count is the common ``MaximumEfaInterfaces``
  of every type the NodePool can launch (catalog; one EFA per network card, EKS user guide
  https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html);
* ``networkInterfaces`` came with Karpenter v1.11 (device-management-efa guide): an older
  EC2NodeClass CRD prunes the field and the nodes get no EFA. ``cluster.karpenterVersion`` states the
  installed version: below v1.11 refused, unset a warning.

Rules: every candidate type has EFA and the same count; one zone (``zones``); a created
``nodeClass`` (an existing one is not rendered); Karpenter >= v1.11 where stated. Warnings:
``efa-only`` needs VPC CNI >= 1.18.5 (node-efa guide); the Karpenter version when not stated. Pure.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from ...config.common import Model, fail
from ...k8s.patterns import pattern_search
from ...text.listing import listed, listed_counts
from .limits import karpenter_release

__all__ = [
    "NETWORK_INTERFACES_SINCE",
    "KarpenterEfa",
    "PlacementGroupSelector",
    "node_class_fields",
    "pool_problems",
    "pool_warnings",
    "version_issue",
]


class PlacementGroupSelector(Model):
    """``spec.placementGroupSelector``: ``name`` (EC2 name, >= 1 character) or ``id`` (``pg-...``), not both."""

    name: str | None = Field(None, min_length=1, description="Placement group name in EC2.")
    id: str | None = Field(None, description="Placement group ID, pg-...")

    @model_validator(mode="after")
    def _one(self) -> PlacementGroupSelector:
        if (self.name is None) == (self.id is None):
            raise fail("set exactly one of name or id (EC2NodeClass CRD: 'name' and 'id' are mutually exclusive)")
        if self.id is not None and not pattern_search(r"^pg-[0-9a-z]+$", self.id):
            raise fail(f"id {self.id!r} must match ^pg-[0-9a-z]+$ (EC2NodeClass CRD)")
        return self

    def to_k8s(self) -> dict[str, str]:
        return {"name": self.name} if self.name is not None else {"id": self.id or ""}


class KarpenterEfa(Model):
    """``efa`` on a Karpenter pool: ``{enabled: true, placementGroup: {name: ...} | {id: pg-...}}``.

    ``placementGroup`` is required: a cluster placement group (strategy ``cluster``) you created in the
    pool's zone (EC2 placement-strategies).
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
    """Refusals for an EFA Karpenter pool (sentences: rule, source, fix)."""
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
            "in the pool's zone (EC2NodeClass spec.placementGroupSelector, https://karpenter.sh/docs/concepts/nodeclasses/): the Karpenter backend "
            "creates no AWS resources"
        )
    if not pool.zones or len(pool.zones) != 1:
        problems.append(
            f"efa: zones {pool.zones or 'unset'}; EFA traffic and a cluster placement group stay in one Availability "
            "Zone (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-strategies.html): set zones to the placement group's zone, e.g. zones: [us-east-1a]"
        )
    counts = _counts(pool)
    if counts:
        without = sorted(t for t, n in counts.items() if not n)
        if without:
            problems.append(
                f"efa: the NodePool can launch {len(without)} type(s) ({listed(without, 6)}) "
                "with 0 or no sourced EFA interfaces (EC2 MaximumEfaInterfaces, Karpenter's vpc.amazonaws.com/efa): restrict instanceTypes/instanceFamilies to EFA types, "
                "e.g. p5.48xlarge, p4d.24xlarge, g6e.48xlarge"
            )
        elif len(set(counts.values())) > 1:
            problems.append(
                f"efa: the NodePool's types have different EFA interface counts ({listed_counts(counts)}): one "
                "EC2NodeClass describes one set of network interfaces, one EFA per network card "
                "(https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html); split them into pools"
            )
    return problems


def pool_warnings(pool: Any) -> list[tuple[str, str]]:
    """``[(sub-path, message)]``: ``efa-only`` interfaces need VPC CNI >= 1.18.5 (EKS user guide node-efa)."""
    if not _enabled(pool):
        return []
    count = _interface_count(pool) or 1
    return [("efa", (
        f"the EC2NodeClass gets {count} efa-only interface(s) (card 0 at deviceIndex 1, then one per further network "
        "card), so Karpenter models vpc.amazonaws.com/efa: "
        f"{count} per node; efa-only interfaces need the Amazon VPC CNI >= 1.18.5 "
        "(https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html); pods get EFA devices through the "
        "aws-efa-k8s-device-plugin (resource vpc.amazonaws.com/efa)"))]


#: The first Karpenter release whose EC2NodeClass has ``spec.networkInterfaces`` (EKS user guide
#: https://docs.aws.amazon.com/eks/latest/userguide/device-management-efa.html, Karpenter section).
NETWORK_INTERFACES_SINCE = (1, 11)
_VERSION_SOURCE = "https://docs.aws.amazon.com/eks/latest/userguide/device-management-efa.html"


def version_issue(pool: Any, karpenter_version: str | None) -> tuple[str, bool] | None:
    """``(message, refused)`` about the Karpenter version an EFA pool needs, or None.

    ``karpenter_version``: ``cluster.karpenterVersion`` (``1.11``, ``v1.11.2``) or None when not stated
    (a warning: nothing here can read the installed version). Below v1.11 refused: the older CRD prunes
    ``networkInterfaces`` and the nodes launch without EFA."""
    if not _enabled(pool):
        return None
    need = ".".join(map(str, NETWORK_INTERFACES_SINCE))
    if karpenter_version is None:
        return (
            f"EFA on Karpenter renders EC2NodeClass spec.networkInterfaces, which Karpenter has since v{need} "
            f"({_VERSION_SOURCE}); an older EC2NodeClass CRD drops the field and the nodes get no EFA. State the "
            f"installed version with gpu-node-pools:cluster.karpenterVersion (e.g. \"{need}\")",
            False,
        )
    have = karpenter_release(karpenter_version)
    if have < NETWORK_INTERFACES_SINCE:
        return (
            f"cluster.karpenterVersion {karpenter_version!r}: EC2NodeClass spec.networkInterfaces needs Karpenter "
            f">= v{need} ({_VERSION_SOURCE}); this version's CRD drops the field and the nodes would get no EFA: "
            f"upgrade Karpenter to v{need} or later, or run the EFA pool on eks-managed or self-managed",
            True,
        )
    return None


def _interface_count(pool: Any) -> int | None:
    counts = set((_counts(pool) or {}).values())
    return counts.pop() if len(counts) == 1 else None


def node_class_fields(pool: Any) -> dict[str, Any]:
    """``spec.networkInterfaces`` and ``spec.placementGroupSelector`` for the pool's EC2NodeClass, or ``{}``
    without EFA. Card 0 carries the primary ``interface`` (deviceIndex 0) and an ``efa-only``
    (deviceIndex 1); cards ``1..n-1`` one ``efa-only`` each at deviceIndex 0 (EKS user guide
    device-management-efa, EC2 user guide efa-acc-inst-types)."""
    if not _enabled(pool):
        return {}
    count = _interface_count(pool) or 1
    nics = [{"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"},
            {"networkCardIndex": 0, "deviceIndex": 1, "interfaceType": "efa-only"}]
    nics += [{"networkCardIndex": card, "deviceIndex": 0, "interfaceType": "efa-only"} for card in range(1, count)]
    out: dict[str, Any] = {"networkInterfaces": nics}
    if pool.efa.placement_group is not None:
        out["placementGroupSelector"] = pool.efa.placement_group.to_k8s()
    return out
