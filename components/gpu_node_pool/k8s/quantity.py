"""Kubernetes resource quantities (``1``, ``"2"``, ``"500m"``, ``"1k"``), exactly, as fractions.

Source: ``k8s.io/apimachinery/pkg/api/resource/quantity.go`` (``ParseQuantity``): a signed
decimal number with an optional decimal-SI suffix (``m``, ``k``, ``M``, ``G``, ``T``, ``P``,
``E``), binary-SI suffix (``Ki`` ... ``Ei``) or decimal exponent (``e3``).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

__all__ = ["parse_quantity"]

_QUANTITY = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E))?$")
_SUFFIX = {
    "m": Fraction(1, 1000), "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9),
    "T": Fraction(10**12), "P": Fraction(10**15), "E": Fraction(10**18),
    "Ki": Fraction(2**10), "Mi": Fraction(2**20), "Gi": Fraction(2**30), "Ti": Fraction(2**40),
    "Pi": Fraction(2**50), "Ei": Fraction(2**60),
}  # fmt: skip


def parse_quantity(value: Any) -> Fraction | None:
    """The exact value of a quantity (int, float or string), or None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(value) if math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    match = _QUANTITY.match(value.strip())
    if not match:
        return None
    number, exponent, suffix = match.groups()
    result = Fraction(number)
    if exponent:
        result *= Fraction(10) ** int(exponent[1:])
    if suffix:
        result *= _SUFFIX[suffix]
    return result
