"""The ranges of the Kubernetes integer types, int32 and int64: the API's integer fields, and the numbers Go's
``strconv.ParseInt(s, 10, 64)`` reads (node selector and toleration ``Gt``/``Lt`` values, kubelet config fields).

The Kubernetes API conventions give every integer field Go type ``int32`` or ``int64`` (kubernetes/community
``contributors/devel/sig-architecture/api-conventions.md``, "Primitive types"); the bounds are Go's
``math.MinInt32`` (``-1 << 31``), ``math.MaxInt32`` (``1<<31 - 1``), ``math.MinInt64`` (``-1 << 63``) and
``math.MaxInt64`` (``1<<63 - 1``), Go ``src/math/const.go``. apimachinery's ``resource.Quantity`` gives a count as an
int64 (``Value``, ``AsInt64``) and holds its decimal exponent as an int32 (``Scale``). Imports nothing.
"""

from __future__ import annotations

__all__ = ["INT32_MAX", "INT32_MIN", "INT64_MAX", "INT64_MIN", "in_int32", "in_int64"]

#: The smallest int32 (Go ``math.MinInt32``).
INT32_MIN = -(2**31)
#: The largest int32 (Go ``math.MaxInt32``).
INT32_MAX = 2**31 - 1
#: The smallest int64 (Go ``math.MinInt64``).
INT64_MIN = -(2**63)
#: The largest int64 (Go ``math.MaxInt64``).
INT64_MAX = 2**63 - 1


def in_int32(number: int) -> bool:
    """Whether the whole number ``number`` is an int32: ``INT32_MIN <= number <= INT32_MAX``."""
    return INT32_MIN <= number <= INT32_MAX


def in_int64(number: int) -> bool:
    """Whether the whole number ``number`` is an int64: ``INT64_MIN <= number <= INT64_MAX``."""
    return INT64_MIN <= number <= INT64_MAX
