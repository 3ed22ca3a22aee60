"""YAML read as the Pulumi CLI reads ``Pulumi.yaml`` and stack files: PyYAML's safe loader (libyaml's parser
when built with it) with plain scalars resolved as Pulumi's reader, ``gopkg.in/yaml.v3``, resolves them
(:mod:`.pulumi_scalars`: ``yes`` and dates are strings, ``true``/``false`` the only booleans, ``010`` is 8).

:class:`PulumiScalarLoader` is the base of the stack file's strict loader
(:mod:`gpu_node_pool.config.stack_yaml`); :func:`load_pulumi_yaml` reads a ``Pulumi.yaml``.
"""

from __future__ import annotations

from typing import Any

import yaml

from ..sdk.yaml_bounded import STR_TAG, TAG_ERRORS, ExpansionChecked, TagValueError, with_tag_errors
from .pulumi_scalars import (
    BOOLEANS,
    NON_FINITE,
    NULLS,
    PulumiTimestamp,
    go_time_text,
    plain_kind,
    plain_number,
)

__all__ = ["PulumiScalarLoader", "construct_number", "load_pulumi_yaml"]

INT_TAG, FLOAT_TAG = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
BOOL_TAG, NULL_TAG = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"
TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
#: The tag of a plain scalar by what Pulumi's YAML reader makes of it (:func:`.pulumi_scalars.plain_kind`).
_TAG_OF_KIND = {"null": NULL_TAG, "bool": BOOL_TAG, "int": INT_TAG, "float": FLOAT_TAG, "nonfinite": FLOAT_TAG,
                "timestamp": TIMESTAMP_TAG, "str": STR_TAG}
#: What an explicit tag takes, by the kind of its text (yaml.v3 refuses the others: "cannot decode !!float
#: `4.0` as a !!int"; an int under ``!!float`` becomes a float).
_TAG_TAKES = {INT_TAG: ("int",), FLOAT_TAG: ("int", "float", "nonfinite")}


class PulumiScalarLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML's safe loader whose plain scalars are what Pulumi's YAML reader makes of them, and whose
    explicit ``!!bool``, ``!!int``, ``!!float``, ``!!null`` and ``!!timestamp`` read their text as that reader does.

    A ``!!bool yes``, a ``!!int 4.0``, a ``!!null x`` or a ``!!timestamp`` that is no date raises (``KeyError``,
    ``ValueError``; :data:`gpu_node_pool.sdk.yaml_bounded.TAG_ERRORS`), as Pulumi refuses them."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._plain_tags: dict[str, str] = {}

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        """A node's tag: a plain scalar's by :func:`.pulumi_scalars.plain_kind` of its text, kept per text (a
        file repeats most of its texts); PyYAML's for every other node, and for a merge key ``<<``."""
        if kind is yaml.ScalarNode and implicit[0] and not self.yaml_path_resolvers:
            tag = self._plain_tags.get(value)
            if tag is None:
                found = plain_kind(value)
                tag = _TAG_OF_KIND[found] if found != "merge" else super().resolve(kind, value, implicit)
                self._plain_tags[value] = tag
            return tag
        return super().resolve(kind, value, implicit)


def _construct_bool(loader: Any, node: Any) -> bool:
    """``true``/``false`` in the spellings Pulumi's YAML reader takes (:data:`.pulumi_scalars.BOOLEANS`).

    Raises:
        KeyError: an explicit ``!!bool`` on another text (``!!bool yes``), which Pulumi refuses too."""
    return BOOLEANS[str(node.value)]


def construct_number(loader: Any, node: Any) -> int | float:
    """The number a program receives (:func:`.pulumi_scalars.plain_number`; NaN and the infinities as floats).

    Raises:
        ValueError: an explicit ``!!int``/``!!float`` on a text that is no number (``!!int abc``)."""
    text = str(node.value)
    if plain_kind(text) not in _TAG_TAKES.get(node.tag, ("int", "float", "nonfinite")):
        raise ValueError(f"{text!r} is no {node.tag.rsplit(':', 1)[-1]}")
    if text in NON_FINITE:
        return NON_FINITE[text]
    value = plain_number(text)
    if value is None:
        raise ValueError(f"{text!r} is no number")
    return value


def _construct_timestamp(loader: Any, node: Any) -> PulumiTimestamp:
    """A timestamp (plain, or under ``!!timestamp``), kept with its text: the program gets another text
    (:class:`.pulumi_scalars.PulumiTimestamp`).

    Raises:
        ValueError: the text is no timestamp to yaml.v3 (``!!timestamp abc``, ``!!timestamp 2024-02-30``)."""
    text = str(node.value)
    if go_time_text(text) is None:
        raise ValueError(f"{text!r} is no timestamp")
    return PulumiTimestamp(text)


def _construct_null(loader: Any, node: Any) -> None:
    """``null`` in the spellings yaml.v3 takes.

    Raises:
        ValueError: an explicit ``!!null`` on another text (``!!null x``)."""
    if str(node.value) not in NULLS:
        raise ValueError(f"{node.value!r} is no null")
    return None


PulumiScalarLoader.add_constructor(BOOL_TAG, _construct_bool)
PulumiScalarLoader.add_constructor(INT_TAG, construct_number)
PulumiScalarLoader.add_constructor(FLOAT_TAG, construct_number)
PulumiScalarLoader.add_constructor(TIMESTAMP_TAG, _construct_timestamp)
PulumiScalarLoader.add_constructor(NULL_TAG, _construct_null)


class _BoundedPulumiLoader(ExpansionChecked, PulumiScalarLoader):
    """:class:`PulumiScalarLoader`, the document's expansion through aliases checked before it is built, and a
    value its explicit tag cannot read raised as :class:`~gpu_node_pool.sdk.yaml_bounded.TagValueError` at
    that value's line and column."""

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except TAG_ERRORS:
            written = f"{node.tag.replace('tag:yaml.org,2002:', '!!')} {node.value}" if isinstance(node.value, str) else node.tag
            raise TagValueError(
                None, None, f"{written!r} does not fit its explicit YAML tag (the value is of another type to Pulumi's "
                "YAML reader, gopkg.in/yaml.v3); write the plain value without the tag", node.start_mark) from None


def load_pulumi_yaml(text: str) -> Any:
    """One YAML document read as the Pulumi CLI reads it (:class:`PulumiScalarLoader`), aliases bounded
    (:data:`gpu_node_pool.sdk.yaml_bounded.MAX_EXPANDED_VALUES`).

    Raises:
        gpu_node_pool.sdk.yaml_bounded.AliasExpansionError: the aliases expand past the bound.
        gpu_node_pool.sdk.yaml_bounded.TagValueError: a value its explicit tag cannot read.
        yaml.YAMLError: not YAML.
    """
    one = (yaml.load(text, Loader=_BoundedPulumiLoader) for _ in (0,))  # noqa: S506 - a safe loader
    return next(with_tag_errors(one, text))
