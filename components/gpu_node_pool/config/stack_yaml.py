"""A stack file's YAML read strictly: libyaml's parser with PyYAML's safe constructors, duplicate keys
recorded, aliases bounded, YAML 1.1-only numbers kept with their text, nesting bounded, and the values
YAML 1.1 reads as other types than JSON would found with their config path. :func:`gpu_node_pool.config.loading.read_stack_file`
uses it; nothing here knows Pulumi's config form or the pool models."""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from typing import Any

import yaml

from ..sdk.yaml_bounded import MAP_TAG, SEQ_TAG, STR_TAG, TAG_ERRORS, AliasExpansionError, check_expansion
from .defaults import PROJECT
from .errors import ConfigIssue
from .locations import FileMarks

__all__ = ["MAX_EXPANDED_VALUES", "MAX_NESTING", "AliasExpansionError"]


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
_INT_TAG = "tag:yaml.org,2002:int"
_NUMBER_TAGS = frozenset((_INT_TAG, "tag:yaml.org,2002:float"))
#: An octal integer of YAML 1.2's core schema (``0o17``): YAML 1.1 has no such form and PyYAML reads it
#: as a string, but Pulumi reads stack files with go-yaml (pulumi/pulumi ``sdk/go/common/encoding/marshal.go``
#: imports ``gopkg.in/yaml.v2``, whose ``resolve.go`` reads a plain number with Go's
#: ``strconv.ParseInt(text, 0, 64)``, and base 0 takes the ``0o`` prefix), so it is the number 15 there,
#: as in YAML 1.2's core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution).
_YAML12_OCTAL = re.compile(r"[-+]?0o[0-7]+")
_CONSTANT_TAGS = frozenset(("tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"))


class _NotATree(Exception):
    """A document :meth:`_StrictLoader._construct_tree` leaves to PyYAML's own construction."""


class _StrictLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml when built with it
    """PyYAML's safe loader (libyaml's C parser when available), recording duplicate mapping keys instead of
    keeping the last silently. YAML 1.1 surprises (yes/no/on/off keys, dates) are refused after loading.
    Aliases are bounded: see :func:`_check_alias_expansion`. ``marks``, when set, keeps the composed
    document for the file:line of errors, and is walked before a merge key rewrites it."""

    marks: FileMarks | None = None
    #: The text has no ``&``: no anchors, so no aliases (see :func:`_check_alias_expansion`).
    anchorless = False

    #: Set by :meth:`get_single_data`: how many mappings/lists deep the document goes, and whether
    #: it holds a number in a YAML 1.1-only form (:class:`_Yaml11Number`); None when not known.
    depth: int | None = None
    yaml11_numbers: bool | None = None
    #: ``(line, column, tag)`` (1-based) of the first value its explicit tag could not read (``!!int abc``), as
    #: construction met it; None when none did.
    tag_error: tuple[int, int, str] | None = None

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._plain_tags: dict[str, str] = {}
        self._text, self._lines = stream, None

    def text_lines(self) -> list[str]:
        """The document's lines (for the text of a value as written), split on first use."""
        if self._lines is None:
            self._lines = self._text.splitlines()
        return self._lines

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        """PyYAML's tag for a node, a plain scalar's kept per text: with no path resolvers (the safe
        loader has none) it depends on the text alone, and a stack file repeats most of its texts."""
        if kind is yaml.ScalarNode and implicit[0] and not self.yaml_path_resolvers:
            tag = self._plain_tags.get(value)
            if tag is None:
                tag = super().resolve(kind, value, implicit)
                if tag == _STR_TAG and _YAML12_OCTAL.fullmatch(value):  # a number to Pulumi: reported as one
                    tag = _INT_TAG
                self._plain_tags[value] = tag
            return tag
        return super().resolve(kind, value, implicit)

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
                self.depth = self.yaml11_numbers = None
        return self.construct_document(node)

    def _construct_tree(self, root: yaml.Node) -> Any:
        """What :meth:`construct_document` builds from ``root``, for a document that is a tree (no anchors,
        so no node twice) of mappings with plain string keys, lists, and str/int/float/bool/null scalars,
        which is what a stack file is; sets :attr:`depth` and :attr:`yaml11_numbers` on the way.

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
                    if tag in _NUMBER_TAGS:
                        value = constructors[tag](self, node)
                        numbers += type(value) is _Yaml11Number
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
                    duplicates.append((
                        f"key {key!r} appears again (first on line {seen[key]}); "
                        "YAML keeps only the last one, so remove one of them", line, key_node.start_mark.column + 1,
                    ))
                else:
                    seen[key] = line
            for key_node, value_node in node.value:
                out[key_node.value] = start(value_node, depth + 1)
        self.depth, self.yaml11_numbers = deepest, numbers > 0
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

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            try:
                key = self.construct_object(key_node, deep=True)
                hash(key)
            except Exception:  # noqa: BLE001 - unhashable keys are PyYAML's own error below
                continue
            line = key_node.start_mark.line + 1
            if key in seen:
                self.duplicates.append((
                    f"key {key!r} appears again (first on line {seen[key]}); "
                    "YAML keeps only the last one, so remove one of them", line, key_node.start_mark.column + 1,
                ))
            else:
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


#: Numbers as YAML 1.1 (PyYAML, libyaml) reads them but YAML 1.2 and JSON do not: Pulumi and most
#: editors read ``010`` as 10 or a string, PyYAML as octal 8. Plain decimals pass; these are refused.
_DECIMAL = re.compile(r"[-+]?(0|[1-9][0-9]*)(\.[0-9]*)?([eE][-+]?[0-9]+)?")


class _Yaml11Number:
    """A scalar YAML 1.1 reads as a number in a form YAML 1.2/JSON read differently (``010``, ``0x10``,
    ``1_0``, ``1:20``, ``0b11``), or YAML 1.2's ``0o17``, which YAML 1.1 reads as a string; kept with its text so :func:`_yaml_type_problems` reports it with its path."""

    __slots__ = ("text", "value")

    def __init__(self, text: str, value: int | float) -> None:
        self.text, self.value = text, value

    def __repr__(self) -> str:
        return self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Yaml11Number) and other.text == self.text

    def problem(self) -> str:
        """``<text> is read by YAML 1.1 as <how>; write <decimal>, or quote it`` (one line)."""
        text, value = self.text, self.value
        digits = text.lstrip("+-")
        if digits[:2] == "0o":
            return (f"{text} is the octal number {value} to Pulumi (YAML 1.2) but a string to YAML 1.1 readers; "
                    f"write {value} as a plain decimal, or quote it (\"{text}\") if it is a string")
        if ":" in text:
            how = f"the base-60 number {value}"
        elif "_" in text:
            how = f"{value} (YAML 1.1 drops '_')"
        elif digits[:2].lower() == "0x":
            how = f"the hexadecimal number {value}"
        elif digits[:2].lower() == "0b":
            how = f"the binary number {value}"
        else:
            how = f"the octal number {value}"
        meant = text.replace("_", "") if "_" in text and ":" not in text else None
        if meant is None and digits[:1] == "0" and digits.isdigit():
            meant = str(int(text, 10))  # 010 was most likely meant as ten
        fix = f"write {meant} (or {value})" if meant is not None and meant != str(value) else f"write {value}"
        return f"{text} is read by YAML 1.1 as {how}; {fix} as a plain decimal, or quote it (\"{text}\") if it is a string"


