"""What Construct receives, turned into the stack config the Python path validates, and its errors back.

The component provider hands a component its inputs as dicts under the Python names of
:mod:`.types` (``instance_types``), enums as members, integers inside lists as floats (every number
crosses the wire as a double), a Karpenter limit as a quantity string (``"16"``: the schema has no
number-or-string type; a whole number is given to the validator as the stack file's ``16``).
:func:`stack_mapping` turns them into the camelCase mapping a stack
file holds, so that :func:`gpu_node_pool.config.loading.validate_stack_config` judges them exactly
as it judges ``GpuNodePoolArgs(pool={...}, cluster={...})`` in Python: same rules, same messages.
:func:`argument_path` names a config path (``pools[0].instanceTypes``) the way the component's
arguments spell it (``pool.eksManaged.instanceTypes``).
"""

from __future__ import annotations

import dataclasses
import enum
import re
import types
import typing
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, get_args, get_origin

from pydantic import BaseModel

from ..config import ConfigError, ConfigIssue
from ..config.common import PoolBase
from ..registry import find
from . import types as arg_types

__all__ = ["argument_path", "arguments", "model_mapping", "pool_mapping", "stack_mapping", "validated", "wrong_blocks"]

#: An argument path per pool: ``(the PoolArgs dict, "pool")`` or ``(..., "pools[1]")``.
Pools = list[tuple[Mapping[str, Any], str]]


def _plain(annotation: Any, value: Any) -> Any:
    """``value`` as the stack file would hold it for a field typed ``annotation``."""
    while get_origin(annotation) is typing.Annotated:
        annotation = get_args(annotation)[0]
    if isinstance(value, enum.Enum):
        return value.value
    origin = get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in get_args(annotation) if a is not type(None)]
        if len(rest) == 1:
            return _plain(rest[0], value)
        if set(rest) == {int, str}:  # a quantity (Karpenter limits): "16" is the stack file's 16
            if isinstance(value, str) and value.isdigit():
                return int(value)
            if isinstance(value, float) and value.is_integer():
                return int(value)
        return value
    if isinstance(annotation, type) and issubclass(annotation, BaseModel) and isinstance(value, Mapping):
        return model_mapping(annotation, value)
    if origin in (list, typing.Sequence) and isinstance(value, list):
        (item,) = get_args(annotation)
        return [_plain(item, v) for v in value]
    if origin is dict and isinstance(value, Mapping):
        return {k: _plain(get_args(annotation)[1], v) for k, v in value.items()}
    if annotation is int and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def model_mapping(model: type[BaseModel], value: Mapping[str, Any]) -> dict[str, Any]:
    """The camelCase mapping of ``model`` from Python-named ``value`` (unknown keys kept, for the validator to name)."""
    out: dict[str, Any] = {}
    by_alias = {f.alias: f for f in model.model_fields.values() if f.alias}
    for key, item in value.items():
        field = model.model_fields.get(key) or by_alias.get(key)
        if field is None:
            out[key] = item
            continue
        out[field.alias or key] = _plain(field.annotation, item)
    return out


def pool_mapping(pool: Mapping[str, Any], where: str) -> dict[str, Any]:
    """A ``PoolArgs`` dict as one item of the stack's ``pools``: the shared fields and the backend's block, merged.

    Raises:
        ConfigError: a block of another backend is given (``pool.gke`` with ``backend: eks-managed``),
            naming the backend the block belongs to.
    """
    backend = pool.get("backend")
    backend = backend.value if isinstance(backend, enum.Enum) else backend
    issues = wrong_blocks(backend, [b for b in arg_types.BLOCKS if pool.get(b) is not None], where)
    if issues:
        raise ConfigError(issues, "pool arguments")
    out = model_mapping(PoolBase, {k: v for k, v in pool.items() if k not in arg_types.BLOCKS and k != "backend"})
    out["backend"] = backend
    for block, owner in arg_types.BLOCKS.items():
        given = pool.get(block)
        if given is not None:
            found = find(owner)
            out.update(model_mapping(found.model() if found else PoolBase, given))
    return out


def wrong_blocks(backend: Any, blocks: list[str], where: str) -> list[ConfigIssue]:
    """One issue per block of ``blocks`` (Python names, ``eks_managed``) that belongs to another backend than
    ``backend`` (the pool's ``backend`` value), at ``<where>.<camelCase block>``, naming its owner and the fix."""
    issues = []
    for block in blocks:
        owner = arg_types.BLOCKS[block]
        if owner != backend:
            own = arg_types.BLOCKS.get(arg_types.backend_block(str(backend)))
            move = f"move these fields to the {arg_types.camel(arg_types.backend_block(str(backend)))} block or " if own else ""
            issues.append(ConfigIssue(
                f"{where}.{arg_types.camel(block)}",
                f"is the {owner} block, but backend is {backend!r}; {move}set backend: {owner}"))
    return issues


