"""Resource properties as a CrossGuard policy sees them at preview, built lazily.

``pulumi_policy``'s analyzer wraps each resource's inputs with ``unknown_checking_proxy``: a
value unknown at preview is the SDK's wire sentinel, and reading one raises
``UnknownValueError``. :func:`policy_props` gives the same view of a recorded resource's inputs
(the plan's :data:`gpu_node_pool.k8s.wellknown.UNKNOWN` marker mapped to the sentinel) without
copying the whole stack once per policy: each level is wrapped on first read and kept.
:func:`to_policy_props` is the plain, eager copy. Source: pulumi/pulumi-policy
``sdk/python/lib/pulumi_policy/proxy.py`` (v1.21).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any

from pulumi_policy.proxy import (
    UNKNOWN_ARCHIVE_VALUE,
    UNKNOWN_ARRAY_VALUE,
    UNKNOWN_ASSET_VALUE,
    UNKNOWN_BOOLEAN_VALUE,
    UNKNOWN_NUMBER_VALUE,
    UNKNOWN_OBJECT_VALUE,
    UNKNOWN_STRING_VALUE,
    UnknownValueError,
    _is_unknown,
    _proxy_helper,
)

from ..k8s.wellknown import UNKNOWN as _UNKNOWN

__all__ = ["to_policy_props", "policy_props", "UnknownValueError"]


def _sdk_proxy_kinds(proxy: Any) -> tuple[type, type]:
    """``(dict proxy class, list proxy class)`` of ``pulumi_policy.proxy`` (``proxy``), whose ``["__target"]``
    is the decoded container they wrap, as in v1.21 (the SDK's own ``serialize_properties`` reads it so);
    when that no longer holds, a warning and two classes no value has: the proxies are then read as any
    mapping or sequence (the same values, slower)."""
    try:
        wrapped = proxy._proxy_helper({"a": [UNKNOWN_STRING_VALUE]}, [])
        inner = wrapped["__target"]
        if (type(wrapped) is proxy._DictProxy and type(inner) is dict and type(inner["a"]) is proxy._ListProxy
                and inner["a"]["__target"] == [UNKNOWN_STRING_VALUE]):
            return proxy._DictProxy, proxy._ListProxy
        why = "their ['__target'] is not the decoded dict and list"
    except Exception as err:  # noqa: BLE001 (any change of the private API means: do not rely on it)
        why = f"{type(err).__name__}: {err}"
    import warnings

    warnings.warn(
        f"gpu-node-pools: pulumi_policy.proxy's _DictProxy/_ListProxy are not as in pulumi-policy 1.21 ({why}); "
        "the per-level pack reads the analyzer's proxies one value at a time (same findings, slower)",
        RuntimeWarning,
        stacklevel=2,
    )
    return _NoSuchProxy, _NoSuchProxy


class _NoSuchProxy:
    """A class no decoded value has: what :func:`_sdk_proxy_kinds` gives when the SDK's proxies changed."""


def _sdk_proxies() -> tuple[type, type]:
    import pulumi_policy.proxy as proxy

    return _sdk_proxy_kinds(proxy)


#: The analyzer's eager proxies (the props a stack policy gets), read through to the containers they wrap.
_SDK_DICT, _SDK_LIST = _sdk_proxies()


def to_policy_props(value: Any, unknown_marker: str | None = None) -> Any:
    """A plain copy of ``value`` with the plan's unknown marker replaced by the SDK's unknown sentinel.

    At preview the engine sends every unknown as one string sentinel
    (``pulumi.runtime.rpc.UNKNOWN`` == ``pulumi_policy.proxy.UNKNOWN_STRING_VALUE``).
    """
    if unknown_marker is None:
        unknown_marker = _UNKNOWN
    if type(value) is _SDK_DICT or type(value) is _SDK_LIST:  # the decoded container, unknowns unread
        value = value["__target"]
    if isinstance(value, Mapping):
        return {k: to_policy_props(v, unknown_marker) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_policy_props(v, unknown_marker) for v in value]
    if isinstance(value, str) and value == unknown_marker:
        return UNKNOWN_STRING_VALUE
    return value


#: The SDK's unknown sentinels (what ``pulumi_policy.proxy._is_unknown`` looks for).
_SENTINELS = frozenset((
    UNKNOWN_BOOLEAN_VALUE, UNKNOWN_NUMBER_VALUE, UNKNOWN_STRING_VALUE, UNKNOWN_ARRAY_VALUE, UNKNOWN_ASSET_VALUE,
    UNKNOWN_ARCHIVE_VALUE, UNKNOWN_OBJECT_VALUE,
))


def _unknown(value: Any, marker: str) -> str | None:
    """The SDK sentinel ``value`` stands for when it is unknown at preview, else None."""
    if isinstance(value, str):
        if value == marker:
            return UNKNOWN_STRING_VALUE
        if _is_unknown(value):
            return value
    return None


def _lazy(value: Any, path: tuple[str, ...], marker: str) -> Any:
    """``value`` as the proxy (or plain value) ``unknown_checking_proxy(to_policy_props(value))`` holds
    at ``path``; an unknown scalar is returned as its sentinel (it raises only when read through a parent)."""
    kind = type(value)
    if kind is dict:
        return _LazyDictProxy(value, path, marker)
    if kind is list:
        return _LazyListProxy(value, path, marker)
    if kind is str:
        return UNKNOWN_STRING_VALUE if value == marker else value
    if kind in (int, float, bool) or value is None:
        return value
    if kind is _SDK_DICT:  # the analyzer's eager proxy: read the dict it wraps (same values, same unknowns)
        return _LazyDictProxy(value["__target"], path, marker)
    if kind is _SDK_LIST:
        return _LazyListProxy(value["__target"], path, marker)
    if isinstance(value, Mapping):
        return _LazyDictProxy(value, path, marker)
    if isinstance(value, list):
        return _LazyListProxy(value, path, marker)
    if isinstance(value, tuple):
        return _LazyListProxy(list(value), path, marker)
    sentinel = _unknown(value, marker)
    return value if sentinel is None else sentinel


class _UnknownInside(Exception):
    """:func:`_plain_of` met an unknown: its sentinel, and the keys from it up to where the copy began."""

    def __init__(self, sentinel: str) -> None:
        super().__init__(sentinel)
        self.sentinel = sentinel
        self.keys: list[str] = []


class _NotJson(ValueError):
    """:func:`_plain_of` met a value that is not JSON-like: the caller copies the slow way."""


#: How many times a policy wrote through a lazy proxy in this process: the fast copy reads the
#: unconverted inputs, which would miss such a write, so it is used only while this stays 0.
_WRITES = [0]


def _plain_of(value: Any, marker: str) -> Any:
    """``plain(proxy)`` computed on the unconverted inputs the proxy reads, without building a proxy per
    level: the same copy (integral floats as ints), the same first unknown (depth first, in key order)."""
    kind = type(value)
    if kind is str:
        if value == marker:
            raise _UnknownInside(UNKNOWN_STRING_VALUE)
        if value in _SENTINELS:
            raise _UnknownInside(value)
        return value
    if kind is _SDK_DICT or kind is _SDK_LIST:  # the analyzer's proxy: copy the container it wraps
        value = value["__target"]
        kind = type(value)
    if kind is dict:
        out = {}
        for key, item in value.items():
            try:
                out[key] = _plain_of(item, marker)
            except _UnknownInside as inside:
                inside.keys.append(str(key))
                raise
        return out
    if kind is list:
        items_out = []
        for index, item in enumerate(value):
            try:
                items_out.append(_plain_of(item, marker))
            except _UnknownInside as inside:
                inside.keys.append(str(index))
                raise
        return items_out
    if value is None or kind is int or kind is bool:
        return value
    if kind is float:
        return int(value) if value.is_integer() else value
    raise _NotJson


def _fast_plain(proxy: Any) -> Any:
    """The plain copy of a lazy proxy (see :func:`gpu_node_pool.sdk.props.plain`), or ``_NotJson``'s fallback."""
    if _WRITES[0]:
        raise _NotJson
    try:
        return _plain_of(proxy._target, proxy._marker)
    except _UnknownInside as inside:
        raise UnknownValueError(inside.sentinel, [*proxy._path, *reversed(inside.keys)]) from None


class _LazyDictProxy(Mapping):
    """``pulumi_policy.proxy._DictProxy``, built on first access instead of eagerly, over the unconverted inputs.

    Reads behave as ``unknown_checking_proxy(to_policy_props(target))``: nested mappings and
    lists come back as proxies (made once and kept), the plan's unknown marker and the SDK
    sentinels raise ``UnknownValueError`` with the same path; ``proxy["__target"]`` is what the
    SDK's proxy holds.
    """

    __slots__ = ("_target", "_path", "_marker", "_children", "_assigned", "_derived")

    def __init__(self, target: Mapping[str, Any], path: tuple[str, ...], marker: str):
        self._target = target
        self._path = path
        self._marker = marker
        self._children: dict[Any, Any] | None = None
        self._assigned: set[Any] | None = None
        self._derived: dict[Any, Any] | None = None

    @property
    def derived(self) -> dict[Any, Any]:
        """Values the policy helpers computed from this mapping (:func:`gpu_node_pool.sdk.props.derived`):
        the proxy is shared by every policy of one evaluation, so each reads a workload once."""
        if self._derived is None:
            self._derived = {}
        return self._derived

    def __getitem__(self, key):
        children = self._children
        if children is not None:
            try:
                child = children.get(key, children)
            except TypeError:  # an unhashable key: the mapping lookup below raises as the SDK's would
                child = children
            if child is not children:
                return child
        if key == "__target":
            return _proxy_helper(to_policy_props(self._target, self._marker), list(self._path))["__target"]
        value = self._target[key]
        if self._assigned is not None and key in self._assigned:  # set through the proxy: returned as set
            if _is_unknown(value):
                raise UnknownValueError(value, [*self._path, str(key)])
            return value
        kind = type(value)
        if kind is str:  # the most common read: a plain string, or an unknown
            if value == self._marker:
                raise UnknownValueError(UNKNOWN_STRING_VALUE, [*self._path, str(key)])
            if value in _SENTINELS:
                raise UnknownValueError(value, [*self._path, str(key)])
            return value
        if value is None or kind is int or kind is float or kind is bool:
            return value
        if kind is dict:
            child = _LazyDictProxy(value, (*self._path, str(key)), self._marker)
        elif kind is list:
            child = _LazyListProxy(value, (*self._path, str(key)), self._marker)
        elif kind is _SDK_DICT:  # the analyzer's eager proxy (its values checked as they are read here)
            child = _LazyDictProxy(value["__target"], (*self._path, str(key)), self._marker)
        elif kind is _SDK_LIST:
            child = _LazyListProxy(value["__target"], (*self._path, str(key)), self._marker)
        else:
            sentinel = _unknown(value, self._marker)
            if sentinel is not None:
                raise UnknownValueError(sentinel, [*self._path, str(key)])
            child = _lazy(value, (*self._path, str(key)), self._marker)
        if children is None:
            children = self._children = {}
        children[key] = child
        return child

    def plain_copy(self) -> Any:
        """What :func:`gpu_node_pool.sdk.props.plain` makes of this proxy, read straight from the inputs."""
        return _fast_plain(self)

    def __repr__(self) -> str:  # a message that shows a value shows the value, not the proxy's address
        return repr(self._target)

    def __setitem__(self, key, value):
        # Never write into the inputs the proxy reads (they are the caller's, and other policies'):
        # copy the level on the first write.
        _WRITES[0] += 1
        if self._assigned is None:
            self._target = dict(self._target)
            self._assigned = set()
        self._target[key] = value
        self._assigned.add(key)
        if self._children is not None:
            self._children.pop(key, None)
        self._derived = None

    def __len__(self) -> int:
        return len(self._target)

    def __iter__(self):
        return iter(self._target)


class _LazyListProxy(Sequence):
    """``pulumi_policy.proxy._ListProxy``, built on first access (see :class:`_LazyDictProxy`)."""

    __slots__ = ("_target", "_path", "_marker", "_children")

    def __init__(self, target: list[Any], path: tuple[str, ...], marker: str):
        self._target = target
        self._path = path
        self._marker = marker
        self._children: dict[int, Any] | None = None

    def _child(self, index: int) -> Any:
        children = self._children
        if children is None:
            children = self._children = {}
        child = children.get(index, self)
        if child is self:
            child = children[index] = _lazy(self._target[index], (*self._path, str(index)), self._marker)
        return child

    def __getitem__(self, key):
        target = self._target
        if key == "__target":
            return [self._child(i) for i in range(len(target))]
        if isinstance(key, slice):
            return [self._child(i) for i in range(len(target))[key]]
        value = target[key]
        kind = type(value)
        if kind is str:  # the most common read, as in _LazyDictProxy
            if value == self._marker:
                raise UnknownValueError(UNKNOWN_STRING_VALUE, [*self._path, str(key)])
            if value in _SENTINELS:
                raise UnknownValueError(value, [*self._path, str(key)])
            return value
        if value is None or kind is int or kind is float or kind is bool:
            return value
        sentinel = _unknown(value, self._marker)
        if sentinel is not None:
            raise UnknownValueError(sentinel, [*self._path, str(key)])
        index = operator.index(key)
        if index < 0:
            index += len(target)
        return self._child(index)

    def __len__(self) -> int:
        return len(self._target)

    def plain_copy(self) -> Any:
        """What :func:`gpu_node_pool.sdk.props.plain` makes of this proxy, read straight from the inputs."""
        return _fast_plain(self)

    def __repr__(self) -> str:
        return repr(self._target)


def policy_props(value: Any, unknown_marker: str | None = None) -> Any:
    """What a policy sees for inputs ``value``: ``unknown_checking_proxy(to_policy_props(value, unknown_marker))``,
    built lazily (nothing is copied up front, each level is wrapped on first read and kept).

    The inputs are never written to; a policy that assigns through the proxy writes into a copy.
    """
    if unknown_marker is None:
        unknown_marker = _UNKNOWN
    return _lazy(value, (), unknown_marker)
