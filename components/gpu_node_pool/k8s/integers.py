"""The range of a Kubernetes int64: the API's integer fields of Go type ``int64``, and the numbers Go's
``strconv.ParseInt(s, 10, 64)`` reads (node selector and toleration ``Gt``/``Lt`` values, kubelet config fields).

The bounds are Go's ``math.MinInt64`` (``-1 << 63``) and ``math.MaxInt64`` (``1<<63 - 1``), Go ``src/math/const.go``;
the Kubernetes API conventions give every integer field Go type ``int32`` or ``int64`` (kubernetes/community
``contributors/devel/sig-architecture/api-conventions.md``, "Primitive types"), and apimachinery's
``resource.Quantity`` gives a count as an int64 (``Value``, ``AsInt64``). Imports nothing.
"""

from __future__ import annotations

__all__ = ["INT64_MAX", "INT64_MIN", "in_int64"]

#: The smallest int64 (Go ``math.MinInt64``).
INT64_MIN = -(2**63)
#: The largest int64 (Go ``math.MaxInt64``).
INT64_MAX = 2**63 - 1


def in_int64(number: int) -> bool:
    """Whether the whole number ``number`` is an int64: ``INT64_MIN <= number <= INT64_MAX``."""
    return INT64_MIN <= number <= INT64_MAX
