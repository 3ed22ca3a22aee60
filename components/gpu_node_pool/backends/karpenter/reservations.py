"""``EC2NodeClass.spec.capacityReservationSelectorTerms`` for Karpenter pools with ``capacityTypes: [reserved]``.

Schema and CEL rules of the v1.14.1 CRD (``tests/data/karpenter-crds/karpenter.k8s.aws_ec2nodeclasses.yaml``;
facts/aws-gpu-capacity.md row 3.5): at most 30 terms, ORed (row 3.6); a term has ``id``
(``^cr-[0-9a-z]+$``), ``tags`` (at most 20, no empty keys or values, ``*`` = any value), ``ownerID``
(12 digits) and ``instanceMatchCriteria`` (``open`` | ``targeted``); each term needs one of tags, id,
instanceMatchCriteria, and ``id`` goes alone. Pure.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from ...config.common import Model, fail

__all__ = ["MAX_TERMS", "CapacityReservationTerm"]

MAX_TERMS = 30  # capacityReservationSelectorTerms maxItems
MAX_TAGS = 20  # terms[].tags maxProperties


class CapacityReservationTerm(Model):
    """One capacity reservation selector term: ``{id}`` alone, or ``tags``/``instanceMatchCriteria`` (+ ``ownerID``)."""

    id: str | None = Field(None, pattern=r"^cr-[0-9a-z]+$", description="Capacity reservation ID, cr-...")
    tags: dict[str, str] | None = Field(None, description="Reservation tags; '*' selects any value (at most 20).")
    owner_id: str | None = Field(None, alias="ownerID", pattern=r"^[0-9]{12}$", description="Owning account ID.")
    instance_match_criteria: Literal["open", "targeted"] | None = Field(None, description="open | targeted")

    @field_validator("tags")
    @classmethod
    def _tags(cls, tags: dict[str, str] | None) -> dict[str, str] | None:
        if tags is not None:
            if len(tags) > MAX_TAGS:
                raise fail(f"{len(tags)} tags; a selector term takes at most {MAX_TAGS} (EC2NodeClass CRD)")
            if any(k == "" or v == "" for k, v in tags.items()):
                raise fail("empty tag keys or values aren't supported (EC2NodeClass CRD rule); use '*' for any value")
        return tags

    @model_validator(mode="after")
    def _shape(self) -> CapacityReservationTerm:
        if self.id is None and self.tags is None and self.instance_match_criteria is None:
            raise fail("a term needs one of id, tags or instanceMatchCriteria (EC2NodeClass CRD rule; facts row 3.5)")
        if self.id is not None and (self.tags is not None or self.owner_id is not None or self.instance_match_criteria):
            raise fail("'id' is mutually exclusive with tags, ownerID and instanceMatchCriteria in a term (EC2NodeClass "
                        "CRD rule; facts row 3.5): split it into two terms (terms are ORed)")
        return self

    def to_k8s(self) -> dict[str, Any]:
        """The term as the CRD spells it (camelCase, ``ownerID``), unset fields left out."""
        out: dict[str, Any] = {}
        if self.id is not None:
            out["id"] = self.id
        if self.tags is not None:
            out["tags"] = dict(sorted(self.tags.items()))
        if self.owner_id is not None:
            out["ownerID"] = self.owner_id
        if self.instance_match_criteria is not None:
            out["instanceMatchCriteria"] = self.instance_match_criteria
        return out
