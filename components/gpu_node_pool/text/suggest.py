"""The "did you mean" of every message: the known names a mistyped one most likely stands for.

Closeness is :class:`difflib.SequenceMatcher`'s ratio (``2 * matches / total length``), as
:func:`difflib.get_close_matches` ranks it: the closest first, ties in reverse name order. Case is not a
difference: names are compared case-folded, and a name that differs from the word in case alone
(``on_demand`` for ``ON_DEMAND``, ``Deny`` for ``deny``) comes first, whatever the cutoff. ``difflib`` is
imported on the first suggestion, not with this module: most runs of ``gpupool`` never misspell anything.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["CUTOFF", "close_matches", "closest"]

#: The least ratio a name needs to be suggested unless a caller asks for another (``difflib``'s own default).
CUTOFF = 0.6


def close_matches(word: str, choices: Iterable[str], *, n: int, cutoff: float = CUTOFF) -> list[str]:
    """At most ``n`` of ``choices`` whose case-folded ratio to ``word`` is at least ``cutoff``, the closest first
    (:func:`difflib.get_close_matches` on case-folded names), those equal to ``word`` but for case before all:
    ``close_matches("g6.3xlarge", types, n=3)``, ``close_matches("on_demand", ["ON_DEMAND", "SPOT"], n=1) ==
    ["ON_DEMAND"]``."""
    import difflib

    by_fold: dict[str, list[str]] = {}
    for choice in choices:
        names = by_fold.setdefault(choice.casefold(), [])
        if choice not in names:
            names.append(choice)
    folded = word.casefold()
    near = difflib.get_close_matches(folded, list(by_fold), n=n, cutoff=cutoff)
    if folded in by_fold and folded not in near:
        near.insert(0, folded)
    near.sort(key=lambda f: f != folded)  # stable: the case-only match first, difflib's order after it
    return [name for f in near for name in by_fold[f]][:n]


def closest(word: str, choices: Iterable[str], *, cutoff: float = CUTOFF) -> str | None:
    """The one of ``choices`` closest to ``word`` with a case-folded ratio of at least ``cutoff``, or None:
    ``closest("NoScheduel", ["NoSchedule", "NoExecute"]) == "NoSchedule"``, ``closest("Deny", ["deny", "warn"])
    == "deny"``."""
    near = close_matches(word, choices, n=1, cutoff=cutoff)
    return near[0] if near else None
