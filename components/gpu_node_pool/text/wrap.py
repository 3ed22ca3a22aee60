"""Long messages wrapped for a terminal, with nothing lost and nothing a reader copies broken apart.

A finding's message can run to a thousand characters on one line. :func:`wrap_text` breaks it into lines of at
most :data:`WIDTH` characters with :class:`textwrap.TextWrapper`, at spaces only: never inside a word (so never
inside a URN, a path, a type token or a URL: ``break_long_words`` and ``break_on_hyphens`` are off), and never at
a space inside one of these spans, which a reader copies whole:

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
than a break (tabs, no-break spaces) is hidden from :mod:`textwrap`, which would break or drop it, and kept.
"""

from __future__ import annotations

import textwrap

__all__ = ["WIDTH", "break_points", "wrap_text"]

#: Columns of a wrapped line, its indent included.
WIDTH = 100

#: What may follow the closing quote of a quoted value: the end of its word.
_WORD_END = " ,.;:)]}"
#: What may come just before an opening quote or bracket at the start of a word.
_WORD_START = " ([{"


def _matching(text: str, start: int, open_: str, close: str) -> int | None:
    """The index of the bracket closing the one at ``start``, by depth; None when it is never closed."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i
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
    i = 0
    while i < len(text):
        c = text[i]
        starts_word = i == 0 or text[i - 1] in _WORD_START
        end = None
        if c == "`":
            end = text.find("`", i + 1)
            end = end if end > i else None
        elif c in "'\"" and starts_word:
            end = _closing_quote(text, i)
        elif c == "{":
            end = _matching(text, i, "{", "}")
        elif c == "[":
            end = _matching(text, i, "[", "]")
            if end is not None and ": " not in text[i:end] and "{" not in text[i:end]:
                end = None  # a list of words, not YAML: its items may go to the next line
        if end is not None:
            spans.append((i, end))
            i = end + 1
        else:
            i += 1
    return spans


def break_points(text: str) -> list[int]:
    """The indexes of the spaces of ``text`` where :func:`wrap_text` may break a line, in order (module docstring)."""
    glued = bytearray(len(text))
    for first, last in _spans(text):
        glued[first:last + 1] = b"\x01" * (last + 1 - first)
    points = []
    for i, c in enumerate(text):
        if c != " " or glued[i] or i == 0 or i + 1 == len(text) or text[i + 1] == " ":
            continue  # not a space, inside a span, at an end, or not the last of a run
        if text[i - 1] == ":" and text[i + 1] in "'\"{[":
            continue  # a YAML key and its value
        if text[:i].strip(" "):  # a run of spaces at the very start is never a break
            points.append(i)
    return points


def _stand_ins(text: str) -> dict[str, str]:
    """A private-use character ``text`` does not hold for each whitespace character of it (spaces that are no
    break, tabs, no-break spaces...), to hide them from :mod:`textwrap`, which would break or drop them."""
    free = (chr(c) for c in range(0xE000, 0xF900) if chr(c) not in text)
    return {c: next(free) for c in dict.fromkeys(text) if c.isspace()}


def wrap_text(text: str, width: int = WIDTH, indent: str = "") -> list[str]:
    """``text`` as lines of at most ``width`` characters, each starting with ``indent``, broken only at
    :func:`break_points`; a part longer than the room left stays whole on a line of its own.

    ``" ".join(line[len(indent):] for line in wrap_text(text, w, indent)) == text`` for every ``text``
    (one line; an empty ``text`` gives one line, ``indent``).
    """
    if not text:
        return [indent]
    points = set(break_points(text))
    stand_in = _stand_ins(text)
    guarded = "".join(c if i in points else stand_in.get(c, c) for i, c in enumerate(text))
    back = str.maketrans({v: k for k, v in stand_in.items()})
    wrapper = textwrap.TextWrapper(width=width, initial_indent=indent, subsequent_indent=indent, expand_tabs=False,
                                   replace_whitespace=False, break_long_words=False, break_on_hyphens=False)
    return [line.translate(back) for line in wrapper.wrap(guarded)]
