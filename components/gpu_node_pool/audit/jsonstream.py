"""Read a JSON ``List`` document (``{"apiVersion": .., "items": [...], "kind": ..}``) one item at a time.

The standard library has no incremental JSON parser; this one decodes each value with
``json.JSONDecoder.raw_decode`` over a buffer refilled from the file, so that memory holds one
item (plus one read chunk), not the document. Values decode exactly as ``json.load`` decodes
them (same decoder); a top-level value that is not an object is decoded whole.

    stream = ListStream(path)
    for item in stream.items():   # each element of the top-level "items" array, in order
        ...
    stream.header                 # every other top-level key, complete once items() is exhausted

Errors: ``json.JSONDecodeError`` with the line, column and character offset in the file (as
``json.load`` gives them; also for ``NaN`` and ``Infinity``, which ``json.load`` takes and JSON has not); ``OSError``/``UnicodeDecodeError`` from reading the file (UTF-8, a byte order mark skipped),
``NotRegularFileError`` for a path that is no regular file (a FIFO is refused, not waited on:
:func:`gpu_node_pool.sdk.files.open_input`).
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..sdk.files import open_input

__all__ = ["ListStream", "NOT_AN_OBJECT"]

_WS = re.compile(r"[ \t\n\r]*")


class _NotJson(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity``, which Python's decoder takes and JSON has not (RFC 8259, section 6:
    "Numeric values that cannot be represented in the grammar below (such as Infinity and NaN) are not permitted",
    https://www.rfc-editor.org/rfc/rfc8259#section-6)."""


def _refuse_constant(name: str) -> Any:
    raise _NotJson(name)


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
#: A JSON string (skipped whole) or one of the constants :class:`_NotJson` names: the first match of the second
#: kind, from where a value starts, is where the constant is.
_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(NaN|-?Infinity)')
_CHUNK = 1 << 20  # characters per read
#: ``header`` key holding a top-level value that is not an object (decoded whole).
NOT_AN_OBJECT = "\0document"


def _maybe_cut(err: json.JSONDecodeError, size: int) -> bool:
    """Whether ``err`` may come from the buffer's end rather than from the document: an error at
    its last characters, or a string that runs to it (a string cannot hold a raw newline, so one
    unterminated in the document itself ends at a control character, a different error)."""
    return err.pos >= size - 16 or err.msg.startswith("Unterminated string")


class ListStream:
    """One pass over ``path``; :meth:`items` may be called once. ``option`` and ``fix`` name the option that gave the
    path and the remedy, for the refusal of a path that is no regular file (:func:`~gpu_node_pool.sdk.files.open_input`)."""

    def __init__(self, path: str | Path, chunk: int = _CHUNK, *, option: str | None = None,
                 fix: str | None = None) -> None:
        self.path = Path(path)
        self._option, self._fix = option, fix
        self.header: dict[str, Any] = {}
        self._chunk = chunk
        self._buf = ""
        self._pos = 0
        self._base = 0  # offset in the file of _buf[0]
        self._lines = 0  # newlines in the file before _buf[0]
        self._line_start = 0  # offset in the file just after the last of those newlines
        self._eof = False
        self._file: Any = None

    # --- buffer ------------------------------------------------------------------------------
    def _fill(self, at_least: int = 0) -> bool:
        """Drop what was consumed and read more; False at the end of the file."""
        if self._eof:
            return False
        more = self._file.read(max(self._chunk, at_least))
        if not more:
            self._eof = True
            return False
        done = self._buf[: self._pos]
        newlines = done.count("\n")
        if newlines:
            self._lines += newlines
            self._line_start = self._base + done.rindex("\n") + 1
        self._base += self._pos
        self._buf = self._buf[self._pos:] + more
        self._pos = 0
        return True

    def _peek(self) -> str:
        """The next non-blank character ('' at the end), not consumed."""
        while True:
            self._pos = _WS.match(self._buf, self._pos).end()
            if self._pos < len(self._buf) or not self._fill():
                return self._buf[self._pos: self._pos + 1]

    def _error(self, msg: str, pos: int) -> json.JSONDecodeError:
        """A ``JSONDecodeError`` at buffer position ``pos``, located in the file."""
        before = self._buf[:pos]
        newlines = before.count("\n")
        line_start = self._base + before.rindex("\n") + 1 if newlines else self._line_start
        err = json.JSONDecodeError(msg, "", 0)
        err.pos, err.lineno, err.colno = self._base + pos, self._lines + newlines + 1, self._base + pos - line_start + 1
        err.args = (f"{msg}: line {err.lineno} column {err.colno} (char {err.pos})",)
        return err

    def _expect(self, chars: str, what: str) -> str:
        found = self._peek()
        if not found or found not in chars:
            raise self._error(f"Expecting {what}", self._pos)
        self._pos += 1
        return found

    def _value(self) -> Any:
        """Decode the next value, reading more until it is complete."""
        self._peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self._buf, self._pos)
            except json.JSONDecodeError as err:
                if _maybe_cut(err, len(self._buf)) and self._fill(at_least=len(self._buf)):
                    continue  # the value goes on past the buffer: read more (doubling), decode again
                raise self._error(err.msg, err.pos) from None
            except _NotJson as err:  # Python's decoder takes it; JSON has no such number
                found = next((m for m in _CONSTANT.finditer(self._buf, self._pos) if m.group(1)), None)
                raise self._error(f"{err} is not a JSON number (JSON has no NaN or Infinity: RFC 8259 section 6)",
                                  found.start(1) if found else self._pos) from None
            except RecursionError:  # nesting deeper than the decoder's stack: no Kubernetes object is
                raise self._error("Nesting too deep (no Kubernetes object nests this deep)", self._pos) from None
            if end == len(self._buf) and self._fill():  # a number may go on past the buffer
                continue
            self._pos = end
            return value

    # --- document ----------------------------------------------------------------------------
    def items(self) -> Iterator[Any]:
        """Each element of the top-level ``items`` array; the other keys go to :attr:`header`."""
        with io.TextIOWrapper(open_input(self.path, self._option, self._fix), encoding="utf-8-sig") as self._file:
            if self._peek() != "{":
                self.header[NOT_AN_OBJECT] = self._value()
            else:
                self._pos += 1
                if self._peek() == "}":
                    self._pos += 1
                else:
                    while True:
                        if self._peek() != '"':
                            raise self._error("Expecting property name enclosed in double quotes", self._pos)
                        key = self._value()
                        self._expect(":", "':' delimiter")
                        if key == "items" and self._peek() == "[":
                            self.header.pop("items", None)
                            yield from self._array()
                        else:
                            self.header[key] = self._value()
                        if self._expect(",}", "',' delimiter") == "}":
                            break
            if self._peek():
                raise self._error("Extra data", self._pos)

    def _array(self) -> Iterator[Any]:
        self._pos += 1  # "["
        if self._peek() == "]":
            self._pos += 1
            self.header["items"] = []
            return
        while True:
            yield self._value()
            if self._expect(",]", "',' delimiter") == "]":
                self.header["items"] = []  # a list was there (its items were handed out)
                return
