"""A YAML cluster dump, loaded as the package loads YAML from outside (:mod:`gpu_node_pool.sdk.yaml_bounded`: Go's
floats, aliases bounded, explicit tags checked), and with a mapping key written twice refused at its line.

PyYAML keeps the last value of a key written twice, so the audit would judge a Node named by whichever came last.
Kubernetes holds each field of an object once: kubectl never writes a key twice, and the API server's strict field
validation refuses an object that does (``duplicate field``:
https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation). Such a dump was edited by hand.

Pure: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import yaml

from ..sdk.yaml_bounded import ExpansionChecked, GoSafeLoader, with_tag_errors

__all__ = ["DuplicateKeyError", "load_dump_documents"]


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping key written twice; ``problem_mark`` is where the second one is (PyYAML's mark, counted from 0)."""


def duplicate_key_problem(key: Any, first: int) -> str:
    """Why a key written twice, ``key``, first on 1-based line ``first``, is refused (module docstring)."""
    return (f"key {json.dumps(key, ensure_ascii=False)} appears again (first on line {first}): a Kubernetes object holds each field once (kubectl "
            "writes no key twice, and the API server's strict field validation refuses a duplicate field: "
            "https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation); keep one of the two")


class _DumpLoader(GoSafeLoader):  # type: ignore[misc, valid-type]
    """:class:`~gpu_node_pool.sdk.yaml_bounded.GoSafeLoader`, refusing a mapping with a scalar key written twice."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
        seen: dict[tuple[str, str], int] = {}
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                ident = (key_node.tag, key_node.value)
                if ident in seen:
                    raise DuplicateKeyError(None, None, duplicate_key_problem(key_node.value, seen[ident]),
                                            key_node.start_mark)
                seen[ident] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


class _BoundedDumpLoader(ExpansionChecked, _DumpLoader):  # type: ignore[misc, valid-type]
    """:class:`_DumpLoader`, each document's alias expansion checked before it is built
    (:class:`~gpu_node_pool.sdk.yaml_bounded.ExpansionChecked`)."""


def load_dump_documents(text: str) -> Iterator[Any]:
    """Each document of ``text``, as :func:`~gpu_node_pool.sdk.yaml_bounded.load_all_bounded` gives them.

    Raises: as ``load_all_bounded`` (when the document is reached), and :class:`DuplicateKeyError`.
    """
    loader = _DumpLoader if "&" not in text else _BoundedDumpLoader  # no anchor: nothing can expand
    return with_tag_errors(yaml.load_all(text, Loader=loader), text)  # noqa: S506 - a safe loader