def stack_mapping(cluster: Mapping[str, Any], pools: Pools,
                  **settings: Mapping[str, Any] | None) -> dict[str, Any]:
    """The stack config of ``cluster``, ``pools`` (each with its argument path) and the stack-wide
    ``settings`` (``device_plugin``, ``gpu_agents``, ``admission``: ``StackConfig`` field names)."""
    from ..config.stack import ClusterConfig, StackConfig

    out: dict[str, Any] = {"cluster": model_mapping(ClusterConfig, cluster),
                           "pools": [pool_mapping(p, where) for p, where in pools]}
    for name, value in settings.items():
        if value is not None:
            field = StackConfig.model_fields[name]
            out[field.alias or name] = _plain(field.annotation, value)
    return out


_POOL_ITEM = re.compile(r"^pools\[(\d+)\]\.?")


def argument_path(path: str, pools: Pools, settings: Mapping[str, str]) -> str:
    """The component argument a config path names: ``pools[0].instanceTypes`` -> ``pool.eksManaged.instanceTypes``
    (when ``pools[0]`` came from ``pool``), ``devicePlugin.namespace`` -> ``config.namespace`` (``settings``
    maps a stack path prefix to its argument, the longest prefix first); other paths (``cluster.name``) are the arguments' own."""
    match = _POOL_ITEM.match(path)
    index, rest = (int(match.group(1)), path[match.end():]) if match else (None, "")
    for i, (_, where) in enumerate(pools):  # a component that already names its pool argument (``pool.scaling``)
        if index is None and (path == where or path.startswith(where + ".")):
            index, rest = i, path[len(where):].lstrip(".")
    if index is not None and index < len(pools):
        pool, where = pools[index]
        key = re.split(r"[.\[]", rest, maxsplit=1)[0]
        backend = pool.get("backend")
        backend = backend.value if isinstance(backend, enum.Enum) else backend
        if key and key not in _shared_keys() and backend is not None:
            return f"{where}.{arg_types.camel(arg_types.backend_block(str(backend)))}.{rest}"
        return f"{where}.{rest}" if rest else where
    for prefix in sorted(settings, key=len, reverse=True):
        if path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "["):
            rest = path[len(prefix):].lstrip(".")
            return f"{settings[prefix]}.{rest}" if rest and not rest.startswith("[") else settings[prefix] + rest
    return path


def _shared_keys() -> set[str]:
    """The keys at the top of a ``PoolArgs``: the shared fields, ``backend`` and the blocks."""
    return {f.alias or k for k, f in PoolBase.model_fields.items()} | {"backend"} | {
        arg_types.camel(b) for b in arg_types.BLOCKS}


def validated(mapping: Mapping[str, Any], source: str) -> Any:
    """The :class:`~gpu_node_pool.config.stack.StackConfig` of a :func:`stack_mapping`, validated as the
    Python path validates it (identity values given as Outputs are not judged, as in ``GpuNodePoolArgs``).

    Raises:
        ConfigError: every mistake, with its config path (see :func:`arguments` for the argument path).
    """
    from ..config.loading import validate_stack_config
    from ..sdk import cluster_inputs

    cluster = mapping.get("cluster") or {}
    outputs = [cluster_inputs.IDENTITY_KEYS[k] for k, v in cluster.items()
               if k in cluster_inputs.IDENTITY_KEYS and cluster_inputs.has_output(v)]
    return validate_stack_config(mapping, source, outputs)


@contextmanager
def arguments(component: str, pools: Pools, settings: Mapping[str, str] | None = None) -> Iterator[None]:
    """Inside: a :class:`ConfigError` is raised again with each issue's path as an argument path
    (:func:`argument_path`), the same message, location and note flag (:attr:`ConfigIssue.not_judged`: the note
    that stack rules were not run stays a note, listed after the mistakes and not counted) and the same source
    (``GpuNodePool 'inference'``)."""
    try:
        yield
    except ConfigError as err:
        issues = [dataclasses.replace(i, path=argument_path(i.path, pools, settings or {})) for i in err.issues]
        raise ConfigError(issues, err.source) from None
