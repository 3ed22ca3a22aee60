"""Config errors: one :class:`ConfigIssue` per mistake, :class:`ConfigError` listing them all."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported by fail: importing ConfigError loads no pydantic
    from pydantic_core import PydanticCustomError


@dataclass(frozen=True, slots=True)
class ConfigIssue:
    """One mistake in the stack config; immutable, compared and hashed by ``(path, message)``.

    Attributes:
        path: where it is, e.g. ``pools[1].taints[0].effect``; empty for the config as a whole.
        message: the bad value, the rule and the fix, as one sentence.

    ``str()`` gives ``"<path>: <message>"`` (only the message when ``path`` is empty); ``repr()``
    gives ``ConfigIssue(path='...', message='...')``. Assigning a field raises
    :class:`dataclasses.FrozenInstanceError`.
    """

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ConfigError(ValueError):
    """The stack config is invalid. ``issues`` lists every mistake; ``str()`` prints one per line."""

    def __init__(self, issues: list[ConfigIssue], source: str = "stack config") -> None:
        self.issues = issues
        self.source = source
        super().__init__("\n".join(self.lines()))

    def lines(self) -> list[str]:
        """The lines of ``str()``: the count and the source, then ``"  <path>: <message>"`` per issue
        (what a report joins, escaping each line, so a value cannot start a line of its own)."""
        return [f"{len(self.issues)} error(s) in the {self.source}; nothing was deployed:",
                *(f"  {issue}" for issue in self.issues)]


def fail(message: str) -> PydanticCustomError:
    """The error a config validator raises for a broken rule: ``raise fail("<value> ...; <fix>")``.

    ``message`` is the whole sentence the user reads (bad value, rule, fix); pydantic reports it
    at the field's path and :func:`gpu_node_pool.config.loading.validate_stack_config` turns it
    into a :class:`ConfigIssue` with that path. Returns a ``pydantic_core.PydanticCustomError``
    of type ``gpu_node_pools`` (imported on call, so importing this module loads no pydantic).
    """
    from pydantic_core import PydanticCustomError

    return PydanticCustomError("gpu_node_pools", "{reason}", {"reason": message})


# --- building blocks --------------------------------------------------------------------
