"""YAML from outside the product, loaded with its alias expansion bounded.

PyYAML builds an alias (``*name``) as a reference to its anchor's value, so nine levels of ten
aliases each (the "billion laughs") load in microseconds into a graph that expands to 10^9
values; every reader that walks it, copies it or prints it then never ends. :func:`check_expansion`
computes, in one pass linear in the nodes written, how many values each node of a composed
document expands to, and refuses one past a limit, or an alias inside its own anchor. The
loaders here (PyYAML's safe loader, libyaml's C parser when PyYAML was built with it) apply it
to every document before constructing it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

from ..k8s.go_numbers import YAML_FLOAT_FIRST, yaml_float

__all__ = [
    "TAG_ERRORS", "TAB_CAUSE", "with_tab_cause", "MAX_EXPANDED_VALUES", "AliasExpansionError", "GoSafeLoader", "ExpansionChecked", "check_expansion", "load_all_bounded", "load_bounded", "STR_TAG", "TagValueError", "with_tag_errors", "SEQ_TAG", "MAP_TAG"]

#: PyYAML's resolved tags of a string, a list and a mapping (the YAML 1.1 tag repository, https://yaml.org/type/).
STR_TAG, SEQ_TAG, MAP_TAG = "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"

#: Most values one document may expand to through its aliases. A Kubernetes manifest or a
#: cluster dump of thousands of objects writes its values out; aliases that multiply them are
#: refused past this.
MAX_EXPANDED_VALUES = 5_000_000

_SAFE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class GoSafeLoader(_SAFE):  # type: ignore[misc, valid-type]
    """The safe loader (libyaml's C parser when PyYAML was built with it), plain scalars read as numbers where Go's
    YAML readers read them so (:class:`_GoFloatText`)."""


_BASE = GoSafeLoader


class AliasExpansionError(yaml.YAMLError):
    """A document whose aliases expand past the limit, or into themselves; ``line`` is 1-based."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line, self.message = line, message


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def check_expansion(root: yaml.Node, limit: int = MAX_EXPANDED_VALUES, advice: str = "write the values out",
                    written: int = 0) -> None:
    """Raise :class:`AliasExpansionError` at the first node (in the composed graph, where an alias is
    the anchored node itself) that expands to more than ``limit`` values, or that contains itself.
    ``written``: the nodes the document writes out, when the bound is on what its aliases add to
    them (a node may then expand to ``written + limit``). ``advice`` ends the message (what the
    reader should do). Linear in the nodes written."""
    sizes: dict[int, int] = {}
    ancestors: set[int] = set()
    todo: list[tuple[yaml.Node, bool]] = [(root, False)]
    while todo:
        node, children_done = todo.pop()
        key = id(node)
        if children_done:
            ancestors.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node))
            if sizes[key] > limit + written:
                grows = (f"its aliases (*name) add more than {limit} values to the {written} the file writes out"
                         if written else f"this value expands through its aliases (*name) to more than {limit} values")
                raise AliasExpansionError(node.start_mark.line + 1, f"{grows}; {advice}")
            continue
        if key in sizes:
            continue
        ancestors.add(key)
        todo.append((node, True))
        for child in _children(node):
            if id(child) in ancestors:
                raise AliasExpansionError(child.start_mark.line + 1, (
                    "an alias (*name) inside the value its anchor (&name) names: the value would contain "
                    "itself; write the value out"))
            if id(child) not in sizes:
                todo.append((child, False))


class TagValueError(yaml.constructor.ConstructorError):
    """A document that parses but holds a value its explicit tag cannot read (``!!int abc``): YAML written
    wrong. PyYAML's safe constructor raises a bare exception there (:data:`TAG_ERRORS`); the loaders here
    raise this instead, a ``yaml.YAMLError`` like every other YAML mistake."""


#: What PyYAML's safe constructor raises, unwrapped, for a value its explicit tag cannot read: ``!!int abc``
#: (ValueError), ``!!bool maybe`` (KeyError), ``!!timestamp nope`` (AttributeError), ``!!map a`` (TypeError).
TAG_ERRORS = (ValueError, KeyError, AttributeError, TypeError)


def with_tag_errors(docs: Iterator[Any], text: str) -> Iterator[Any]:
    """``docs`` (documents constructed from ``text``, one at a time), with a value its explicit tag cannot read
    raised as :class:`TagValueError`. Text without ``!!`` has no explicit tag: its errors pass unchanged."""
    try:
        yield from docs
    except TAG_ERRORS as err:
        if not isinstance(text, str) or "!!" not in text:
            raise
        raise TagValueError(
            None, None, f"has a value that does not fit its explicit YAML tag ({type(err).__name__}: {str(err)[:80]}); "
            "write the plain value without the tag (YAML 1.1 types, https://yaml.org/type/)") from None


