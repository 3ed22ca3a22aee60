"""Config warnings: what is valid but risky, reported beside the plan and never a refusal.

A pool model contributes through :meth:`~gpu_node_pool.config.common.PoolBase.config_warnings`
(``[(sub-path, message)]``); :func:`stack_warnings` turns them into :class:`ConfigIssue` objects
with the pool's path. The plan prints them (``warnings:`` in the text, ``warnings`` in ``--json``,
``schemas/report.schema.json``); they never change the exit code.

What becomes a warning rather than an error (``STYLE``/issue 15 "Bad input"): facts marked
UNCONFIRMED, known risks of an instance type (``catalog`` ``InstanceType.warnings``), what the
catalog cannot judge, and an instance type unknown to the catalog under
``allowUnknownInstanceTypes: true``.
"""

from __future__ import annotations

from typing import Any

from .errors import ConfigIssue

__all__ = ["stack_warnings"]


def stack_warnings(stack: Any) -> list[ConfigIssue]:
    """Every pool's warnings, in pool order, each once: ``ConfigIssue("pools[1].instanceTypes", "...")``."""
    out: list[ConfigIssue] = []
    for i, pool in enumerate(stack.pools):
        for sub, message in pool.config_warnings():
            issue = ConfigIssue(f"pools[{i}]" + (f".{sub}" if sub else ""), message)
            if issue not in out:
                out.append(issue)
    return out
