"""Pass-through ``node_config`` fields of a gke pool: the boot disk and reservation affinity.

Shapes from the GKE API's ``NodeConfig`` (https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/NodeConfig:
``diskSizeGb``, ``diskType``, ``reservationAffinity``) as ``gcp.container.NodePool`` takes them
(pulumi-gcp ``NodePoolNodeConfigArgs``: ``disk_size_gb``, at least 10 GB; ``disk_type``;
``reservation_affinity``). None of them reaches a taint or a label, so nothing here needs reading back.

* ``reservationAffinity.consumeReservationType``: ``NO_RESERVATION``, ``ANY_RESERVATION``,
  ``SPECIFIC_RESERVATION`` (with ``key`` and ``values``: e.g. ``compute.googleapis.com/reservation-name``
  and the reservation's name, GKE docs "Consuming reserved zonal resources",
  https://cloud.google.com/kubernetes-engine/docs/how-to/consuming-reservations) or
  ``ANY_RESERVATION_THEN_FAIL``; ``key``/``values`` only with ``SPECIFIC_RESERVATION``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from ...config.common import Model, fail

__all__ = ["ReservationAffinity", "node_config_fields"]

RESERVATION_NAME_KEY = "compute.googleapis.com/reservation-name"
_SOURCE = "https://cloud.google.com/kubernetes-engine/docs/how-to/consuming-reservations"


class ReservationAffinity(Model):
    """``reservationAffinity``: ``{consumeReservationType: SPECIFIC_RESERVATION, key: compute.googleapis.com/reservation-name, values: [my-a3-reservation]}``."""

    yaml_example = "{consumeReservationType: SPECIFIC_RESERVATION, key: compute.googleapis.com/reservation-name, values: [gpu-res]}"

    consume_reservation_type: Literal["NO_RESERVATION", "ANY_RESERVATION", "SPECIFIC_RESERVATION", "ANY_RESERVATION_THEN_FAIL"]
    key: str | None = Field(None, min_length=1)
    values: list[str] | None = Field(None, min_length=1)

    @model_validator(mode="after")
    def _specific(self) -> ReservationAffinity:
        specific = self.consume_reservation_type == "SPECIFIC_RESERVATION"
        if specific and (self.key is None or not self.values):
            raise fail(f"SPECIFIC_RESERVATION needs key and values, e.g. key: {RESERVATION_NAME_KEY}, values: [<reservation name>] ({_SOURCE})")
        if not specific and (self.key is not None or self.values is not None):
            raise fail(f"key and values name the reservation of SPECIFIC_RESERVATION only, not {self.consume_reservation_type} ({_SOURCE})")
        return self


def node_config_fields(pool: Any) -> dict[str, Any]:
    """The ``node_config`` keyword arguments for the given pass-through fields (snake_case), only those set."""
    out: dict[str, Any] = {}
    if pool.disk_size_gb is not None:
        out["disk_size_gb"] = pool.disk_size_gb
    if pool.disk_type is not None:
        out["disk_type"] = pool.disk_type
    if pool.reservation_affinity is not None:
        ra = pool.reservation_affinity
        out["reservation_affinity"] = {"consume_reservation_type": ra.consume_reservation_type,
                                       **({"key": ra.key, "values": list(ra.values or [])} if ra.key is not None else {})}
    return out
