"""The messages of a number outside a setting's bounds: the rule, the API that holds it (from the field's
description) and the fix. Every whole-number field of a model carries its API's width as its ``le`` bound
(:data:`gpu_node_pool.k8s.integers.INT32_MAX` or ``INT64_MAX``), which these messages name."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from ..k8s.integers import INT32_MAX, INT64_MAX

#: The whole-number widths a field's ``le``/``ge`` bound stands for (:data:`~gpu_node_pool.k8s.integers.INT32_MAX`, ``INT64_MAX``).
API_WIDTHS = {INT32_MAX: "int32", INT32_MAX + 1: "int32", INT64_MAX: "int64", INT64_MAX + 1: "int64"}

#: pydantic's bound error kinds: the words of the rule and the ``ctx`` key holding the bound.
BOUND_WORDS = {"greater_than_equal": ("at least", "ge"), "greater_than": ("more than", "gt"),
               "less_than_equal": ("at most", "le"), "less_than": ("less than", "lt")}


def bound_of(ctx: Mapping[str, Any]) -> int:
    """The ``le`` (else ``ge``) bound of a pydantic error's ``ctx`` when it is a whole number, else 0."""
    bound = ctx.get("le", ctx.get("ge"))
    return bound if isinstance(bound, int) else 0


def api_of(field: Any, width: str = "") -> str:
    """The parenthesis of the field's description that names the API and its source (the one saying
    ``int32``/``int64`` or giving a URL; with ``width``, the one saying that width), without its parentheses;
    ``""`` when the description has none."""
    about = (field.description or "") if field is not None else ""
    names = rf"\b{width}\b" if width else r"\bint(?:32|64)\b|https://"
    api = re.search(r"\(([^()]*(?:" + names + r")[^()]*)\)", about)
    return api[1] if api else ""


def beyond_bound(kind: str, bound: float, field: Any) -> str:
    """The message of a number outside a field's ``ge``/``gt``/``le``/``lt`` bound: the rule, its source (the
    field description's parenthesis naming the API, :func:`api_of`; else the description) and the fix, e.g.
    ``must be at least 0 (an int32 of at least 0 in ...: https://...); write 0 or more``."""
    words, _ = BOUND_WORDS[kind]
    source = api_of(field) or ((field.description or "").rstrip(".") if field is not None else "")
    fix = {"at least": f"{bound} or more", "more than": f"a number above {bound}", "at most": f"{bound} or less",
           "less than": f"a number below {bound}"}[words]
    return f"must be {words} {bound}" + (f" ({source})" if source else "") + f"; write {fix}"


def beyond_width(bound: int, field: Any) -> str:
    """The message of a whole number past a field's int32/int64 bound: the range, the API that holds it (the
    parenthesis of the field's description that names the width, :func:`api_of`) and the fix."""
    width = API_WIDTHS[abs(bound)]
    api = api_of(field, width)
    side, end, fix = ("at most", "largest", "smaller") if bound > 0 else ("at least", "smallest", "larger")
    return (f"must be {side} {bound}, the {end} {width}" + (f" ({api})" if api else "")
            + f"; write a {fix} whole number")


def past_range(value: Any, field: Any) -> str:
    """The message of a whole number given as a float (Pulumi's YAML reader, gopkg.in/yaml.v3, reads a plain
    number past 2^64 - 1 as a float64, and JSON writes one from 1e21 with an exponent) that is past a bound of
    the field: ``is a whole number, but ...`` with :func:`beyond_width` or :func:`beyond_bound`; ``""`` for any
    other value, or when the number is within the field's bounds."""
    if not isinstance(value, float) or not math.isfinite(value) or not value.is_integer() or field is None:
        return ""
    whole = int(value)
    for rule in getattr(field, "metadata", ()) or ():
        for kind, (_, attr) in BOUND_WORDS.items():
            bound = getattr(rule, attr, None)
            if not isinstance(bound, int | float) or isinstance(bound, bool):
                continue
            past = {"ge": whole < bound, "gt": whole <= bound, "le": whole > bound, "lt": whole >= bound}[attr]
            if not past:
                continue
            if attr in ("le", "ge") and isinstance(bound, int) and abs(bound) in API_WIDTHS:
                return "is a whole number outside the setting's range: it " + beyond_width(bound, field)
            return "is a whole number outside the setting's range: it " + beyond_bound(kind, bound, field)
    return ""