class _GoFloatText:
    """The "regexp" of :class:`GoSafeLoader`'s float resolver (PyYAML calls only its ``match``): a plain scalar Go's
    YAML readers take as a float, :func:`gpu_node_pool.k8s.go_numbers.yaml_float` (sigs.k8s.io/yaml, which the
    Kubernetes API machinery and Helm read manifests with, resolves as gopkg.in/yaml.v2 does). That includes an exponent
    with no dot (``1e+26``, ``5e3``) or with no sign (``1.5e3``), and ``_`` between digits (``1_0e3``), which PyYAML's
    YAML 1.1 resolver (a dot and a signed exponent required) leaves a string. Helm writes a values number of 1e21 or
    more with an exponent (:data:`gpu_node_pool.k8s.go_numbers.JSON_EXPONENT_FROM`), so a manifest holds it as a number
    for the cluster and must for the judging too. PyYAML's own resolvers come first: its integers and YAML 1.1 floats
    (``12``, ``0x1F``, ``1.5``) are read before this is asked."""

    @staticmethod
    def match(text: str) -> bool:
        return yaml_float(text) is not None


class ExpansionChecked:
    """A mixin for a PyYAML loader class: each document's expansion through aliases is checked
    (:func:`check_expansion`, up to ``limit`` values) before it is built, for ``yaml.load`` and ``yaml.load_all``
    alike. Put it first among the bases: ``class L(ExpansionChecked, SomeLoader)``."""

    limit = MAX_EXPANDED_VALUES

    def get_single_data(self) -> Any:
        node = self.get_single_node()
        if node is None:
            return None
        check_expansion(node, self.limit)
        return self.construct_document(node)

    def get_data(self) -> Any:
        node = self.get_node()
        if node is None:
            return None
        check_expansion(node, self.limit)
        return self.construct_document(node)


class _BoundedLoader(ExpansionChecked, _BASE):  # type: ignore[misc, valid-type]
    """:class:`GoSafeLoader`, each document's expansion checked (:class:`ExpansionChecked`) before it is built."""


def load_bounded(text: str) -> Any:
    """One YAML document, as ``yaml.safe_load`` gives it but for the floats Go reads (:class:`_GoFloatText`), aliases
    bounded.

    Raises:
        AliasExpansionError: past :data:`MAX_EXPANDED_VALUES`, or an alias in its own anchor.
        TagValueError: a value its explicit tag cannot read.
        yaml.YAMLError: not YAML.
    """
    loader = _BASE if isinstance(text, str) and "&" not in text else _BoundedLoader  # no anchor: nothing can expand
    one = (yaml.load(text, Loader=loader) for _ in (0,))  # noqa: S506 - safe loaders; built when asked for
    return next(with_tag_errors(one, text))


def load_all_bounded(text: str) -> Iterator[Any]:
    """Each document of a YAML stream, as ``yaml.safe_load_all`` gives them, aliases bounded per document.

    Raises: as :func:`load_bounded`, when the document is reached.
    """
    loader = _BASE if isinstance(text, str) and "&" not in text else _BoundedLoader  # no anchor: nothing can expand
    return with_tag_errors(yaml.load_all(text, Loader=loader), text)  # noqa: S506 - safe loaders


GoSafeLoader.add_implicit_resolver("tag:yaml.org,2002:float", _GoFloatText(), list(YAML_FLOAT_FIRST))


#: Why a YAML error found at a tab happened: YAML indents with spaces only (YAML 1.2.2, 6.1 Indentation Spaces).
TAB_CAUSE = " (the character there is a tab: YAML indents with spaces only, https://yaml.org/spec/1.2.2/#61-indentation-spaces)"


def with_tab_cause(said: str, err: BaseException, text: str) -> str:
    """``said`` (the words of the YAML error ``err`` in ``text``, perhaps ending ``; <fix>``) with :data:`TAB_CAUSE`
    before its fix when the character where ``err`` was found is a tab; else ``said`` unchanged."""
    mark = getattr(err, "problem_mark", None)
    lines = text.splitlines()
    if mark is None or mark.line >= len(lines) or lines[mark.line][mark.column:mark.column + 1] != "\t":
        return said
    head, sep, tail = said.rpartition("; ")
    return f"{head}{TAB_CAUSE}{sep}{tail}" if sep else said + TAB_CAUSE
