"""Long messages wrapped for a terminal, with nothing lost and nothing a reader copies broken apart.

A finding's message can run to a thousand characters on one line. :func:`wrap_text` breaks it into lines of at
most :data:`WIDTH` characters, filling each line as far as it goes, at spaces only: never inside a word (so never
inside a URN, a path, a type token or a URL, nor at a hyphen), and never at a space inside one of these spans, which
a reader copies whole:

- a quoted value, as ``repr`` writes one (``'bad value!'``, ``"true"``), opened at the start of a word and
  closed by the same quote at the end of one;
- a backquoted command (```helm pull ... --version 0.20.0```);
- a YAML flow mapping (``{key: nvidia.com/gpu, operator: Exists}``), and a flow sequence holding one
  (``[key: 'cni.istio.io/not-ready', effect: 'NoSchedule']``); brackets are matched by depth;
- a YAML key and the quoted or bracketed value after it (``nvidia.com/gpu.present: "true"``,
  ``startupTaints: [...]``).

A span longer than the width stays whole on a line of its own: the only lines over the width.

Lossless: each break replaces exactly one space, so joining the lines (indent removed) with one space gives the
text back; in a run of spaces only the last one is a break, and a leading or trailing space is never one.
Pure; the text should be one line, escaped for a terminal (:func:`.terminal.escape_control`). Whitespace other
than a break (tabs, no-break spaces, a space that is no break) is kept as it is.

The spans are found by jumping from one character that may open a span to the next (a regular expression), and
each line's end by searching back from the end of its room for a space that is a break (``str.rfind``), so that
most characters are passed over in C and a line costs a few searches however many words it holds: a 1000-pool
plan's text report wraps about two thousand findings of a thousand characters each.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["WIDTH", "wrap_text"]

#: Columns of a wrapped line, its indent included.
WIDTH = 100

#: What may follow the closing quote of a quoted value: the end of its word.
_WORD_END = " ,.;:)]}"
#: What may come just before an opening quote or bracket at the start of a word.
_WORD_START = " ([{"
#: A character that may open a span; every other character is skipped at C speed.
_OPENER = re.compile(r"[`'\"{\[]")
#: The brackets of each kind, for matching by depth.
_BRACKETS = {"{": re.compile(r"[{}]"), "[": re.compile(r"[\[\]]")}


def _matching(text: str, start: int, open_: str) -> int | None:
    """The index of the bracket closing the one at ``start``, by depth; None when it is never closed."""
    depth = 0
    for m in _BRACKETS[open_].finditer(text, start):
        depth += 1 if m.group() == open_ else -1
        if depth == 0:
            return m.start()
    return None


def _closing_quote(text: str, start: int) -> int | None:
    """The index of the quote closing the one at ``start``: the next same quote that ends a word; None if none."""
    quote = text[start]
    i = text.find(quote, start + 1)
    while i >= 0:
        if i + 1 == len(text) or text[i + 1] in _WORD_END:
            return i
        i = text.find(quote, i + 1)
    return None


def _spans(text: str) -> list[tuple[int, int]]:
    """``(first, last)`` index of every span (module docstring) whose spaces are no break."""
    spans = []
    found = _OPENER.search(text)
    while found is not None:
        i = found.start()
        c = text[i]
        end = None
        if c == "`":
            end = text.find("`", i + 1)
            end = end if end > i else None
        elif c in "'\"":
            if i == 0 or text[i - 1] in _WORD_START:
                end = _closing_quote(text, i)
        else:
            end = _matching(text, i, c)
            if c == "[" and end is not None and ": " not in text[i:end] and "{" not in text[i:end]:
                end = None  # a list of words, not YAML: its items may go to the next line
        if end is not None:
            spans.append((i, end))
            i = end
        found = _OPENER.search(text, i + 1)
    return spans


def _glued(text: str) -> bytearray:
    """1 at every index inside a span (:func:`_spans`), 0 elsewhere."""
    glued = bytearray(len(text))
    for first, last in _spans(text):
        glued[first:last + 1] = b"\x01" * (last + 1 - first)
    return glued


def _breaks_at(text: str) -> Callable[[int], bool]:
    """Whether the space at an index of ``text`` is a break (module docstring): not in a run of spaces at the very
    start, not inside a span, not at the end, the last of a run, and not between a YAML key and its value."""
    glued = _glued(text)
    lead = len(text) - len(text.lstrip(" "))
    last = len(text) - 1

    def breaks(i: int) -> bool:
        return (lead < i < last and not glued[i] and text[i + 1] != " "
                and not (text[i - 1] == ":" and text[i + 1] in "'\"{["))

    return breaks


def wrap_text(text: str, width: int = WIDTH, indent: str = "") -> list[str]:
    """``text`` as lines of at most ``width`` characters, each starting with ``indent``, broken only at the spaces
    the module docstring says are breaks; a part longer than the room left stays whole on a line of its own.

    ``" ".join(line[len(indent):] for line in wrap_text(text, w, indent)) == text`` for every ``text``
    (one line; an empty ``text`` gives one line, ``indent``). Each line is as full as it can be: it ends at the last
    break that keeps it within ``width``.
    """
    room = width - len(indent)
    breaks = _breaks_at(text)
    lines: list[str] = []
    start = 0
    while len(text) - start > room:
        end = text.rfind(" ", start, start + room + 1) if room > 0 else -1
        while end >= 0 and not breaks(end):
            end = text.rfind(" ", start, end)
        if end < 0:  # the part is longer than the room: it ends at the next break, on a line of its own
            end = text.find(" ", start + max(room, 0) + 1)
            while end >= 0 and not breaks(end):
                end = text.find(" ", end + 1)
            if end < 0:
                break
        lines.append(indent + text[start:end])
        start = end + 1
    lines.append(indent + text[start:])
    return lines
