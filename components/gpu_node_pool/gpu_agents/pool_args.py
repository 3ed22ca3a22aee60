"""The ``pools`` argument of a GPU agent's args class (``NvidiaDevicePluginArgs``, ``EfaDevicePluginArgs``,
``GkeDriverInstallerArgs``), checked once for all of them. Pure.

:func:`pool_models` returns the pool models, or raises one :class:`~gpu_node_pool.config.ConfigError` of the args
class naming the argument (``pools`` or ``pools[<i>]``), what it got (:func:`kind_of`) and the fix: a list of
validated pool models (``GpuNodePool.spec``), not a ``GpuNodePool`` and not one model on its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..config import ConfigError, ConfigIssue, PoolConfig

__all__ = ["kind_of", "pool_models"]

#: What a value is, in the words of a Python program's author: the built-in types by their everyday names.
_KINDS: dict[type, str] = {
    type(None): "None",
    bool: "a bool",
    int: "an int",
    float: "a float",
    str: "a string",
    bytes: "bytes",
    dict: "a dict (a mapping)",
    list: "a list",
    tuple: "a tuple",
    set: "a set",
    frozenset: "a frozenset",
}


def kind_of(value: Any) -> str:
    """What ``value`` is, for a message's ``got ...``: ``None``, ``a string``, ``a dict (a mapping)``, ``an int``,
    ``a list``, ...; another mapping ``a mapping (<class>)``; any other object its class with an article
    (``an EksManagedPool``, ``a GpuNodePool``)."""
    kind = _KINDS.get(type(value))
    if kind is not None:
        return kind
    name = type(value).__name__
    if isinstance(value, Mapping):
        return f"a mapping ({name})"
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _spec(value: Any) -> PoolConfig | None:
    """The pool model of a ``GpuNodePool`` (its ``.spec``), None for anything else."""
    spec = getattr(value, "spec", None)
    return spec if isinstance(spec, PoolConfig) else None


def pool_models(pools: Any, args_name: str, example: str) -> list[PoolConfig]:
    """The pool models of ``<args_name>.pools``, in order.

    Args:
        pools: what the program passed: a sequence of validated pool models (``GpuNodePool.spec``).
        args_name: the args class, the error's source (``EfaDevicePluginArgs``).
        example: a call that passes them right (``EfaDevicePluginArgs(cluster_name='ml', pools=[pool.spec])``),
            shown when ``pools`` is no list.

    Raises:
        ConfigError: (source ``args_name``, one issue) ``pools`` is a string, bytes, a mapping or no sequence (at
            ``pools``: ``expected a list of pool models (GpuNodePool.spec), got a dict (a mapping); e.g. ...``; one
            pool model or ``GpuNodePool`` on its own is told to go in a list), or an item is a ``GpuNodePool`` (at
            ``pools[<i>]``: ``is the GpuNodePool 'inference'; pass its validated model: pools=[inference.spec,
            ...]``) or anything else that is not a pool model (at ``pools[<i>]``: ``expected a pool model
            (GpuNodePool.spec), got None``).
    """
    if isinstance(pools, (str, bytes, Mapping)) or not isinstance(pools, Sequence):
        one = pools if isinstance(pools, PoolConfig) else _spec(pools)
        fix = (f"; put it in a list: pools=[{one.name}.spec]" if one is not None else f"; e.g. {example}")
        got = kind_of(pools) if one is None else f"{kind_of(pools)} (pool {one.name!r}) on its own"
        raise _fail(args_name, "pools", f"expected a list of pool models (GpuNodePool.spec), got {got}{fix}")
    models: list[PoolConfig] = []
    for i, pool in enumerate(pools):
        if isinstance(pool, PoolConfig):
            models.append(pool)
            continue
        spec = _spec(pool)
        if spec is not None:
            raise _fail(args_name, f"pools[{i}]", f"is the GpuNodePool {spec.name!r}; pass its validated model: "
                                                  f"pools=[{spec.name}.spec, ...]")
        raise _fail(args_name, f"pools[{i}]", f"expected a pool model (GpuNodePool.spec), got {kind_of(pool)}")
    return models


def _fail(source: str, path: str, message: str) -> ConfigError:
    return ConfigError([ConfigIssue(path, message)], source)
