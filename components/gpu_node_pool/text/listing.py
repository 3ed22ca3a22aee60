"""Several names in one message, written as the product's messages write them: ``a, b, c``.

A message never prints a Python list (``['p5.48xlarge']``): it names the items joined by ``", "``, at most ``most``
of them then ``and N more``, each as :func:`~gpu_node_pool.text.terminal.shown` shows it (quoted with ``quote``, for
a value the user wrote), as the plan's other lists are (``policies/placement.py``, ``plan/render_out.py``). Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .terminal import shown

__all__ = ["listed", "listed_counts"]


def listed(values: Iterable[object], most: int | None = None, *, quote: bool = False) -> str:
    """``values`` as ``a, b, c`` (``""`` for none); past ``most`` items, the first ``most`` and ``and N more``:
    ``listed(["g6.xlarge", "g6.2xlarge", "g6.4xlarge"], 2) == "g6.xlarge, g6.2xlarge and 1 more"``."""
    items = list(values)
    head = ", ".join(shown(v, quote=quote) for v in items[:most])
    rest = len(items) - most if most is not None and len(items) > most else 0
    return f"{head} and {rest} more" if rest else head


def listed_counts(counts: Mapping[str, object]) -> str:
    """``{name: count}`` as ``name: count, ...`` in name order: ``g6e.48xlarge: 4, p5.48xlarge: 32``."""
    return ", ".join(f"{shown(k, quote=False)}: {v}" for k, v in sorted(counts.items()))
