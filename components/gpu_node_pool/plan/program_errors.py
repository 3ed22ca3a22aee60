"""What went wrong in a user's Pulumi program, as invalid input placed at the program's line.

``gpupool plan``, ``render`` and ``check`` run a Pulumi program under mocks. When the program raises, does not
compile, imports a missing module, calls ``sys.exit`` or registers one URN twice, the run is invalid input
(exit 2) and the report gives one :class:`~gpu_node_pool.config.ConfigIssue` whose ``location`` is the
program's line, so that it reads as every other error does: ``__main__.py:10:1: the program raised
ValueError: ...`` (``<file>:<line>:<column>``, the file relative to the project directory).
"""

from __future__ import annotations

import json
import re
import traceback
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..config import ConfigIssue
from ..config.errors import Location
from ..k8s.wellknown import SECRET
from ..sdk.registration_sites import installed_code

__all__ = ["DuplicateUrnError", "ProgramError", "ProgramExit", "duplicate_urns", "placed_issue", "program_issue"]


class ProgramExit(Exception):
    """The program called ``sys.exit(code)``: it stopped before declaring everything (``code`` as given)."""

    def __init__(self, code: object) -> None:
        self.code = code
        super().__init__(f"the program exited with {code}")


class DuplicateUrnError(ValueError):
    """The program registered two resources with one URN (same type, name and parent), which the
    Pulumi engine refuses: ``Duplicate resource URN '<urn>'; try giving it a unique name``
    (pulumi/pulumi ``pkg/diag/errors.go``, error 2001). The mocks do not enforce it, so
    :func:`gpu_node_pool.plan.run.record` checks it after the run. ``urns``: each duplicated URN, in registration
    order."""

    def __init__(self, urns: list[str], keys: list[tuple[str, str]] | None = None) -> None:
        self.urns = urns
        #: ``(type token, name)`` of each URN, for :meth:`place`.
        self.keys = keys or []
        self._where = ""
        super().__init__(self._message())

    def _message(self) -> str:
        more = f" (and {len(self.urns) - 1} more)" if len(self.urns) > 1 else ""
        return (f"Duplicate resource URN {self.urns[0]!r}{more}{self._where}: a real pulumi preview refuses the "
                "program (pulumi/pulumi pkg/diag/errors.go, error 2001); give each resource of one type and parent a "
                "unique name")

    def place(self, sites: Any, home: Path) -> None:
        """Name where the program registers the first duplicated name again, and where first (``sites``: the
        program's :class:`~gpu_node_pool.sdk.registration_sites.Sites`; files shown relative to ``home``):
        ``(at <file>:<line>; first at <file>:<line>)``, which :func:`placed_issue` turns into the issue's place."""
        found = sites.repeats.get(self.keys[0]) if self.keys else None
        if found is None:
            return
        first, again = found

        def shown(site: tuple[str, int, int]) -> str:
            path = Path(site[0])
            return f"{path.relative_to(home.resolve()) if path.is_relative_to(home.resolve()) else path}:{site[1]}"

        self._where = f" (at {shown(again)}; first at {shown(first)})"
        self.args = (self._message(),)


def duplicate_urns(resources: list[Any]) -> list[str]:
    """The URNs ``resources`` register more than once (synthesized chart children aside), in order."""
    seen: set[str] = set()
    dups: list[str] = []
    for r in resources:
        if not r.urn or r.synthesized:
            continue
        if r.urn in seen and r.urn not in dups:
            dups.append(r.urn)
        seen.add(r.urn)
    return dups


class ProgramError(ValueError):
    """The user's program failed: it raised, did not compile, imported a missing module or called
    ``sys.exit``. Invalid input (exit 2): ``argument`` is the issue's path (the program file), ``str()`` the issue
    (``__main__.py:3:1: the program raised ...``)."""

    def __init__(self, issue: ConfigIssue) -> None:
        self.issue = issue
        self.argument = issue.path
        super().__init__(str(issue))


#: The package's own directory: an exception raised in here is a gpupool bug, not the program's.
_PACKAGE_DIR = Path(__file__).resolve().parents[1]


def _shown(path: Path, relative_to: Path | None) -> str:
    """``path`` relative to ``relative_to`` (POSIX) when it is inside it, else absolute."""
    path = path.resolve()
    if relative_to is not None and path.is_relative_to(relative_to.resolve()):
        return path.relative_to(relative_to.resolve()).as_posix()
    return path.as_posix()


