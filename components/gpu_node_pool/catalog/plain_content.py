"""A hashable stand-in for plain data (JSON-like: dicts, lists, tuples, strings, numbers, booleans, None) that keeps
every difference a reader of the data could see, and the data back from it: the key under which
:func:`~gpu_node_pool.catalog.requirements.kept_evaluation` keeps an answer. Pure."""

from __future__ import annotations

from typing import Any

__all__ = ["SCALARS", "content", "thaw"]

#: Scalars :func:`content` keeps with their type: 1, 1.0 and True are equal keys, but not equal values to read.
SCALARS = (bool, int, float)


def content(value: Any) -> Any:
    """A hashable stand-in for plain ``value`` that tells apart every difference a reader could see (``1``, ``1.0``
    and ``True`` are three keys): each container and number with its type, mappings in their order.

    Raises:
        TypeError: ``value`` holds anything but plain data."""
    kind = type(value)
    if kind is str or value is None:
        return value
    if kind in SCALARS:
        return (kind, value)
    if kind is dict:
        return (dict, tuple((content(k), content(v)) for k, v in value.items()))
    if kind is list or kind is tuple:
        return (kind, tuple(content(v) for v in value))
    raise TypeError(f"not plain data: {kind.__name__}")


def thaw(made: Any) -> Any:
    """The plain data :func:`content` made ``made`` from (an equal copy)."""
    if made is None or type(made) is str:
        return made
    kind, inner = made
    if kind is dict:
        return {thaw(k): thaw(v) for k, v in inner}
    if kind is list or kind is tuple:
        return kind(thaw(v) for v in inner)
    return inner
