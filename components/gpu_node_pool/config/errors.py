"""Config errors: one :class:`ConfigIssue` per mistake, :class:`ConfigError` listing them all."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported by _fail: importing ConfigError loads no pydantic
    from pydantic_core import PydanticCustomError


class ConfigIssue:
    """One mistake in the stack config.

    Attributes:
        path: where it is, e.g. ``pools[1].taints[0].effect``.
        message: the bad value, the rule and the fix, as one sentence.
    """

    __slots__ = ("path", "message")

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    def __repr__(self) -> str:
        return f"ConfigIssue({self.path!r}, {self.message!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConfigIssue) and (self.path, self.message) == (other.path, other.message)

    def __hash__(self) -> int:
        return hash((self.path, self.message))


class ConfigError(ValueError):
    """The stack config is invalid. ``issues`` lists every mistake; ``str()`` prints one per line."""

    def __init__(self, issues: list[ConfigIssue], source: str = "stack config") -> None:
        self.issues = issues
        self.source = source
        lines = [f"{len(issues)} error(s) in the {source}; nothing was deployed:"]
        lines += [f"  {issue}" for issue in issues]
        super().__init__("\n".join(lines))


def _fail(message: str) -> PydanticCustomError:
    from pydantic_core import PydanticCustomError

    return PydanticCustomError("gpu_node_pools", "{reason}", {"reason": message})


# --- building blocks --------------------------------------------------------------------
