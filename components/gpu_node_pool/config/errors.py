"""Config errors: one :class:`ConfigIssue` per mistake, :class:`ConfigError` listing them all."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported by fail: importing ConfigError loads no pydantic
    from pydantic_core import PydanticCustomError


@dataclass(frozen=True, slots=True)
class Location:
    """A place in a file, as editors and compilers print it: ``<file>:<line>:<column>``.

    Attributes:
        file: the file's path relative to the project directory (``stacks/Pulumi.dev.yaml``), POSIX separators.
        line, column: counted from 1 (PyYAML's marks count from 0; :mod:`gpu_node_pool.config.locations` adds 1).
    """

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def to_json(self) -> dict[str, Any]:
        """``{"file", "line", "column"}`` (the ``location`` of ``cli/report.schema.json``'s ``configErrors``)."""
        return {"file": self.file, "line": self.line, "column": self.column}


@dataclass(frozen=True, slots=True)
class ConfigIssue:
    """One mistake in the stack config; immutable, compared and hashed by ``(path, message)``.

    Attributes:
        path: where it is, e.g. ``pools[1].taints[0].effect``; empty for the config as a whole.
        message: the bad value, the rule and the fix, as one sentence.
        location: where the offending key is in the stack file (:class:`Location`), or None when
            the issue did not come from a file (a program's own config map). Not compared, not in ``repr()``.
        not_judged: True for a note, not a mistake: rules that could not run until the mistakes reported with
            it are fixed (it names them). A :class:`ConfigError` lists notes after its mistakes and does not
            count them; ``to_json()`` marks one ``"notJudged": true``. Not compared, not in ``repr()``.

    ``str()`` gives ``"<file>:<line>:<column>: <path>: <message>"``, leaving out the location when
    there is none and the path when it is empty or already names the place; ``repr()`` gives
    ``ConfigIssue(path='...', message='...')``. Assigning a field raises
    :class:`dataclasses.FrozenInstanceError`.
    """

    path: str
    message: str
    location: Location | None = field(default=None, compare=False, repr=False)
    not_judged: bool = field(default=False, compare=False, repr=False)

    def __str__(self) -> str:
        where = str(self.location) if self.location is not None else ""
        names_place = self.location is not None and any(
            self.path == text or text.endswith("/" + self.path) for text in (where, self.location.file))
        path = "" if names_place else self.path
        return ": ".join(part for part in (where, path, self.message) if part)

    def to_json(self) -> dict[str, Any]:
        """``{"path", "message"}`` plus ``"location": {"file", "line", "column"}`` when it has one and
        ``"notJudged": true`` for a note (:attr:`not_judged`)."""
        out: dict[str, Any] = {"path": self.path, "message": self.message}
        if self.location is not None:
            out["location"] = self.location.to_json()
        if self.not_judged:
            out["notJudged"] = True
        return out


class ConfigError(ValueError):
    """The stack config is invalid. ``issues`` lists every mistake, and any note of rules not judged until they
    are fixed (:attr:`ConfigIssue.not_judged`); ``str()`` prints one per line. ``registered``: how many resources
    the program had registered when the error was raised (0: before any, as for the stack file's mistakes), which
    the reports' header reads (:func:`gpu_node_pool.plan.report.not_done`)."""

    def __init__(self, issues: list[ConfigIssue], source: str = "stack config", registered: int = 0) -> None:
        self.issues = issues
        self.source = source
        self.registered = registered
        super().__init__("\n".join(self.lines()))

    def relabelled(self, source: str, prefix: str, replacement: str) -> ConfigError:
        """The same mistakes for another ``source`` (``GpuNodePool 'vision'``), with ``prefix``
        (``pools[0]``) written ``replacement`` (``pool``) in each path and message: a component
        validates its one pool as a one-pool stack, and its user wrote ``pool=...``, not ``pools``."""

        def swap(text: str) -> str:
            return text.replace(prefix, replacement)

        return ConfigError(
            [ConfigIssue(swap(i.path), swap(i.message), i.location, i.not_judged) for i in self.issues], source,
            self.registered,
        )

    @property
    def place(self) -> str:
        """Where the mistakes are, as the header says it: a file by its name (``Pulumi.dev.yaml``), anything else
        with its article (``the stack config``, ``the GpuNodePool 'vision'``)."""
        return self.source if self.source.endswith((".yaml", ".yml")) else f"the {self.source}"

    def lines(self, outcome: str = "no resource was registered") -> list[str]:
        """The lines of ``str()``: ``"<n> error[s] in <place>; <outcome>:"`` (:attr:`place`; by default ``no resource
        was registered``: the component validates everything before it registers anything, so a stack with a
        mistake gets no resource of this package, in a plan or a deployment; a command that registers nothing says
        what it did not do instead, ``the stack is not valid``), then ``"  <path>: <message>"`` per
        mistake (what a report joins, escaping each line, so a value cannot start a line of its own), those with
        a :class:`Location` in the order of the file (by file, line, column), then the others as found; then
        ``"  not checked: <path>: <message>"`` per note (:attr:`ConfigIssue.not_judged`), which the count leaves out."""
        mistakes = [i for i in self.issues if not i.not_judged]
        ordered = in_file_order(mistakes)
        count = f"{len(mistakes)} error{'' if len(mistakes) == 1 else 's'}"
        return [f"{count} in {self.place}; {outcome}:",
                *(f"  {issue}" for issue in ordered),
                *(f"  not checked: {issue}" for issue in self.issues if issue.not_judged)]


def in_file_order(issues: list[ConfigIssue]) -> list[ConfigIssue]:
    """``issues`` in the one order every report gives them (text, ``--json``, SARIF): those with a
    :class:`Location` by file, line and column, then the others as found (a stable sort)."""
    return sorted(issues, key=lambda i: (0, i.location.file, i.location.line, i.location.column)
                  if i.location is not None else (1, "", 0, 0))


def issues_json(issues: list[ConfigIssue]) -> list[dict[str, Any]]:
    """The report's ``configErrors``: each issue's :meth:`ConfigIssue.to_json`, mistakes in :func:`in_file_order`
    as the text lists them, then the notes (``notJudged``) as found, as the text lists them after the mistakes."""
    mistakes = [i for i in issues if not i.not_judged]
    return [i.to_json() for i in (*in_file_order(mistakes), *(i for i in issues if i.not_judged))]


def fail(message: str, at: tuple[str | int, ...] = ()) -> PydanticCustomError:
    """The error a config validator raises for a broken rule: ``raise fail("<value> ...; <fix>")``.

    ``message`` is the whole sentence the user reads (bad value, rule, fix); pydantic reports it
    at the field's path and :func:`gpu_node_pool.config.loading.validate_stack_config` turns it
    into a :class:`ConfigIssue` with that path, followed by ``at`` (keys and list indexes inside
    the field's value, e.g. ``("kubernetes", "max-pods")`` for a field holding a settings tree),
    so that the path and the file:line name the value itself. Returns a
    ``pydantic_core.PydanticCustomError`` of type ``gpu_node_pools`` (imported on call, so
    importing this module loads no pydantic).
    """
    from pydantic_core import PydanticCustomError

    return PydanticCustomError("gpu_node_pools", "{reason}", {"reason": message, "at": list(at)})


def fail_per_key(problems: list[tuple[Any, str]]) -> Exception:
    """What a validator raises for a field whose problems were found key by key (labels, tags, a settings tree):
    ``problems`` is ``[(key, sentence), ...]``, non-empty; a key is one key of the field's value or a tuple
    of keys down into it (``("evictionSoft", "memory.available")``). Each key's sentences, joined by ``"; "``, are one
    error at that key (``labels['node-role.kubernetes.io/gpu']``), so its ``file:line`` is the key's own line and
    each key is counted once: :func:`fail` for one key, :func:`fail_each` for several."""
    by_key: dict[Any, list[str]] = {}
    for key, sentence in problems:
        by_key.setdefault(key, []).append(sentence)
    errors = [(key if isinstance(key, tuple) else (key,), "; ".join(said)) for key, said in by_key.items()]
    return fail(errors[0][1], at=errors[0][0]) if len(errors) == 1 else fail_each(errors)


def fail_each(problems: list[tuple[tuple[str | int, ...], str]]) -> Exception:
    """What a config validator raises for several mistakes inside its field's value, each its own issue:
    ``raise fail_each([(("kubernetes", "max-pods"), "<sentence>"), ...])`` (``problems`` non-empty: where inside the
    value, as :func:`fail`'s ``at``, and the whole sentence). Each becomes a :class:`ConfigIssue` at the field's path
    followed by its keys, so each has its own path and ``file:line``. Returns a ``pydantic.ValidationError``, which
    pydantic reports as the errors it holds (imported on call, so importing this module loads no pydantic)."""
    from pydantic import ValidationError
    from pydantic_core import InitErrorDetails

    return ValidationError.from_exception_data(
        "gpu_node_pools", [InitErrorDetails(type=fail(message, at), loc=(), input=None) for at, message in problems])
