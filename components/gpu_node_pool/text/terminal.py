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
from types import BuiltinFunctionType, FunctionType, MethodType, MethodWrapperType

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
    text = _text(value, quote, frozenset())
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


#: The memory address Python's default ``repr`` ends with (``<Foo object at 0x7f3a...>``), which says nothing to
#: a user and differs from run to run.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")
#: Objects whose ``repr`` Python writes with their address: functions and methods (``<function f at 0x...>``).
_ADDRESSED = (FunctionType, MethodType, BuiltinFunctionType, MethodWrapperType)


#: The built-in containers :func:`_text` writes item by item, with their brackets.
_BRACKETS: dict[type, tuple[str, str]] = {
    list: ("[", "]"), tuple: ("(", ")"), set: ("{", "}"), frozenset: ("frozenset({", "})"), dict: ("{", "}"),
}


def _text(value: object, quote: bool, seen: frozenset[int]) -> str:
    """``repr(value)`` (``str`` with ``quote=False``) with the address left out of every Python default ``repr``
    (:func:`_default_repr`), a built-in container's items written the same way one by one; a string is never
    changed, inside a container or not."""
    kind = type(value)
    if kind not in _BRACKETS:
        text = repr(value) if quote else str(value)
        return _ADDRESS.sub(">", text) if _default_repr(value, quote) else text  # <pulumi.output.Output object>
    if id(value) in seen:  # a container holding itself, as repr writes it
        return "[...]" if kind is list else "{...}"
    if kind in (set, frozenset) and not value:
        return f"{kind.__name__}()"
    inner = seen | {id(value)}
    if isinstance(value, dict):
        items = [f"{_text(k, True, inner)}: {_text(v, True, inner)}" for k, v in value.items()]
    else:
        items = [_text(item, True, inner) for item in value]  # type: ignore[attr-defined]
    start, end = _BRACKETS[kind]
    return start + ", ".join(items) + ("," if kind is tuple and len(items) == 1 else "") + end


def _default_repr(value: object, quote: bool) -> bool:
    """Whether ``repr(value)`` (``str`` with ``quote=False``) is Python's own, ending with the object's address:
    its class writes neither (``object.__repr__``), or it is a function or method. Not a container's ``repr``,
    whose items' text (a user's string holding " at 0x1f>") is shown as it is."""
    if isinstance(value, _ADDRESSED):
        return True
    kind = type(value)
    return kind.__repr__ is object.__repr__ and (quote or kind.__str__ is object.__str__)
