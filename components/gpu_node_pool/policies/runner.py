"""Run the pack in-process over recorded resources, the way ``pulumi preview --policy-pack`` does.

Used by ``gpupool plan`` and the tests. What matches a real preview:

* every resource policy sees each resource's inputs (camelCase) wrapped with
  ``unknown_checking_proxy``; values unknown at preview are the wire sentinel (the plan's
  :data:`gpu_node_pool.k8s.wellknown.UNKNOWN` marker is mapped to it), so reading one raises
  ``UnknownValueError``. (The runner builds these proxies lazily and once per resource, shared
  by every policy: :func:`policy_props` behaves as ``unknown_checking_proxy(to_policy_props(...))``
  without copying the whole stack once per policy; policies never write to props.)
* every stack policy sees all resources (inputs stand for outputs at preview), with
  ``parent``, ``dependencies`` and ``property_dependencies`` resolved to resources;
* a policy that raises ``UnknownValueError`` yields an *advisory* "can't run policy ...
  during preview" finding (as the SDK's analyzer does); ``args.not_applicable()`` yields
  nothing;
* the policy pack config has the ``--policy-pack-config`` JSON format:
  ``{"all": "<level>", "<policy>": "<level>" | {"enforcementLevel": "<level>", <props>}}``;
  a policy's level beats ``all``; ``remediate`` counts as ``mandatory``; ``disabled`` skips it.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import json
import operator
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.policy import _NotApplicableError
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
from ..sdk.record import Resource
from .rules import JUDGES, PACK_NAME, POLICIES

__all__ = [
    "StackResource",
    "PolicyConfigError",
    "load_policy_pack_config",
    "resolve_config",
    "to_policy_props",
    "policy_props",
    "evaluate",
]

_LEVELS = {level.value: level for level in EnforcementLevel}


#: The record the runner takes: the one record type (``plan`` records the same).
StackResource = Resource


class PolicyConfigError(ValueError):
    """The policy pack config is invalid; the message names the policy, the property and the rule."""


def load_policy_pack_config(path: str | Path) -> dict[str, Any]:
    """Read a ``--policy-pack-config`` JSON file.

    Raises:
        PolicyConfigError: unreadable, not a regular file (a FIFO would block the read), not
            UTF-8 (JSON exchanged between systems must be UTF-8: RFC 8259 section 8.1,
            https://www.rfc-editor.org/rfc/rfc8259#section-8.1), not JSON, or not a JSON object.
    """
    from ..sdk.files import NotRegularFileError, read_input_text

    try:
        text, not_utf8 = read_input_text(path)
        data = json.loads(text)
    except NotRegularFileError as err:
        raise PolicyConfigError(f"policy pack config {path} {err.strerror}; give the path of a JSON file") from None
    except (OSError, json.JSONDecodeError) as err:
        raise PolicyConfigError(f"policy pack config {path}: {err}") from None
    if not_utf8:
        raise PolicyConfigError(f"policy pack config: {not_utf8}; JSON must be UTF-8 (RFC 8259 section 8.1); "
                                "save the file as UTF-8")
    if not isinstance(data, dict):
        raise PolicyConfigError(f"policy pack config {path}: must be a JSON object keyed by policy name or 'all'")
    return data


def resolve_config(config: Mapping[str, Any] | None,
                   policies: Sequence[Any] = POLICIES) -> dict[str, tuple[EnforcementLevel, dict[str, Any]]]:
    """Per policy: ``(enforcement level, config properties with schema defaults applied)``.

    Raises:
        PolicyConfigError: an unknown policy name, an unknown level, or properties that break
            the policy's JSON schema (checked with ``jsonschema``).
    """
    config = dict(config or {})
    by_name = {p.name: p for p in policies}
    errors = []
    all_level = None
    if "all" in config:
        all_level = _LEVELS.get(config["all"]) if isinstance(config["all"], str) else None
        if all_level is None:
            errors.append(f"all: {config['all']!r} is not an enforcement level ({', '.join(_LEVELS)})")
    for key in config:
        if key != "all" and key not in by_name:
            errors.append(f"{key}: no such policy in pack {PACK_NAME} ({', '.join(by_name)})")
    out: dict[str, tuple[EnforcementLevel, dict[str, Any]]] = {}
    for name, policy in by_name.items():
        level = policy.enforcement_level or EnforcementLevel.ADVISORY
        if all_level is not None:
            level = all_level
        props: dict[str, Any] = {}
        entry = config.get(name)
        if isinstance(entry, str):
            if entry not in _LEVELS:
                errors.append(f"{name}: {entry!r} is not an enforcement level ({', '.join(_LEVELS)})")
            else:
                level = _LEVELS[entry]
        elif isinstance(entry, Mapping):
            props = {k: v for k, v in entry.items() if k != "enforcementLevel"}
            if "enforcementLevel" in entry:
                if entry["enforcementLevel"] not in _LEVELS:
                    errors.append(f"{name}.enforcementLevel: {entry['enforcementLevel']!r} is not an enforcement level")
                else:
                    level = _LEVELS[entry["enforcementLevel"]]
        elif entry is not None:
            errors.append(f"{name}: must be an enforcement level or an object")
        schema = policy.config_schema
        if schema is not None:
            full = {"type": "object", "properties": schema.properties, "additionalProperties": False}
            if schema.required:
                full["required"] = schema.required
            if props or schema.required:  # no property given and none required: nothing can break the schema
                import jsonschema

                for err in jsonschema.Draft7Validator(full).iter_errors(props):
                    where = ".".join(str(p) for p in err.absolute_path)
                    errors.append(f"{name}{'.' + where if where else ''}: {err.message}")
            for key, prop in schema.properties.items():
                if key not in props and "default" in prop:
                    props[key] = json.loads(json.dumps(prop["default"]))
        elif props:
            errors.append(f"{name}: takes no properties (got {', '.join(props)})")
        out[name] = (level, props)
    if errors:
        raise PolicyConfigError("invalid policy pack config:\n  " + "\n  ".join(errors))
    return out


def to_policy_props(value: Any, unknown_marker: str | None = None) -> Any:
    """A plain copy of ``value`` with the plan's unknown marker replaced by the SDK's unknown sentinel.

    At preview the engine sends every unknown as one string sentinel
    (``pulumi.runtime.rpc.UNKNOWN`` == ``pulumi_policy.proxy.UNKNOWN_STRING_VALUE``).
    """
    if unknown_marker is None:
        unknown_marker = _UNKNOWN
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
        sentinel = _unknown(value, self._marker)
        if sentinel is not None:
            raise UnknownValueError(sentinel, [*self._path, str(key)])
        kind = type(value)
        if kind is str or value is None or kind is int or kind is float or kind is bool:
            return value
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


def _run(result: Any) -> None:
    if result is not None and inspect.isawaitable(result):  # validators return None but may be async
        asyncio.run(_await(result))


async def _await(result: Any) -> None:
    await result


def _stack_resources(resources: list[Any], urns: list[str], props: list[Any],
                     opts: PolicyResourceOptions) -> list[PolicyResource]:
    """The ``PolicyResource`` of every resource, with parent and dependencies resolved to resources."""
    stack_resources = [
        PolicyResource(res.type, p, urn, res.name, opts, None, None, [], {})
        for res, urn, p in zip(resources, urns, props, strict=True)
    ]
    by_urn = {r.urn: r for r in stack_resources}
    for res, pres in zip(resources, stack_resources, strict=True):
        parent = getattr(res, "parent", "")
        pres.parent = by_urn.get(parent) if parent else None
        deps = getattr(res, "dependencies", None)
        if deps:
            pres.dependencies = [by_urn[d] for d in deps if d in by_urn]
        prop_deps = getattr(res, "property_dependencies", None)
        if prop_deps:
            pres.property_dependencies = {k: [by_urn[d] for d in v if d in by_urn] for k, v in prop_deps.items()}
    return stack_resources


def policy_resources(resources: Iterable[Any], *, stack: str = "stack", project: str = "project",
                     unknown_marker: str | None = None) -> list[PolicyResource]:
    """The ``PolicyResource`` list a stack policy would get for ``resources`` (as :func:`evaluate`
    takes them), e.g. for :func:`gpu_node_pool.policies.pools.find_gpu_pools` outside a policy."""
    resources = list(resources)
    marker = _UNKNOWN if unknown_marker is None else unknown_marker
    opts = PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [])
    urns = [_urn(r, stack, project) for r in resources]
    return _stack_resources(resources, urns, [_lazy(r.inputs, (), marker) for r in resources], opts)


def _urn(res: Any, stack: str, project: str) -> str:
    return getattr(res, "urn", "") or f"urn:pulumi:{stack}::{project}::{res.type}::{res.name}"


def evaluate(resources: Iterable[Any], config: Mapping[str, Any] | None = None, *,
             policies: Sequence[Any] = POLICIES, stack: str = "stack", project: str = "project",
             unknown_marker: str | None = None) -> list[dict[str, str]]:
    """Evaluate ``policies`` over a stack's ``resources``; returns the findings.

    Args:
        resources: objects with ``type``, ``name``, ``inputs`` and optionally ``urn``,
            ``parent``, ``dependencies``, ``property_dependencies`` (:class:`StackResource`,
            the plan's ``Recorded``).
        config: a ``--policy-pack-config`` mapping (see :func:`resolve_config`).
        stack, project: used to synthesize URNs for resources that have none.
        unknown_marker: the string that stands for "unknown at preview" in ``inputs``
            (default: the plan's :data:`~gpu_node_pool.plan.UNKNOWN`).

    Returns:
        ``[{"policy", "enforcement", "resource", "urn", "message"}]`` in policy order; ``enforcement``
        is ``mandatory`` or ``advisory``; ``resource`` is ``"<type> <name>"`` or ``"stack"``;
        ``urn`` is that resource's URN, or the stack's (``urn:pulumi:<stack>::<project>::pulumi:pulumi:Stack::<project>-<stack>``,
        the root resource ``pulumi up`` creates) for a stack-level finding.

    Raises:
        PolicyConfigError: ``config`` is invalid.
    """
    # The policies make no reference cycles worth collecting, and a full collection walks every
    # input of the stack: on a 50k-resource stack the collector took more time than the policies.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _evaluate(resources, config, policies, stack, project, unknown_marker)
    finally:
        if collecting:
            gc.enable()


def _evaluate(resources: Iterable[Any], config: Mapping[str, Any] | None, policies: Sequence[Any], stack: str,
              project: str, unknown_marker: str | None) -> list[dict[str, str]]:
    settings = resolve_config(config, policies)
    resources = list(resources)
    urns = [_urn(r, stack, project) for r in resources]
    display = {urn: f"{r.type} {r.name}" for urn, r in zip(urns, resources, strict=True)}
    stack_urn = f"urn:pulumi:{stack}::{project}::pulumi:pulumi:Stack::{project}-{stack}"
    urn_of = {shown: urn for urn, shown in display.items()} | {"stack": stack_urn}
    # One lazily built proxy per resource, shared by every policy (the SDK builds one per policy
    # eagerly: the same values, read the same way; policies do not write to props).
    if unknown_marker is None:
        unknown_marker = _UNKNOWN
    props = [_lazy(r.inputs, (), unknown_marker) for r in resources]
    opts = PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [])
    stack_resources: list[PolicyResource] | None = None
    by_type: dict[str, list[int]] | None = None  # type token -> positions, for the resource policies' types
    shared: dict[Any, Any] = {}
    findings: list[dict[str, str]] = []

    def reporter(policy: Any, level: EnforcementLevel, default_resource: str):
        def report(message: str, urn: str | None = None) -> None:
            known = bool(urn) and urn in display
            findings.append(
                {
                    "policy": policy.name,
                    "enforcement": level.value,
                    "resource": display[urn] if known else default_resource,
                    "urn": urn if known else urn_of.get(default_resource, stack_urn),
                    "message": message,
                }
            )

        return report

    def cannot_run(policy: Any, resource: str, err: UnknownValueError) -> None:
        findings.append(
            {
                "policy": policy.name,
                "enforcement": EnforcementLevel.ADVISORY.value,
                "resource": resource,
                "urn": urn_of.get(resource, stack_urn),
                "message": f"can't run policy '{policy.name}' during preview: {err.message}",
            }
        )

    for policy in policies:
        level, policy_config = settings[policy.name]
        if level == EnforcementLevel.DISABLED:
            continue
        if level == EnforcementLevel.REMEDIATE:
            level = EnforcementLevel.MANDATORY
        if isinstance(policy, ResourceValidationPolicy):
            # One reporter per policy, told which resource is being judged; resources of types the
            # policy does not read (rules.JUDGES) are skipped, decided once per type.
            current = ["", ""]  # the URN and the "<type> <name>" of the resource being judged

            def report(message: str, urn: str | None = None, _name: str = policy.name, _level: str = level.value,
                       _current: list[str] = current) -> None:
                known = bool(urn) and urn in display
                findings.append({"policy": _name, "enforcement": _level,
                                 "resource": display[urn] if known else _current[1],
                                 "urn": urn if known else _current[0],
                                 "message": message})

            judged, reads = JUDGES.get(policy.name, (None, None))
            if judged is not policy or reads is None:
                positions: Iterable[int] = range(len(resources))
            else:  # only the resources of the types it reads, in stack order
                if by_type is None:
                    by_type = {}
                    for i, res in enumerate(resources):
                        by_type.setdefault(res.type, []).append(i)
                positions = sorted(i for t, found in by_type.items() if reads(t) for i in found)
            for i in positions:
                res, urn, p = resources[i], urns[i], props[i]
                args = ResourceValidationArgs(res.type, p, urn, res.name, opts, None, dict(policy_config))
                current[0], current[1] = urn, display[urn]
                try:
                    _run(policy.validate(args, report))
                except UnknownValueError as err:
                    cannot_run(policy, display[urn], err)
                except _NotApplicableError:
                    pass
        elif isinstance(policy, StackValidationPolicy):
            if stack_resources is None:  # built once; each stack policy gets its own list of them
                stack_resources = _stack_resources(resources, urns, props, opts)
            args = StackValidationArgs(list(stack_resources), dict(policy_config))
            args.derived = shared  # what the stack policies derive from the stack, found once
            try:
                _run(policy.validate(args, reporter(policy, level, "stack")))
            except UnknownValueError as err:
                cannot_run(policy, "stack", err)
            except _NotApplicableError:
                pass
    return findings
