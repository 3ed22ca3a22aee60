"""Validation patterns applied with Go's ``regexp`` meaning, as Kubernetes and the AWS SDKs apply them.

Python's ``re`` differs from Go's RE2 syntax in ways that let bad values through: ``$`` also
matches before a final ``"\\n"`` (so ``"present\\n"`` passes ``^[a-z]+$``), and ``\\d``, ``\\w``
and ``\\s`` match non-ASCII digits, letters and spaces. Every pattern the package applies goes
through this module, which compiles it with Go's meaning (https://pkg.go.dev/regexp/syntax):

- ``$`` (outside a character class) is end of text (Python ``\\Z``), Go's ``\\z`` too;
- ``\\d``, ``\\w``, ``\\b`` are ASCII (``re.ASCII``) and ``\\s`` is ``[\\t\\n\\f\\r ]``.

Two ways to apply a pattern:

- :func:`full_match` -- the whole value must match, as ``k8s.io/apimachinery``
  ``pkg/util/validation`` does (``regexp.MustCompile("^" + fmt + "$").MatchString``);
- :func:`pattern_search` -- a JSON-Schema / OpenAPI ``pattern`` (CRD schemas): found anywhere
  unless the pattern anchors itself (``regexp.MatchString``).

Both take a pattern string or a compiled pattern (its ``.pattern`` is used) and return False
for a value that is not a ``str``.
"""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = ["go_regexp", "full_match", "pattern_search"]

_GO_SPACE = r"[\t\n\f\r ]"


@functools.lru_cache(maxsize=256)
def _compile(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            pair = pattern[i : i + 2]
            if pair == r"\z" and not in_class:
                pair = r"\Z"
            elif pair == r"\s":
                pair = r"\t\n\f\r " if in_class else _GO_SPACE
            out.append(pair)
            i += 2
            continue
        if in_class:
            # "]" right after "[" or "[^" is a literal, as in Go
            if char == "]" and not (out[-1] == "[" or out[-1:] == ["^"] and out[-2:-1] == ["["]):
                in_class = False
        elif char == "[":
            in_class = True
        elif char == "$":
            char = r"\Z"
        out.append(char)
        i += 1
    return re.compile("".join(out), re.ASCII)


def go_regexp(pattern: str | re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` (RE2/Go syntax, a string or a compiled pattern) compiled with Go's meaning (cached).

    Raises ``re.error`` when the pattern is not valid.
    """
    return _compile(pattern.pattern if isinstance(pattern, re.Pattern) else pattern)


def full_match(pattern: str | re.Pattern[str], value: Any) -> bool:
    """True when all of ``value`` (a ``str``) matches ``pattern`` with Go's meaning; a trailing
    ``"\\n"``, ``"\\r"``, space or NUL is refused unless the pattern itself allows that character.
    """
    return isinstance(value, str) and go_regexp(pattern).fullmatch(value) is not None


def pattern_search(pattern: str | re.Pattern[str], value: Any) -> bool:
    """True when ``pattern`` is found in ``value`` (a ``str``) as Go's ``regexp.MatchString`` finds it:
    the JSON-Schema ``pattern`` of a CRD, anchored only where the pattern says ``^`` / ``$``.
    """
    return isinstance(value, str) and go_regexp(pattern).search(value) is not None
