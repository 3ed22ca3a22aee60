"""A stack file's YAML read strictly and as Pulumi reads it: libyaml's parser with PyYAML's safe constructors,
plain scalars resolved as Pulumi's YAML reader resolves them (:mod:`.pulumi_scalars`), duplicate keys recorded,
aliases bounded, numbers in other forms than plain decimals kept with their text, nesting bounded, and the
values JSON (so Pulumi's config) has no form for found with their config path.
:func:`gpu_node_pool.config.loading.read_stack_file` uses it; nothing here knows Pulumi's config form or the
pool models."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

import yaml

from ..sdk.yaml_bounded import MAP_TAG, SEQ_TAG, STR_TAG, TAG_ERRORS, AliasExpansionError, check_expansion
from .defaults import PROJECT
from .errors import ConfigIssue
from .locations import FileMarks
from .pulumi_scalars import NON_FINITE, AsWritten, PulumiTimestamp
from .pulumi_yaml import BOOL_TAG, FLOAT_TAG, INT_TAG, NULL_TAG, TIMESTAMP_TAG, PulumiScalarLoader, construct_number

__all__ = ["MAX_EXPANDED_VALUES", "MAX_NESTING", "AliasExpansionError", "duplicate_key_problem"]


#: Most values a stack file's aliases (``*name``) may add to those it writes out, once each is
#: replaced by what its anchor (``&name``) holds. A stack config's aliases add a few hundred; nine
#: levels of ten aliases each (the "billion laughs") would add 10^9, which no check or encoder below
#: would finish. A large file that writes its values out is not bounded here.
MAX_EXPANDED_VALUES = 50_000


def _check_alias_expansion(root: yaml.Node, limit: int = MAX_EXPANDED_VALUES, anchorless: bool = False) -> None:
    """:func:`gpu_node_pool.sdk.yaml_bounded.check_expansion` with the stack file's bound and advice: no
    value may expand to more than the nodes the file writes plus ``limit``.

    ``anchorless``: the text has no ``&``, so no anchor and no alias: the document is a tree, no value
    expands beyond what is written, and there is nothing to check."""
    if anchorless:
        return
    check_expansion(root, limit, "a stack config's aliases add a few hundred: write the values out or use fewer aliases",
                    written=_written(root))


def _written(root: yaml.Node) -> int:
    """How many nodes the document under ``root`` writes out (an anchored node once, however often aliased)."""
    seen: set[int] = set()
    todo = [root]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if type(node) is yaml.MappingNode:
            for pair in node.value:
                todo += pair
        elif type(node) is yaml.SequenceNode:
            todo += node.value
    return len(seen)


#: The tag of a merge key (``<<: *base``): constructing its mapping rewrites the composed node.
_MERGE_TAG = "tag:yaml.org,2002:merge"
_STR_TAG, _MAP_TAG, _SEQ_TAG = STR_TAG, MAP_TAG, SEQ_TAG
_NUMBER_TAGS = frozenset((INT_TAG, FLOAT_TAG))
_CONSTANT_TAGS = frozenset((BOOL_TAG, NULL_TAG))


def duplicate_key_problem(key: str, line: int, first: int) -> str:
    """Why a mapping key written twice (``key``, as written, on ``line`` and first on ``first``) is refused: the
    Pulumi CLI refuses the stack file. Its YAML reader, gopkg.in/yaml.v3, decodes with unique keys
    (``yaml.Unmarshal``): ``(*decoder).mapping`` in ``decode.go`` compares every two keys of a mapping by kind and
    text and fails with ``line N: mapping key "x" already defined at line M``, so ``pulumi preview`` and
    ``pulumi up`` stop before the program runs (PyYAML alone would keep the last value)."""
    quoted = json.dumps(key, ensure_ascii=False)  # as Go's %#v quotes a string
    return (f"key {key!r} appears again (first on line {first}); Pulumi refuses the stack file: its YAML reader, "
            f"gopkg.in/yaml.v3, fails on a mapping with a key written twice ('line {line}: mapping key {quoted} "
            f"already defined at line {first}', go-yaml decode.go, (*decoder).mapping), so pulumi preview stops "
            f"before the program runs; keep one of the two")


class _NotATree(Exception):
    """A document :meth:`_StrictLoader._construct_tree` leaves to PyYAML's own construction."""


