"""The model's mistakes of a stack file whose plain scalars were refused, so that one run reports every mistake.

:func:`gpu_node_pool.config.loading.read_stack_file` refuses what Pulumi's YAML reader makes of some scalars (a date,
``0x1F``, ``010``, ``.inf``: :func:`.stack_yaml._yaml_type_problems`) before the models see the file; the models'
own mistakes elsewhere in it (``example.com/n: ~``, a bad label beside them) are found here, on the file with each
refused scalar read as the program would get it (a number's value, else its text), and reported beside them. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .defaults import PROJECT
from .errors import ConfigError, ConfigIssue
from .locations import path_segments
from .pulumi_scalars import AsWritten

__all__ = ["model_issues_beside"]


def _as_read(value: Any) -> Any:
    """``value`` with each kept scalar (:class:`AsWritten`) as the program gets it: a number's value, else its text;
    mapping keys that are no strings are left out (they are refused on their own)."""
    if isinstance(value, Mapping):
        return {k: _as_read(v) for k, v in value.items() if isinstance(k, str)}
    if isinstance(value, list):
        return [_as_read(v) for v in value]
    if isinstance(value, AsWritten):
        number = getattr(value, "value", None)
        return number if isinstance(number, int | float) else value.text
    return value


def model_issues_beside(doc: Mapping[str, Any], project: str, refused: Iterable[ConfigIssue]) -> list[ConfigIssue]:
    """The mistakes :func:`~gpu_node_pool.config.loading.load_stack_config` finds in the stack file ``doc`` (its
    ``config:`` keys in ``project``'s namespace), but those at or under a path of ``refused`` (the scalars already
    refused there) and those of a top-level key the file does not write (``Pulumi.yaml``'s ``config:`` may give it)."""
    from .loading import load_stack_config, stack_file_config

    config_map = doc.get("config")
    if not isinstance(config_map, Mapping):
        return []
    written = set()
    for key in config_map:
        if isinstance(key, str):
            ns, colon, short = key.rpartition(":")
            written.add(short if (ns if colon else project) == PROJECT else key)
    config, _ = stack_file_config({"config": _as_read(config_map)}, project)
    try:
        load_stack_config(config)
    except ConfigError as err:
        found = err.issues
    else:
        return []
    done = [path_segments(i.path) for i in refused]
    out = []
    for issue in found:
        at = path_segments(issue.path)
        if at and at[0] in written and not any(at[:len(d)] == d for d in done if d):
            out.append(issue)
    return out
