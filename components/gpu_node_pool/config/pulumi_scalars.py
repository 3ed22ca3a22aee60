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
* A float is what :func:`gpu_node_pool.k8s.go_numbers.yaml_float` reads, the one definition of Go's YAML float
  (so ``1e3`` is one, which YAML 1.1 reads as a string; one that overflows is a string), or ``.inf``/``.nan`` in
  their three spellings.
* There are no base-60 numbers (``1:20`` is a string). A text ``parseTimestamp`` accepts (4-digit year, ``-``,
  then one of ``allowedTimestampFormats``: a date, or a date and time, checked by Go's ``time.Parse``, so
  ``2024-02-30`` stays a string) is a ``time.Time`` (``decode.go`` sets the resolved value of an untyped target
  as it is, v3.0.1), which Pulumi stores as Go prints it (``object.go`` ``unmarshalObject``: ``case time.Time:
  newObject(v.String())``): ``2024-01-02`` reaches the program as ``2024-01-02 00:00:00 +0000 UTC``.

The CLI then stores the value as JSON (pulumi/pulumi ``sdk/go/common/resource/config/object.go``
``MarshalString`` with Go's ``encoding/json``), which the program's SDK decodes again (``pulumi.Config.get_object``
is ``json.loads``): a float with no fraction below 1e21 (where Go starts writing an exponent,
:data:`gpu_node_pool.k8s.go_numbers.JSON_EXPONENT_FROM`) is written ``4`` and arrives as the integer 4, and a NaN or
infinity cannot be written at all (``json: unsupported value``), so Pulumi refuses the stack file.

So the number a program receives is seldom shown as it was written (``1.30`` arrives as 1.3, ``1e3`` as 1000):
:func:`number_as_written` gives a message about it the text of the file.
"""

from __future__ import annotations

import calendar
import math
import re
from decimal import Decimal

from ..k8s.go_numbers import JSON_EXPONENT_FROM, yaml_float
from ..k8s.integers import in_int64
from ..text.terminal import shown

__all__ = ["AsWritten", "BOOLEANS", "NON_FINITE", "NULLS", "QUOTE_A_NUMBER", "PulumiTimestamp", "go_time_text",
           "is_yaml_int", "number_as_written", "plain_kind", "plain_number"]

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

_BASES = {"x": (16, "0123456789abcdef"), "o": (8, "01234567"), "b": (2, "01")}
#: Most digits an int64/uint64 can have, by base (more after the leading zeros is out of range).
_MOST_DIGITS = {16: 16, 10: 20, 8: 22, 2: 64}


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
    if in_int64(value) or (text[:1] != "+" and sign == 1 and value < 2**64):
        return value
    return None


_DATE = r"(\d{4})-(\d{1,2})-(\d{1,2})"
_CLOCK = r"(\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d+)?"
#: ``allowedTimestampFormats`` of yaml.v3 ``resolve.go``, as Go's ``time.Parse`` reads those layouts (``1``, ``2``,
#: ``15``, ``4``, ``5``: one or two digits; ``.999999999``: an optional fraction; ``Z07:00``: ``Z`` or ``±hh:mm``).
_TIMESTAMPS = (re.compile(_DATE + "[Tt]" + _CLOCK + r"(Z|[+-]\d{2}:\d{2})"), re.compile(_DATE + " " + _CLOCK),
               re.compile(_DATE))


def go_time_text(text: str) -> str | None:
    """``text`` as a program receives it when yaml.v3 reads it as a timestamp: Go's ``time.Time.String()``
    (``2024-01-02 00:00:00 +0000 UTC``), ``""`` when that depends on the Pulumi CLI's local time zone (an
    offset other than ``Z``), or None when yaml.v3 reads ``text`` as no timestamp (a date out of range,
    ``2024-02-30``, is the string it is)."""
    for pattern in _TIMESTAMPS:
        match = pattern.fullmatch(text)
        if match is None:
            continue
        year, month, day = (int(g) for g in match.groups()[:3])
        if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]):
            return None
        rest = match.groups()[3:]
        if not rest:
            return f"{year:04d}-{month:02d}-{day:02d} 00:00:00 +0000 UTC"
        hour, minute, second = (int(g) for g in rest[:3])
        if hour > 23 or minute > 59 or second > 59:
            return None
        zone = rest[4] if len(rest) > 4 else None
        if zone not in (None, "Z"):
            return ""
        fraction = (rest[3] or "").rstrip("0").rstrip(".")
        return f"{year:04d}-{month:02d}-{day:02d} {hour:02d}:{minute:02d}:{second:02d}{fraction} +0000 UTC"
    return None


class AsWritten:
    """A value kept with its text as written in the file, for a report to show that text (never Python's repr of
    what it would be read as); equal to another of its class with the same text. Subclasses say why it is kept
    with ``problem()``."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def __hash__(self) -> int:
        return hash((type(self), self.text))

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.text == self.text  # type: ignore[attr-defined]


