"""Where a config path is in the stack file: ``pools[0].taints[1]`` -> ``stacks/Pulumi.dev.yaml:14:11``.

Every key of a stack file's ``config:`` map, and every item of its lists, is recorded with its
start mark (:func:`node_marks`), from the node tree :func:`gpu_node_pool.config.loading.read_stack_file`
composed (a :class:`FileMarks` it fills, walked on first use) or, for text alone, composed here
(:func:`stack_file_marks`). A :class:`ConfigIssue`'s path is then looked up segment by segment; a
path that names a key the file does not have (a missing required key, a key added by a default)
gets the place of the nearest enclosing key that the file has, and a path that names no key at all
the ``config:`` key itself. An issue whose path names a plain scalar Pulumi reads as a number, and whose
message starts with the number the program received, is given the text the file has there
(:func:`gpu_node_pool.config.pulumi_scalars.number_as_written`: ``1.30``, not 1.3).

Pure: PyYAML only, no pydantic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any

import yaml

from ..sdk.yaml_bounded import STR_TAG
from .defaults import PROJECT
from .errors import ConfigIssue, Location
from .pulumi_scalars import number_as_written, plain_number

__all__ = ["Marks", "FileMarks", "node_marks", "stack_file_marks", "path_segments", "locate", "locate_issues"]

#: ``(segment, ...)`` of a config path (str keys, int list indexes) -> ``(line, column)`` from 1.
Marks = dict[tuple[Any, ...], tuple[int, int]]

_SEGMENT = re.compile(
    r"\[(?P<index>\d+)\]"
    r"|\['(?P<single>(?:[^'\\]|\\.)*)'\]"
    r"|\[\"(?P<double>(?:[^\"\\]|\\.)*)\"\]"
    r"|\.?(?P<key>[^.\[\]\s]+)"
)


def path_segments(path: str) -> tuple[Any, ...]:
    """The segments of a config path as :class:`ConfigIssue` writes it, as far as they parse.

    ``"pools[0].labels['example.com/gpu']"`` -> ``("pools", 0, "labels", "example.com/gpu")``;
    ``"gpu-node-pools:cluster.name"`` -> ``("cluster", "name")`` (the component's namespace is dropped, as a
    config issue's path is written in it, and :func:`node_marks` records its keys so); anything after the first
    part that is not a key, index or quoted key (a space, a parenthesis) is ignored.
    """
    out: list[Any] = []
    pos = 0
    while pos < len(path):
        match = _SEGMENT.match(path, pos)
        if match is None or match.end() == pos:
            break
        if match["index"] is not None:
            out.append(int(match["index"]))
        else:
            text = match["single"] if match["single"] is not None else match["double"]
            out.append(text.replace("\\'", "'").replace('\\"', '"') if text is not None else match["key"])
        pos = match.end()
    if out and isinstance(out[0], str) and out[0].startswith(f"{PROJECT}:"):
        out[0] = out[0][len(PROJECT) + 1:]
    return tuple(out)


def _walk(node: yaml.Node, prefix: tuple[Any, ...], marks: Marks, numbers: dict[tuple[Any, ...], str] | None) -> None:
    """Record every key and item under ``node``, and into ``numbers`` (when given) the text of every plain scalar
    there that Pulumi's YAML reader reads as a number; a node an alias (``*name``) repeats is walked once, at its
    anchor, so an alias bomb costs the nodes written, not the values they expand to. Nodes are walked in document
    order, so an anchor (written before any alias of it) is recorded at its own path. The keys a mapping merges
    (``<<: *base``) and does not write itself are also recorded at the mapping's path, with their anchor's place
    and numbers, one merge deep."""
    todo, seen = [(node, prefix)], set()
    merges: list[tuple[tuple[Any, ...], yaml.Node]] = []
    while todo:
        node, prefix = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            if numbers is not None and not node.style and node.tag != STR_TAG and plain_number(node.value) is not None:
                numbers[prefix] = node.value
        elif isinstance(node, yaml.MappingNode):
            children = []
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    path = (*prefix, key_node.value)
                    marks.setdefault(path, (key_node.start_mark.line + 1, key_node.start_mark.column + 1))
                    children.append((value_node, path))
                    if key_node.tag == "tag:yaml.org,2002:merge" or key_node.value == "<<":
                        merges.append((prefix, value_node))
            todo.extend(reversed(children))
        elif isinstance(node, yaml.SequenceNode):
            children = []
            for i, item in enumerate(node.value):
                path = (*prefix, i)
                marks.setdefault(path, (item.start_mark.line + 1, item.start_mark.column + 1))
                children.append((item, path))
            todo.extend(reversed(children))
    if merges:
        places = {}
        for path, at in marks.items():
            places.setdefault(at, path)
        budget = [_MERGED_MOST]
        for into, source in merges:
            _merged(into, source, marks, numbers, places, budget)


#: The most paths the merged keys of a file add (:func:`_merged`): a place for the keys a stack file merges, not a
#: cost that grows with the merges of merges an alias bomb writes.
_MERGED_MOST = 10_000


def _merged(into: tuple[Any, ...], source: yaml.Node, marks: Marks, numbers: dict[tuple[Any, ...], str] | None,
            places: Mapping[tuple[int, int], tuple[Any, ...]], budget: list[int]) -> None:
    """Record at ``into`` the keys of the mapping(s) ``source`` (a ``<<`` value: a mapping or a list of them) that
    ``into`` does not write itself, with what was recorded under each at its own path (``places``: the path first
    recorded at each place); at most ``budget[0]`` paths, which it lowers."""
    sources = source.value if isinstance(source, yaml.SequenceNode) else [source]
    for mapping in sources:
        if not isinstance(mapping, yaml.MappingNode):
            continue
        for key_node, _ in mapping.value:
            origin = places.get((key_node.start_mark.line + 1, key_node.start_mark.column + 1))
            if not isinstance(key_node, yaml.ScalarNode) or origin is None or (*into, key_node.value) in marks:
                continue
            size = len(origin)
            found = [(p, a) for p, a in marks.items() if p[:size] == origin]
            texts = [(p, t) for p, t in (numbers or {}).items() if p[:size] == origin]
            budget[0] -= len(found) + len(texts)
            if budget[0] < 0:
                return
            for path, at in found:
                marks.setdefault((*into, *path[size - 1:]), at)
            for path, text in texts:
                numbers.setdefault((*into, *path[size - 1:]), text)  # type: ignore[union-attr]


def node_marks(root: yaml.Node | None, project: str = PROJECT,
               numbers: dict[tuple[Any, ...], str] | None = None) -> Marks:
    """Every key and list item under ``config:`` of a composed stack file (``root``, as composed,
    before it is constructed), by path, with its ``(line, column)``.

    Top-level keys of the component's namespace (:data:`~gpu_node_pool.config.PROJECT`, the one its config
    issues are written in) are recorded without it: ``gpu-node-pools:pools`` is ``("pools",)``, and so is ``pools``
    when ``project`` (the ``Pulumi.yaml`` ``name``, the namespace of a key written without one) is that namespace.
    Keys of other namespaces keep theirs (``("aws:region",)``, ``pools`` of a project ``my-infra`` is
    ``("my-infra:pools",)``); every key is also recorded as written. The ``config:`` key itself is ``()``. A root
    that is not a mapping gives ``{}``.

    ``numbers``, when given, is filled by the same paths with the text of each plain scalar (not quoted, not
    tagged ``!!str``) Pulumi's YAML reader reads as a number (``1.30``, ``1e3``; :func:`.plain_number`).
    """
    marks: Marks = {}
    if not isinstance(root, yaml.MappingNode):
        return marks
    for key_node, value_node in root.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == "config":
            marks[()] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            if not isinstance(value_node, yaml.MappingNode):
                break
            for top_key, top_value in value_node.value:
                if not isinstance(top_key, yaml.ScalarNode):
                    continue
                ns, colon, short = top_key.value.rpartition(":")
                namespace = ns if colon else project  # a key written without one is in the project's namespace
                name = short if namespace == PROJECT else f"{namespace}:{short}"
                where = (top_key.start_mark.line + 1, top_key.start_mark.column + 1)
                marks.setdefault((top_key.value,), where)
                marks.setdefault((name,), where)
                _walk(top_value, (name,), marks, numbers)
            break
    return marks


def stack_file_marks(text: str, project: str = PROJECT) -> Marks:
    """:func:`node_marks` of the stack file ``text``, composed here; text that does not parse gives
    ``{}`` (its syntax error already carries its place)."""
    try:
        root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return {}
    return node_marks(root, project)


class FileMarks(Mapping[tuple[Any, ...], tuple[int, int]]):
    """The :func:`node_marks` of the node tree a stack file was composed into, walked on first use.

    :meth:`keep` takes the root as composed; constructing the document rewrites mappings that merge
    others (``<<: *base``), so the reader calls :meth:`walk` before it does. Empty while no root was
    kept (the file did not parse). :meth:`numbers` gives the text of its plain numbers, by the same paths.
    """

    def __init__(self, project: str = PROJECT) -> None:
        self.project = project
        self._root: yaml.Node | None = None
        self._marks: Marks | None = None
        self._numbers: dict[tuple[Any, ...], str] = {}

    def keep(self, root: yaml.Node | None) -> None:
        """Take ``root``, the document as composed (not walked yet)."""
        self._root, self._marks, self._numbers = root, None, {}

    def walk(self) -> Marks:
        """The marks, walking the kept root now if it was not walked yet."""
        if self._marks is None:
            self._marks = node_marks(self._root, self.project, self._numbers)
            self._root = None
        return self._marks

    def numbers(self) -> Mapping[tuple[Any, ...], str]:
        """``{path: text}``: the text as written of every plain scalar under ``config:`` that Pulumi's YAML reader
        reads as a number (``("cluster", "kubernetesVersion"): "1.30"``), the path as :func:`path_segments`
        gives it; walks the kept root first if it was not walked yet (see :func:`node_marks`)."""
        self.walk()
        return self._numbers

    def __getitem__(self, path: tuple[Any, ...]) -> tuple[int, int]:
        return self.walk()[path]

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.walk())

    def __len__(self) -> int:
        return len(self.walk())


def locate(path: str, marks: Mapping[tuple[Any, ...], tuple[int, int]], file: str) -> Location:
    """The :class:`Location` of ``path`` in ``file``: its own key, else its nearest enclosing key
    in the file, else the file's first line (an empty file, or one whose ``config:`` lacks the key)."""
    segments = path_segments(path)
    for end in range(len(segments), -1, -1):
        found = marks.get(segments[:end])
        if found is not None:
            return Location(file, *found)
    return Location(file, 1, 1)


def locate_issues(issues: Iterable[ConfigIssue], marks: Mapping[tuple[Any, ...], tuple[int, int]],
                  file: str) -> list[ConfigIssue]:
    """``issues`` with their :attr:`ConfigIssue.location` in ``file`` (one that has a location keeps it); when
    ``marks`` is a :class:`FileMarks` and an issue's path names one of its :meth:`FileMarks.numbers`, the message
    shows that number as written (:func:`.number_as_written`)."""
    numbers = marks.numbers() if isinstance(marks, FileMarks) else {}
    out = []
    for issue in issues:
        if issue.location is None:
            written = numbers.get(path_segments(issue.path)) if numbers else None
            message = number_as_written(issue.message, written) if written is not None else issue.message
            issue = replace(issue, message=message, location=locate(issue.path, marks, file))
        out.append(issue)
    return out