class _StrictLoader(PulumiScalarLoader):
    """:class:`.pulumi_yaml.PulumiScalarLoader` (libyaml's C parser when available), recording duplicate mapping
    keys (which Pulumi refuses: :func:`duplicate_key_problem`) instead of keeping the last silently. A plain scalar
    is what Pulumi's YAML reader makes of it (``yes`` and dates are strings, ``true``/``false`` the only booleans);
    numbers not written as plain decimals are refused after loading.
    Aliases are bounded: see :func:`_check_alias_expansion`. ``marks``, when set, keeps the composed
    document for the file:line of errors, and is walked before a merge key rewrites it."""

    marks: FileMarks | None = None
    #: The text has no ``&``: no anchors, so no aliases (see :func:`_check_alias_expansion`).
    anchorless = False

    #: Set by :meth:`get_single_data`: how many mappings/lists deep the document goes, and whether
    #: it holds a number JSON has no form for or written in another form than a plain decimal
    #: (:class:`_NotJson`, :class:`_NumberForm`); None when not known.
    depth: int | None = None
    odd_numbers: bool | None = None
    #: ``(line, column, tag)`` (1-based) of the first value its explicit tag could not read (``!!int abc``), as
    #: construction met it; None when none did.
    tag_error: tuple[int, int, str] | None = None

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._text, self._lines = stream, None

    def text_lines(self) -> list[str]:
        """The document's lines (for the text of a value as written), split on first use."""
        if self._lines is None:
            self._lines = self._text.splitlines()
        return self._lines

    def get_single_data(self) -> Any:
        node = self.get_single_node()
        if self.marks is not None:
            self.marks.keep(node)
        if node is None:
            return None
        _check_alias_expansion(node, anchorless=self.anchorless)
        if self.anchorless:
            try:
                return self._construct_tree(node)
            except _NotATree:
                self.duplicates.clear()
                self.depth = self.odd_numbers = None
        return self.construct_document(node)

    def _construct_tree(self, root: yaml.Node) -> Any:
        """What :meth:`construct_document` builds from ``root``, for a document that is a tree (no anchors,
        so no node twice) of mappings with plain string keys, lists, and str/int/float/bool/null scalars,
        which is what a stack file is; sets :attr:`depth` and :attr:`odd_numbers` on the way.

        Containers are filled in the order :meth:`construct_document` fills them (breadth first, as its
        state generators run), so duplicate keys are recorded in the same order, and each scalar by the
        constructor registered for its tag (a ``str`` scalar is its text, as ``construct_yaml_str`` returns).

        Raises:
            _NotATree: any other node (a merge key, another tag, a key that is not a string), before any
                node is changed; :meth:`construct_document` then builds the document from the start.
        """
        constructors, duplicates = self.yaml_constructors, self.duplicates
        todo: list[tuple[yaml.Node, Any, int]] = []
        numbers = 0

        def start(node: yaml.Node, depth: int) -> Any:
            nonlocal numbers
            kind, tag = type(node), node.tag
            if kind is yaml.ScalarNode:
                if tag == _STR_TAG:
                    return node.value
                try:
                    if tag in _NUMBER_TAGS or tag == TIMESTAMP_TAG:
                        value = constructors[tag](self, node)
                        numbers += type(value) is not int and type(value) is not float
                        return value
                    if tag in _CONSTANT_TAGS:
                        return constructors[tag](self, node)
                except TAG_ERRORS:
                    self._tag_error(node)
                    raise
            elif kind is yaml.MappingNode and tag == _MAP_TAG or kind is yaml.SequenceNode and tag == _SEQ_TAG:
                out: Any = {} if kind is yaml.MappingNode else []
                todo.append((node, out, depth))
                return out
            raise _NotATree

        data = start(root, 1)
        deepest, index = 0, 0
        while index < len(todo):
            node, out, depth = todo[index]
            index += 1
            deepest = max(deepest, depth)
            if type(out) is list:
                out.extend([start(item, depth + 1) for item in node.value])
                continue
            seen: dict[str, int] = {}
            for key_node, _ in node.value:
                if type(key_node) is not yaml.ScalarNode or key_node.tag != _STR_TAG:
                    raise _NotATree
                key, line = key_node.value, key_node.start_mark.line + 1
                if key in seen:
                    duplicates.append((duplicate_key_problem(key, line, seen[key]), line, key_node.start_mark.column + 1))
                else:
                    seen[key] = line
            for key_node, value_node in node.value:
                out[key_node.value] = start(value_node, depth + 1)
        self.depth, self.odd_numbers = deepest, numbers > 0
        return data

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except TAG_ERRORS:
            self._tag_error(node)
            raise

    def _tag_error(self, node: yaml.Node) -> None:
        if self.tag_error is None:  # the innermost node: the value itself, not the mapping holding it
            self.tag_error = (node.start_mark.line + 1, node.start_mark.column + 1, node.tag)

    def flatten_mapping(self, node: Any) -> None:
        if self.marks is not None and any(key_node.tag == _MERGE_TAG for key_node, _ in node.value):
            self.marks.walk()  # the marks of the file as written, before the merge rewrites node.value
            self.marks = None
        super().flatten_mapping(node)

    def _key(self, key_node: yaml.Node) -> Any:
        """A mapping key as constructed, a number as :class:`_NumberForm` (a key must be a string: one that is a
        number is reported with the text written, ``1.30``, not the 1.3 a program would get)."""
        key = self.construct_object(key_node, deep=True)
        if type(key) is int or type(key) is float:
            return _NumberForm(str(key_node.value), key)
        return key

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: dict[str, int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                continue  # a mapping or list as a key: refused as a key that is no string
            # yaml.v3 compares keys by their text, as written ("1" and 1 are the same key; true and True are not)
            key, line = str(key_node.value), key_node.start_mark.line + 1
            if key in seen:
                self.duplicates.append((duplicate_key_problem(key, line, seen[key]), line, key_node.start_mark.column + 1))
            else:
                seen[key] = line
        mapping = super().construct_mapping(node, deep=deep)
        if any(key_node.tag in _NUMBER_TAGS for key_node, _ in node.value):  # node.value as merge keys left it
            mapping = {self._key(key_node): self.construct_object(value_node, deep=deep) for key_node, value_node in node.value}
        return mapping


#: A number written as a plain decimal, as JSON and every YAML reader read it alike (``10``, ``-1.5``, ``.5``,
#: ``1e3``). Pulumi reads other forms as numbers too (``010`` is 8, ``0x10`` 16, ``1_0`` 10), which a reader
#: of the file seldom expects: those are refused with the decimal to write.
_DECIMAL = re.compile(r"[-+]?((0|[1-9][0-9]*)(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?")


class _NumberForm(AsWritten):
    """A plain scalar Pulumi's YAML reader reads as a number written in another form than a plain decimal
    (``010``, ``0x10``, ``0o17``, ``0b11``, ``1_0``, ``08``); kept with its text so that
    :func:`_yaml_type_problems` reports it with its path. A mapping key that is a number in any form is kept
    so too (:meth:`_StrictLoader._key`), and reported by :func:`_key_problem` with that text."""

    __slots__ = ("value",)

    def __init__(self, text: str, value: int | float) -> None:
        super().__init__(text)
        self.value = value

    def problem(self, takes: str | None = None) -> str:
        """``<text> is <how> to Pulumi ...`` and the fix for what the setting takes (one line).

        ``takes`` is what the setting at the value's path holds: ``"text"`` (only quoting keeps ``0x1F`` as written;
        the decimal would be refused as a number where text belongs), ``"number"`` (the plain decimal to write;
        quoted, it would be text), ``"bool"`` (neither: true or false), or None when that is not known (both fixes,
        each with its case)."""
        text, value = self.text, self.value
        digits = text.lstrip("+-").replace("_", "")
        prefix = digits[:2].lower()
        if prefix == "0x":
            how = f"the hexadecimal number {value}"
        elif prefix == "0b":
            how = f"the binary number {value}"
        elif prefix == "0o" or digits[:1] == "0" and digits.isdigit() and set(digits) <= set("01234567"):
            how = f"the octal number {value}" + (" (a leading 0 is octal)" if prefix != "0o" else "")
        else:
            how = f"the number {value}"
        if "_" in text:
            how += " ('_' is dropped)"
        meant = None
        if digits.isdigit() and prefix not in ("0x", "0b", "0o"):
            meant = str(int(digits, 10))  # 010 was most likely meant as ten
        decimal = f"{meant} (or {value})" if meant is not None and meant != str(value) else f"{value}"
        said = f"{text} is {how} to Pulumi (its YAML reader, gopkg.in/yaml.v3)"
        if takes == "text":
            return f"{said}, and this setting is text: quote it (\"{text}\")"
        if takes == "number":
            return f"{said}; write {decimal} as a plain decimal"
        if takes == "bool":
            return f"{said}, and this setting is true or false: write true or false"
        return f"{said}; quote it (\"{text}\") if it is text, or write {decimal} as a plain decimal if it is a number"


def _construct_number(loader: Any, node: Any) -> Any:
    """The number a program receives (:func:`.pulumi_yaml.construct_number`); a form other than a plain decimal
    as :class:`_NumberForm`, NaN and the infinities as :class:`_NotJson`, for :func:`_yaml_type_problems`.

    Raises:
        ValueError: an explicit ``!!int``/``!!float`` on a text that is no number (``!!int abc``)."""
    text = str(node.value)
    if text in NON_FINITE:
        return _NotJson("nonfinite", text)
    value = construct_number(loader, node)
    return value if _DECIMAL.fullmatch(text) else _NumberForm(text, value)


_StrictLoader.add_constructor(INT_TAG, _construct_number)
_StrictLoader.add_constructor(FLOAT_TAG, _construct_number)


class _NotJson(AsWritten):
    """A value JSON (and so Pulumi's config) has no form for: NaN or an infinity (``.nan``, ``.inf``), or a value
    of an explicit ``!!binary``, ``!!set``, ``!!omap`` or ``!!pairs`` tag (``tag``); kept with the text as written
    so that :func:`_yaml_type_problems` shows that text, not Python's ``repr`` of what PyYAML would build."""

    __slots__ = ("tag",)

    def __init__(self, tag: str, text: str) -> None:
        super().__init__(text)
        self.tag = tag

    def problem(self) -> str:
        """What the value is and the fix (a finite number; no explicit tag), one line."""
        shown = self.text if len(self.text) <= 80 else self.text[:80] + "..."
        if self.tag == "nonfinite":
            return (f"{shown} is a number JSON has no form for, so Pulumi cannot load the stack file (Go's "
                    f"encoding/json: unsupported value); write a finite number, or quote it (\"{shown}\") if it is a string")
        written = shown if shown.startswith("!") else f"!!{self.tag} {shown}"
        return f"{written} is a YAML {self.tag} value, which JSON and Pulumi's config do not have; " \
               "remove the tag and write a plain string, list or mapping (a stack config needs no tags)"


def _as_written(loader: Any, node: Any) -> str:
    """A node's text as written: a scalar's value, or a collection's flow text on its first line."""
    if isinstance(node, yaml.ScalarNode):
        return " ".join(str(node.value).split())
    start, end = node.start_mark, node.end_mark
    line = loader.text_lines()[start.line] if start.line < len(loader.text_lines()) else ""
    stop = end.column if end.line == start.line else len(line)
    return line[start.column:stop].strip() or "..."


def _construct_not_json(loader: Any, node: Any) -> _NotJson:
    if node.tag.endswith(":binary"):  # a text its tag cannot read (`!!binary ~`) raises as PyYAML raises it
        loader.construct_yaml_binary(node)
    return _NotJson(node.tag.rsplit(":", 1)[-1], _as_written(loader, node))


for _tag in ("binary", "set", "omap", "pairs"):
    _StrictLoader.add_constructor(f"tag:yaml.org,2002:{_tag}", _construct_not_json)


def _python_parser_error(text: str) -> yaml.YAMLError | None:
    """The pure-Python parser's error for ``text`` (its wording is clearer than libyaml's "did not find
    expected ..."); only called once a file has already failed to parse, so the fast path keeps libyaml."""
    try:
        yaml.load(text, Loader=yaml.SafeLoader)  # noqa: S506 - the safe loader
    except yaml.YAMLError as err:
        return err
    except (RecursionError, ValueError):  # too deep, or a number too long, for the pure-Python parser: keep libyaml's
        return None
    return None


def _config_path(top: str, rest: tuple[Any, ...]) -> str:
    ns, _, key = top.rpartition(":")
    out = key if ns in ("", PROJECT) else top
    for part in rest:
        out += f"[{part}]" if isinstance(part, int) else (f"[{part!r}]" if any(c in str(part) for c in "./:") else f".{part}")
    return out


def _key_problem(key: Any) -> str:
    """Why a mapping key YAML did not read as a string is refused, with the key as the user wrote it
    where it is kept (a number's text), else as YAML reads it (a boolean: ``TRUE`` is true)."""
    if isinstance(key, bool):
        what = f"the boolean {str(key).lower()}"
    elif key is None:
        what = "null (~ and null are null)"
    elif isinstance(key, _NumberForm | int | float):
        what = f"a number ({key!r})"
    elif isinstance(key, _NotJson):
        what = f"a {'number JSON has no form for' if key.tag == 'nonfinite' else key.tag} ({key!r})"
    elif isinstance(key, PulumiTimestamp):
        what = f"a date and time ({key!r})"
    else:
        what = f"a {type(key).__name__} ({key!r})"
    return f"a key is read by YAML as {what}, not a string; quote it"


def _yaml_type_problems(value: Any, top: str, rest: tuple[Any, ...] = (),
                        takes: Callable[[str, tuple[Any, ...]], str | None] | None = None) -> list[ConfigIssue]:
    """Keys that are no strings, values JSON has no form for (``.nan``, an explicit ``!!set``), and numbers
    written in other forms than plain decimals (``010``, ``0x10``, ``1_0``), each with its config path.

    ``takes(top, rest)``, when given, says what the setting at a number's path holds (``"text"``, ``"number"``,
    ``"bool"`` or None), for the fix :meth:`_NumberForm.problem` gives; the caller knows the models, this module
    does not."""
    problems = []
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                problems.append(
                    ConfigIssue(
                        _config_path(top, rest),
                        _key_problem(k),
                    )
                )
                continue
            problems += _yaml_type_problems(v, top, (*rest, k), takes)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            problems += _yaml_type_problems(v, top, (*rest, i), takes)
    elif isinstance(value, _NumberForm):
        problems.append(ConfigIssue(_config_path(top, rest), value.problem(takes(top, rest) if takes else None)))
    elif isinstance(value, AsWritten):
        problems.append(ConfigIssue(_config_path(top, rest), value.problem()))
    elif not isinstance(value, str | int | float | bool | type(None)):
        problems.append(
            ConfigIssue(
                _config_path(top, rest),
                f"{value!s} is read by YAML as a {type(value).__name__}, not a string; quote it (\"{value!s}\")",
            )
        )
    return problems


#: Deepest nesting of mappings/lists a stack file may have (a stack config needs fewer than 10 levels;
#: Python's recursion limit, about 1000 frames, is what deeper documents would hit).
MAX_NESTING = 100


def _nesting_depth(doc: Any) -> int:
    """How many mappings/lists deep ``doc`` goes, counted without recursion."""
    deepest, todo = 0, [(doc, 1)]
    while todo:
        value, depth = todo.pop()
        children = value.values() if isinstance(value, Mapping) else value if isinstance(value, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        if depth <= MAX_NESTING:
            todo += [(child, depth + 1) for child in children]
    return deepest