class PulumiTimestamp(AsWritten):
    """A plain scalar yaml.v3 reads as a timestamp: the program does not get it as written (:func:`go_time_text`).
    Kept with its text so that a report shows it, with :meth:`problem`."""

    __slots__ = ()

    def problem(self) -> str:
        """What Pulumi hands the program instead, and the fix (quote it), one line."""
        received = go_time_text(self.text)
        what = f"the text '{received}'" if received else "its time as Go prints it, in the Pulumi CLI's time zone"
        return (f"{self.text} is a date and time to Pulumi's YAML reader (gopkg.in/yaml.v3), which gives the program "
                f"{what} (pulumi/pulumi sdk/go/common/resource/config/object.go, time.Time); quote it "
                f"(\"{self.text}\") to keep it as written")


def plain_kind(text: str) -> str:
    """What yaml.v3 resolves a plain scalar's ``text`` to: ``"null"``, ``"bool"``, ``"int"`` (:func:`is_yaml_int`),
    ``"float"`` (a finite float: ``4.0`` and ``1e3`` too, which reach a program as integers, :func:`plain_number`),
    ``"nonfinite"`` (NaN or an infinity), ``"timestamp"`` (:func:`go_time_text`), ``"merge"`` (``<<``) or
    ``"str"``: the type an explicit tag must agree with."""
    if text in NULLS:
        return "null"
    if text in BOOLEANS:
        return "bool"
    if text in NON_FINITE:
        return "nonfinite"
    if text == "<<":
        return "merge"
    if text[4:5] == "-" and go_time_text(text) is not None:
        return "timestamp"
    if plain_number(text) is None:
        return "str"
    return "int" if is_yaml_int(text) else "float"


def is_yaml_int(text: str) -> bool:
    """Whether yaml.v3 resolves ``text`` to an integer (``ParseInt``/``ParseUint`` read it), not a float: what an
    explicit ``!!int`` takes. ``4.0`` and ``1e3`` are floats there, though they reach a program as integers."""
    first = text[:1]
    return bool(first) and first in "0123456789+-" and _go_int(text.replace("_", "")) is not None


def plain_number(text: str) -> int | float | None:
    """The number a program receives for the plain scalar ``text`` (after Pulumi's JSON round trip: a float
    with no fraction below 1e21 arrives as an int), or None when yaml.v3 reads ``text`` as no number
    (including NaN and the infinities, which :func:`plain_kind` calls ``"nonfinite"``)."""
    first = text[:1]
    if first and first in "0123456789+-":  # yaml.v3's resolve table: ASCII digits and signs only
        whole = _go_int(text.replace("_", ""))
        if whole is not None:
            return whole
    value = yaml_float(text)  # None past float64 too (ParseFloat's range error: yaml.v3 keeps the text)
    if value is None:
        return None
    if value.is_integer() and abs(value) < JSON_EXPONENT_FROM:
        # Go writes a float64 with the fewest digits that read back to it, zeros after (9.87654321098765e19 is
        # written 98765432109876500000), which JSON then reads as that integer
        return int(Decimal(repr(value)))
    return value


#: How a message refusing a number where a string belongs ends (``1.3: must be a valid string`` and this) when
#: nothing says how that number was written: a program's own config. :func:`number_as_written` replaces it.
QUOTE_A_NUMBER = " (quote it in YAML: true, false and numbers are not strings)"


def number_as_written(message: str, text: str) -> str:
    """``message``, written about the value at the place of the plain scalar ``text`` in a stack file, with
    ``text`` in place of the number a program receives for it (:func:`plain_number`) where it starts with that
    number (``"1.3: must be a valid string..."`` for ``1.30``); any other message is returned as it is.

    A message ending with :data:`QUOTE_A_NUMBER` ends instead with the text to write (``quote it ("1.30")``);
    another says what the program receives when that is not ``text``
    (``1.50: must be a whole number (e.g. 4); to Pulumi ... it is a number, and the program gets 1.5``)."""
    value = plain_number(text)
    received = shown(value) if value is not None else ""
    if not received or not message.startswith(received + ": "):
        return message
    rest = message[len(received) + 2:]
    reader = "Pulumi (its YAML reader, gopkg.in/yaml.v3)"
    gets = f", and the program gets {received}" if text != received else ""
    if rest.endswith(QUOTE_A_NUMBER):
        return f"{text}: {rest.removesuffix(QUOTE_A_NUMBER)}; unquoted, it is a number to {reader}{gets}: quote it (\"{text}\")"
    return f"{text}: {rest}; to {reader} it is a number{gets}" if gets else message
