"""Text for a terminal: control characters in names, messages and values shown escaped.

Every human-readable report of ``gpupool`` (plan, check, render, validate, audit and the error
lines) prints strings it did not write: object names and Event messages from a cluster dump,
chart values, stack-file values, a program's exception text. A newline in one of them can forge
a line of the report (``exit 0: clean``), and an ``ESC`` sequence can move the cursor, recolour
or retitle the terminal. kubectl fixed the same class (CVE-2021-25743; "Escape terminal special
characters in kubectl", https://github.com/kubernetes/kubernetes/pull/112553,
``staging/src/k8s.io/cli-runtime/pkg/printers/terminal.go``). Here every report is built as a
list of lines and joined by :func:`terminal_text`, which escapes each line with
:func:`escape_control`; what a line holds can then never start another line.

Escaped (Python's spelling, so the text stays ASCII-readable): every C0 control (U+0000-U+001F,
``\\n``, ``\\r``, ``\\t`` by name, others ``\\xNN``), DEL and the C1 controls (U+007F-U+009F,
``\\x9b`` is the one-byte CSI), the Unicode line and paragraph separators (U+2028, U+2029:
``str.splitlines`` splits on them) and the bidirectional formatting characters (U+061C,
U+200E, U+200F, U+202A-U+202E, U+2066-U+2069, which reorder what is shown, CVE-2021-42574).
Backslashes are kept as they are. Pure; the JSON reports need none of this (``json.dumps``
escapes every control character).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["MAX_SHOWN", "escape_control", "shown", "terminal_text"]

#: Characters of a value shown in a message before it is cut (:func:`shown`).
MAX_SHOWN = 80

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_BIDI = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
_TABLE = {
    **{c: _NAMED.get(chr(c), f"\\x{c:02x}") for c in (*range(0x20), *range(0x7F, 0xA0))},
    **{c: f"\\u{c:04x}" for c in (0x2028, 0x2029, *_BIDI)},
}

#: Any character of :data:`_TABLE`: most lines hold none, and a search in C finds that without
#: looking each character up in the table.
_ESCAPED = re.compile("[" + "".join(re.escape(chr(c)) for c in _TABLE) + "]")


def escape_control(text: object) -> str:
    """``str(text)`` with every control character escaped (see the module docstring): one line,
    safe to print; printable text, non-ASCII letters included, is unchanged."""
    line = str(text)
    return line if _ESCAPED.search(line) is None else line.translate(_TABLE)


def terminal_text(lines: Iterable[object]) -> str:
    """The lines of a report joined by newlines, each escaped with :func:`escape_control`.

    ``lines``: one item per printed line (an empty string for a blank line); a newline inside
    an item is shown as ``\\n``, never as a line break.
    """
    return "\n".join(escape_control(line) for line in lines)


def shown(value: object, *, quote: bool = True, limit: int = MAX_SHOWN) -> str:
    """``value`` as a message shows it: ``repr`` (or ``str`` with ``quote=False``), cut after
    ``limit`` characters with its full length said (``'aaaa...' (5000000 characters)``).

    The ``repr`` of a container is built only up to the cut (a list of 10,000 tolerations is not
    rendered whole to show 80 characters of it).
    """
    if isinstance(value, str):
        head = value[: limit + 1]
        text = repr(head) if quote else head
        if len(value) <= limit:
            return text
        return f"{repr(value[:limit]) if quote else value[:limit]}... ({len(value)} characters)"
    if isinstance(value, (list, tuple, dict, set)) and len(value) > limit:
        return f"{type(value).__name__} of {len(value)} items"
    text = _ADDRESS.sub(">", repr(value) if quote else str(value))  # <pulumi.output.Output object>: no address
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


#: The memory address Python's default ``repr`` ends with (``<Foo object at 0x7f3a...>``), which says nothing to
#: a user and differs from run to run.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")