def program_issue(err: BaseException, program: Path, relative_to: Path | None = None) -> ConfigIssue | None:
    """One issue for what went wrong in the user's ``program``, or None when it is a bug of this package.

    The message names the exception (or ``the program exited with N`` for ``sys.exit(N)``); ``location`` is
    where: the innermost frame in the program's directory that is not installed code (a library in the project's
    ``venv/``: :func:`~gpu_node_pool.sdk.registration_sites.installed_code`), or the place of a ``SyntaxError`` (line, and column
    counted from 1), its file relative to ``relative_to`` (the project directory) when given and inside it, else
    absolute; ``path`` is that file (so ``str()`` reads ``__main__.py:3:1: the program raised ...``), or the
    program file when no frame is the program's (no ``location`` then). Innermost frame inside ``gpu_node_pool``
    (not the program's) -> None. Used by ``gpupool plan``/``render`` (:func:`gpu_node_pool.plan.run.plan_stack`)
    and ``gpupool check``'s child.
    """
    cause = err.__cause__ if isinstance(err.__cause__, Exception) and not isinstance(err, ProgramExit) else err
    home = program.parent.resolve()
    where: Location | None = None
    if isinstance(cause, SyntaxError) and cause.filename and cause.lineno:
        where = Location(_shown(Path(cause.filename), relative_to), cause.lineno, max(cause.offset or 1, 1))
    else:
        frames = [*traceback.extract_tb(err.__traceback__)]
        for extra in (err.__cause__, err.__context__):
            if extra is not None:
                frames += traceback.extract_tb(extra.__traceback__)
        for frame in reversed(frames):
            if frame.filename.startswith("<"):  # <frozen importlib._bootstrap>, <string>
                continue
            path = Path(frame.filename).resolve()
            if path.is_relative_to(_PACKAGE_DIR) and not isinstance(cause, ProgramExit):
                return None  # raised by gpu_node_pool itself: a bug to report (exit 70)
            if path.is_relative_to(home) and frame.lineno and not installed_code(path, home):
                where = Location(_shown(path, relative_to), frame.lineno, (getattr(frame, "colno", None) or 0) + 1)
                break
    if isinstance(cause, ProgramExit):
        message = f"{cause}, before it declared everything; a Pulumi program must not call sys.exit"
    elif isinstance(cause, json.JSONDecodeError) and SECRET in cause.doc:
        message = (f"the program read a stack-file secure: value as JSON (get_secret_object, require_object...): "
                   f"offline it is the text {SECRET}, since gpupool never decrypts secure: values, so nothing was "
                   "judged; to check this program offline, give that key a plain value in a stack file for CI, "
                   "or read it as a string")
    elif type(cause).__name__ == "ValidationError" and hasattr(cause, "errors") and hasattr(cause, "title"):
        # a model of this package (DevicePluginConfig(...)) built wrongly in the program: each field and its rule
        found = cause.errors(include_url=False)
        said = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or cause.title}: {e['msg']}" for e in found[:3])
        more = f" (and {len(found) - 3} more)" if len(found) > 3 else ""
        message = f"the program built {cause.title} wrongly: {said}{more}; fix the program and run gpupool again"
    else:
        first = str(cause).splitlines()[0] if str(cause) else ""
        message = f"the program raised {type(cause).__name__}: {first}; fix the program and run gpupool again"
    return ConfigIssue(where.file if where is not None else str(program), message, where)


#: ``(at <file>:<line>)`` or ``(at <file>:<line>; first at <file>:<line>)`` in a message about the program, the
#: place :meth:`DuplicateUrnError.place` names (files relative to the program's directory).
_AT = re.compile(r" \(at (?P<file>[^\s;()]+):(?P<line>\d+)(?P<first>; first at [^()]+)?\)")


def placed_issue(issue: ConfigIssue, program: Path, relative_to: Path) -> ConfigIssue:
    """``issue`` about ``program`` (its ``path`` the program file) with the place its message names as its
    ``location``: ``(at __main__.py:27; first at __main__.py:18)`` becomes ``location`` ``__main__.py:27:1`` (file
    relative to ``relative_to``, the project directory) and the message keeps ``(first at __main__.py:18)``; its
    ``path`` becomes that file. Unchanged when it has a location already, is about another path, or names no
    place in an existing file."""
    if issue.location is not None or Path(issue.path) != program:
        return issue
    found = _AT.search(issue.message)
    if found is None:
        return issue
    file = program.parent / found["file"]
    if not file.is_file():
        return issue
    where = Location(_shown(file, relative_to), int(found["line"]), 1)
    rest = f" ({found['first'].removeprefix('; ')})" if found["first"] else ""
    message = issue.message[:found.start()] + rest + issue.message[found.end():]
    return replace(issue, path=where.file, message=message, location=where)