def _construct_number(loader: Any, node: Any) -> Any:
    try:
        value = (loader.construct_yaml_int if node.tag.endswith(":int") else loader.construct_yaml_float)(node)
    except ValueError:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
        if not str(node.value).lstrip("+-").replace("_", "").isdigit():
            raise
        raise yaml.constructor.ConstructorError(
            None, None, f"a number of {len(node.value)} digits is longer than any config value takes (Python reads "
            f"at most {sys.get_int_max_str_digits()}); write the number the setting needs, or quote it if it is a "
            "string", node.start_mark) from None
    text = node.value
    if isinstance(text, str) and not _DECIMAL.fullmatch(text) and text.lower().lstrip("+-") not in (".inf", ".nan"):
        return _Yaml11Number(text, value)
    return value


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _construct_number)
_StrictLoader.add_constructor("tag:yaml.org,2002:float", _construct_number)


class _NotJson:
    """A value YAML 1.1 reads as a type JSON (and so Pulumi's config) does not have: a timestamp, or a
    ``!!binary``, ``!!set``, ``!!omap`` or ``!!pairs`` value; kept with the text as written so that
    :func:`_yaml_type_problems` shows that text, not Python's ``repr`` of what PyYAML would build."""

    __slots__ = ("tag", "text")

    def __init__(self, tag: str, text: str) -> None:
        self.tag, self.text = tag, text

    def __repr__(self) -> str:
        return self.text

    def __hash__(self) -> int:
        return hash((self.tag, self.text))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _NotJson) and (other.tag, other.text) == (self.tag, self.text)

    def problem(self) -> str:
        """What YAML reads the value as and the fix (quote a timestamp; remove an explicit tag), one line."""
        shown = self.text if len(self.text) <= 80 else self.text[:80] + "..."
        if self.tag == "timestamp":
            kind = "date and time" if any(c in self.text for c in "Tt ") else "date"
            return f"{shown} is read by YAML as a {kind}, not a string; quote it (\"{shown}\")"
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


def _construct_not_json(loader: Any, node: Any) -> _NotJson | str:
    tag = node.tag.rsplit(":", 1)[-1]
    if tag == "timestamp":  # a text its tag cannot read (`!!timestamp abc`) raises as PyYAML raises it
        try:
            loader.construct_yaml_timestamp(node)
        except ValueError:  # date-shaped but no date (2024-02-30): go-yaml, Pulumi's reader, keeps the string
            return node.value
    elif tag == "binary":
        loader.construct_yaml_binary(node)
    return _NotJson(tag, _as_written(loader, node))


for _tag in ("timestamp", "binary", "set", "omap", "pairs"):
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
    where it is kept (a number's or date's text), else as YAML reads it (a boolean: ``on`` is true)."""
    if isinstance(key, bool):
        what = f"the boolean {str(key).lower()} (YAML 1.1 reads yes/no/on/off/true/false so)"
    elif key is None:
        what = "null (~ and null are null)"
    elif isinstance(key, _Yaml11Number | int | float):
        what = f"a number ({key!r})"
    elif isinstance(key, _NotJson):
        what = f"a {'date' if key.tag == 'timestamp' else key.tag} ({key!r})"
    else:
        what = f"a {type(key).__name__} ({key!r})"
    return f"a key is read by YAML as {what}, not a string; quote it"


def _yaml_type_problems(value: Any, top: str, rest: tuple[Any, ...] = ()) -> list[ConfigIssue]:
    """Keys and values that YAML 1.1 reads as something other than JSON (dates, booleans as keys, numbers
    written as ``010``/``0x10``/``1_0``/``1:20``, which YAML 1.2 and JSON read differently)."""
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
            problems += _yaml_type_problems(v, top, (*rest, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            problems += _yaml_type_problems(v, top, (*rest, i))
    elif isinstance(value, _Yaml11Number | _NotJson):
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
