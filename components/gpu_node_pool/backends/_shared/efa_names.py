"""The children an EFA pool adds (type tokens and name templates), apart from :mod:`.efa`.

The eks-managed and self-managed registry records name these children; keeping them out of
``_efa.py`` (which builds the ``efa:`` pydantic model) lets a backend's ``__init__`` register
without importing pydantic: the config is loaded when a stack is validated.
"""

from __future__ import annotations

__all__ = ["CHILDREN", "PLACEMENT_GROUP", "SG_EGRESS_RULE", "SG_INGRESS_RULE"]

#: Pulumi type tokens of the children ``_efa_resources.wire`` registers (a backend's registry record names them).
PLACEMENT_GROUP = "aws:ec2/placementGroup:PlacementGroup"
SG_INGRESS_RULE = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
SG_EGRESS_RULE = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
#: Registry ``children`` entries for a backend that wires EFA.
CHILDREN = {
    "placement_group": (PLACEMENT_GROUP, "{pool}-placement-group"),
    "efa_ingress": (SG_INGRESS_RULE, "{pool}-efa-self-ingress"),
    "efa_egress": (SG_EGRESS_RULE, "{pool}-efa-self-egress"),
}
