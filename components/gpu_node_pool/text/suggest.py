"""The "did you mean" of every message: the known names a mistyped one most likely stands for.

Closeness is :class:`difflib.SequenceMatcher`'s ratio (``2 * matches / total length``), as
:func:`difflib.get_close_matches` ranks it: the closest first, ties in reverse name order. ``difflib`` is
imported on the first suggestion, not with this module: most runs of ``gpupool`` never misspell anything.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["CUTOFF", "close_matches", "closest"]

#: The least ratio a name needs to be suggested unless a caller asks for another (``difflib``'s own default).
CUTOFF = 0.6


def close_matches(word: str, choices: Iterable[str], *, n: int, cutoff: float = CUTOFF) -> list[str]:
    """At most ``n`` of ``choices`` whose ratio to ``word`` is at least ``cutoff``, the closest first
    (:func:`difflib.get_close_matches`): ``close_matches("g6.3xlarge", types, n=3)``."""
    import difflib

    return difflib.get_close_matches(word, list(choices), n=n, cutoff=cutoff)


def closest(word: str, choices: Iterable[str], *, cutoff: float = CUTOFF) -> str | None:
    """The one of ``choices`` closest to ``word`` with a ratio of at least ``cutoff``, or None:
    ``closest("NoScheduel", ["NoSchedule", "NoExecute"]) == "NoSchedule"``."""
    near = close_matches(word, choices, n=1, cutoff=cutoff)
    return near[0] if near else None
