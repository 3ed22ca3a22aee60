"""Kubernetes resource quantities (``1``, ``"2"``, ``"500m"``, ``"1k"``, ``"64Gi"``, ``"1e3"``), exactly, as fractions.

Parsed as ``kubernetes/apimachinery`` ``pkg/api/resource/quantity.go@v0.34.10``
(``ParseQuantity``, ``parseQuantityString``) and ``suffix.go`` (``interpret``) parse them::

    <quantity>        ::= <signedNumber><suffix>
    <signedNumber>    ::= <number> | ("+" | "-") <number>
    <number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
    <suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
    <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei
    <decimalSI>       ::= n | u | m | "" | k | M | G | T | P | E
    <decimalExponent> ::= ("e" | "E") <signedNumber of ASCII digits>

Digits are ASCII ``0-9`` only; no whitespace anywhere. As upstream: a sign, ``"."`` or
``"1."`` alone are numbers (``"."`` and ``"-"`` are 0, ``"1.G"`` is 10^9); a non-zero value is
rounded away from zero to a whole nano (``"0.9n"`` is 1n, ``"1e-100"`` is 1n); a binary-SI
value is capped at 2^63-1 (``"9Ei"``).

Bounds, so that every input returns at once:

- the exponent after ``e`` must fit an int32 (upstream's ``Scale`` type). Upstream reads it as an
  int64 and silently truncates it to int32 (``"1e4294967297"`` would become ``1e1``); that
  wrap-around is refused here instead of copied.
- at most :data:`MAX_DIGITS` digits, and a magnitude below ``10**MAX_DIGITS``: upstream stores
  larger decimal values, but no resource amount comes near one and exact arithmetic on
  ``1e2000000000`` would not end.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ..text.terminal import shown
from .integers import INT32_MAX, INT32_MIN, INT64_MAX, in_int32

__all__ = ["MAX_DIGITS", "QuantityError", "parse_quantity", "quantity", "split_quantity"]

#: Most digits in a quantity's number, and the largest decimal order of magnitude of its value.
MAX_DIGITS = 1000
_NANO = 10**9
_ASCII_DIGITS = frozenset("0123456789")
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_DECIMAL_SI = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SI = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_FORM = "a number with an optional suffix: n u m k M G T P E, Ki Mi Gi Ti Pi Ei, or e<exponent> (e.g. 8, 500m, 64Gi, 1e3)"


class QuantityError(ValueError):
    """A value that is not a Kubernetes quantity; the message says why and what the form is."""


def _digits(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _ASCII_DIGITS:
        pos += 1
    return pos


def split_quantity(text: str) -> tuple[int, str, str, str]:
    """``(sign, integer digits, fraction digits, suffix)`` of a quantity string as ``parseQuantityString`` splits
    them (k8s.io/apimachinery pkg/api/resource/quantity.go), e.g. ``"1.5Gi"`` -> ``(1, "1", "5", "Gi")``; sign is 1
    or -1, the digit strings may be empty.

    Raises:
        QuantityError: ``text`` is not in a quantity's form.
    """
    sign, pos = 1, 0
    if text[:1] in ("+", "-"):
        sign, pos = (-1 if text[0] == "-" else 1), 1
    end = _digits(text, pos)
    num, denom = text[pos:end], ""
    if end < len(text) and text[end] == ".":
        stop = _digits(text, end + 1)
        denom, end = text[end + 1 : stop], stop
    suffix_end = end
    while suffix_end < len(text) and text[suffix_end] in _SUFFIX_CHARS:
        suffix_end += 1
    if suffix_end < len(text) and text[suffix_end] in ("+", "-"):
        suffix_end += 1
    if _digits(text, suffix_end) != len(text):
        raise QuantityError(f"{shown(text)} is not a Kubernetes quantity: {_FORM}")
    return sign, num, denom, text[end:]


def _suffix(text: str, suffix: str) -> tuple[int, int]:
    """``(base, exponent)`` of a suffix, as ``suffixHandler.interpret`` reads it."""
    if suffix in _DECIMAL_SI:
        return 10, _DECIMAL_SI[suffix]
    if suffix in _BINARY_SI:
        return 2, _BINARY_SI[suffix]
    rest = suffix[1:]
    body = rest[1:] if rest[:1] in ("+", "-") else rest
    if suffix[:1] not in ("e", "E") or not body or not set(body) <= _ASCII_DIGITS:
        raise QuantityError(f"{shown(text)} has an unknown suffix {shown(suffix)}; a Kubernetes quantity is {_FORM}")
    if len(body.lstrip("0")) > 10 or not in_int32(int(rest)):
        raise QuantityError(f"{shown(text)}: the exponent {rest} is outside {INT32_MIN}..{INT32_MAX} (an int32, as Kubernetes stores it)")
    return 10, int(rest)


def quantity(value: Any) -> Fraction:
    """The exact value of a quantity: an ``int``, a finite ``float`` or a string of the form above.

    Raises :class:`QuantityError` (a ``ValueError``) for anything else: a bool, ``None``, an
    empty string, whitespace, non-ASCII digits, an unknown suffix, an exponent outside int32,
    more than :data:`MAX_DIGITS` digits or a magnitude of ``10**MAX_DIGITS`` or more.
    """
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise QuantityError(f"{shown(value)} is not a Kubernetes quantity: give an integer or a string such as '64Gi'")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise QuantityError(f"{shown(value)} is not a Kubernetes quantity: it must be finite")
        return Fraction(value)
    if value == "":
        raise QuantityError(f"'' is not a Kubernetes quantity: {_FORM}")
    sign, num, denom, suffix = split_quantity(value)
    base, exponent = _suffix(value, suffix)
    digits = (num + denom).lstrip("0")
    if len(num) + len(denom) > MAX_DIGITS:
        raise QuantityError(f"{value[:20]!r}... has {len(num) + len(denom)} digits; at most {MAX_DIGITS} are read")
    if not digits:
        return Fraction(0)
    if base == 2:
        amount = Fraction(int(digits) << exponent, 10 ** len(denom))
    else:
        scale = exponent - len(denom)  # the value is int(digits) * 10**scale
        if len(digits) + scale > MAX_DIGITS:
            raise QuantityError(f"{shown(value)} is 10^{len(digits) + scale - 1} or more; at most 10^{MAX_DIGITS} is read")
        if scale + 9 < -len(digits):  # below one nano: rounded up to 1n, as upstream rounds it
            return Fraction(sign, _NANO)
        amount = Fraction(int(digits) * 10**scale) if scale >= 0 else Fraction(int(digits), 10**-scale)
    amount = Fraction(math.ceil(amount * _NANO), _NANO)  # away from zero: amount is positive here
    if base == 2:
        amount = min(amount, Fraction(INT64_MAX))
    return sign * amount


def parse_quantity(value: Any) -> Fraction | None:
    """The exact value of a quantity (see :func:`quantity`), or None when it is not one."""
    try:
        return quantity(value)
    except QuantityError:
        return None
