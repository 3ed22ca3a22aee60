"""What a stack file's plain (unquoted) scalar is to a Pulumi program: the type Pulumi's YAML reader gives
it, and the value the program then receives.

The Pulumi CLI reads stack files with ``gopkg.in/yaml.v3`` (pulumi/pulumi ``sdk/go/common/encoding/marshal.go``;
``sdk/go.mod`` pins v3.0.1). Its ``resolve.go`` is YAML 1.2-like, not YAML 1.1 as PyYAML is:

* ``true``/``True``/``TRUE``/``false``/``False``/``FALSE`` are the only booleans; ``yes``, ``no``, ``on``,
  ``off`` are strings.
* ``""``, ``~``, ``null``, ``Null``, ``NULL`` are null.
* An integer is read with Go's ``strconv.ParseInt(text, 0, 64)`` once every ``_`` is dropped: decimal,
  ``0x``/``0o``/``0b`` in either case, and a leading ``0`` as octal (``010`` is 8); ``ParseUint`` next, for
  up to 2^64 - 1.
* A float is a text matching ``[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?`` (so ``1e3`` is one,
  which YAML 1.1 reads as a string), or ``.inf``/``.nan`` in their three spellings; one that overflows is a
  string.
* There are no base-60 numbers (``1:20`` is a string), and a timestamp (``2024-01-02``) decoded into an
  untyped value is its text (``decode.go``: "for backward compatibility reasons we set it as a string").

The CLI then stores the value as JSON (pulumi/pulumi ``sdk/go/common/resource/config/object.go``
``MarshalString`` with Go's ``encoding/json``), which the program's SDK decodes again (``pulumi.Config.get_object``
is ``json.loads``): a float with no fraction below 1e21 is written ``4`` and arrives as the integer 4, and a
NaN or infinity cannot be written at all (``json: unsupported value``), so Pulumi refuses the stack file.
"""

from __future__ import annotations

import math
import re

__all__ = ["BOOLEANS", "NON_FINITE", "NULLS", "plain_kind", "plain_number"]

#: The texts yaml.v3 reads as booleans, and their values.
BOOLEANS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
#: The texts yaml.v3 reads as null.
NULLS = frozenset(("", "~", "null", "Null", "NULL"))
#: The texts yaml.v3 reads as infinities or NaN: numbers JSON has no form for.
NON_FINITE = {
    **{s: math.nan for s in (".nan", ".NaN", ".NAN")},
    **{s: math.inf for s in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")},
    **{s: -math.inf for s in ("-.inf", "-.Inf", "-.INF")},
}

_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_DOT_FLOAT = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")
_BASES = {"x": (16, "0123456789abcdef"), "o": (8, "01234567"), "b": (2, "01")}
#: Most digits an int64/uint64 can have, by base (more after the leading zeros is out of range).
_MOST_DIGITS = {16: 16, 10: 20, 8: 22, 2: 64}
#: Go's encoding/json writes a float64 in exponent form from 1e21 (``encode.go`` ``floatEncoder``).
_JSON_EXPONENT_FROM = 1e21


def _go_int(text: str) -> int | None:
    """``strconv.ParseInt(text, 0, 64)``, then ``ParseUint`` (no sign), as yaml.v3 reads an integer; None
    when neither reads it. ``text`` has no ``_`` (yaml.v3 drops them first)."""
    body, sign = text, 1
    if body[:1] in ("+", "-"):
        sign, body = (-1 if body[0] == "-" else 1), body[1:]
    prefix = body[:2].lower()
    if len(prefix) == 2 and prefix[0] == "0" and prefix[1] in _BASES:
        base, allowed = _BASES[prefix[1]]
        digits = body[2:]
    elif body[:1] == "0" and len(body) > 1:
        (base, allowed), digits = _BASES["o"], body[1:]
    else:
        base, allowed, digits = 10, "0123456789", body
    if not digits or any(c not in allowed for c in digits.lower()):
        return None
    if len(digits.lstrip("0")) > _MOST_DIGITS[base]:
        return None
    value = sign * int(digits, base)
    if -(2**63) <= value < 2**63 or (text[:1] != "+" and sign == 1 and value < 2**64):
        return value
    return None


def plain_kind(text: str) -> str:
    """What yaml.v3 makes of a plain scalar's ``text``, as the program receives it: ``"null"``, ``"bool"``,
    ``"int"``, ``"float"`` (a finite number with a fraction, or one JSON writes in exponent form),
    ``"nonfinite"`` (NaN or an infinity) or ``"str"``."""
    if text in NULLS:
        return "null"
    if text in BOOLEANS:
        return "bool"
    if text in NON_FINITE:
        return "nonfinite"
    if text == "<<":
        return "merge"
    value = plain_number(text)
    if value is None:
        return "str"
    return "int" if type(value) is int else "float"


def plain_number(text: str) -> int | float | None:
    """The number a program receives for the plain scalar ``text`` (after Pulumi's JSON round trip: a float
    with no fraction below 1e21 arrives as an int), or None when yaml.v3 reads ``text`` as no number
    (including NaN and the infinities, which :func:`plain_kind` calls ``"nonfinite"``)."""
    first = text[:1]
    if first == ".":
        value = float(text) if _DOT_FLOAT.fullmatch(text) else None
    elif first and first in "0123456789+-":  # yaml.v3's resolve table: ASCII digits and signs only
        plain = text.replace("_", "")
        whole = _go_int(plain)
        if whole is not None:
            return whole
        value = float(plain) if _FLOAT.fullmatch(plain) else None
    else:
        return None
    if value is None or math.isinf(value):
        return None  # ParseFloat's range error: yaml.v3 keeps the text
    if value.is_integer() and abs(value) < _JSON_EXPONENT_FROM:
        return int(value)
    return value
