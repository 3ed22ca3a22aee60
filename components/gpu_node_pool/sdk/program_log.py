"""What a program run under the mocks logs with ``pulumi.log``: shown on stderr, except this package's own.

A Pulumi program reports through ``pulumi.log.debug/info/warn/error``, which send a ``LogRequest``
(severity, message, the URN of the resource it is about or ``""``) to the engine
(pulumi/pulumi ``sdk/python/lib/pulumi/log.py@v3.272.0``; a message about a resource is sent once its
URN resolves, from a task the SDK starts at the call). Under ``pulumi.runtime.set_mocks`` the engine is
``MockEngine`` (``sdk/python/lib/pulumi/runtime/mocks.py@v3.272.0``), which hands the message alone to a
``logging.Logger``. The plan and ``gpupool check`` replace it with :class:`ProgramLogEngine`
(:func:`show_program_log`), which keeps the resource, and show each message once, on stderr, as the
Pulumi CLI shows the diagnostics of a preview (https://www.pulumi.com/docs/support/debugging/logging/,
"Program logging"): ``info``, ``warning`` and ``error`` are shown, ``debug`` is not (the CLI hides it
without ``--debug``; the offline run has no such flag). Each line says it came from the program::

    program warning: my own warning
    program error: aws:eks/nodeGroup:NodeGroup gpu: the node role is shared
    program info: building the GPU pools

A message of several lines continues on lines indented by two spaces; control characters are
escaped (:func:`gpu_node_pool.text.terminal.terminal_text`). Logging an error does not fail a Pulumi
preview or change its exit code (https://github.com/pulumi/pulumi/issues/5085), so it changes no
exit code here either.

This package's components log their own messages through :func:`log_own`: a ``GpuNodePool``'s and
the stack's config warnings, which the plan's and check's reports give at their place in the stack
file or program, and a pool's note on cluster inputs given as Pulumi Outputs. Those are left out.
The mark is the call, not the text: a program that logs the same words itself is still shown.
:func:`collecting` keeps the shown messages for a report (``gpupool check --json``: ``programLog``).

What the program prints (``print``, ``sys.stdout.write``, a command it starts that writes to file descriptor 1)
goes to stderr while it runs (:func:`printed_to_stderr`): stdout is the report's, and ``--json`` or
``--format sarif`` must stay one document. ``plan``, ``render`` and ``check`` (in its child process) all run the
program through it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stdout
from contextvars import ContextVar
from typing import Any

from pulumi.runtime.mocks import MockEngine
from pulumi.runtime.proto import engine_pb2

from ..text.terminal import terminal_text

__all__ = ["ProgramLogEngine", "collecting", "entry_lines", "log_own", "printed_to_stderr", "show_program_log"]

#: True while :func:`log_own` logs: the message is this package's own. A message about a resource is
#: sent from a task the SDK starts at the call, which runs in a copy of the caller's context, so it
#: sees the mark too.
_OWN: ContextVar[bool] = ContextVar("gpu_node_pool_own_log", default=False)
#: Where :class:`ProgramLogEngine` keeps the messages it shows, while :func:`collecting` is active.
_KEPT: ContextVar[list[dict[str, str]] | None] = ContextVar("gpu_node_pool_program_log", default=None)


def log_own(log: Callable[..., None], message: str, resource: Any = None) -> None:
    """``log(message, resource=resource)`` (``log``: ``pulumi.log.warn``, ``pulumi.log.info``, ...), marked as this
    package's own message: ``pulumi preview`` and ``up`` show it as any other, the offline run leaves it out."""
    token = _OWN.set(True)
    try:
        log(message, resource=resource)
    finally:
        _OWN.reset(token)


@contextmanager
def collecting() -> Iterator[list[dict[str, str]]]:
    """While the block runs, each message :class:`ProgramLogEngine` shows is also appended to the list it yields:
    ``{"severity": "info" | "warning" | "error", "message": <text>, "resource"?: "<type token> <name>"}``."""
    kept: list[dict[str, str]] = []
    token = _KEPT.set(kept)
    try:
        yield kept
    finally:
        _KEPT.reset(token)


def _resource(urn: str) -> str:
    """``"<type token> <name>"`` of a URN (``urn:pulumi:<stack>::<project>::<parent types$>type::<name>``, the
    name being everything after the fourth ``::``), or ``""`` for none."""
    parts = urn.split("::", 3)
    if len(parts) != 4:
        return ""
    return f"{parts[2].rsplit('$', 1)[-1]} {parts[3]}"


def entry_lines(entry: dict[str, str]) -> list[str]:
    """The lines that show one kept message: ``program <severity>: [<type token> <name>: ]<text>``, the text's
    further lines indented by two spaces (not yet escaped)."""
    first, *rest = entry["message"].splitlines() or [""]
    about = f"{entry['resource']}: " if entry.get("resource") else ""
    return [f"program {entry['severity']}: {about}{first}", *(f"  {line}" for line in rest)]


#: The ``LogRequest`` severities shown, by name (``proto/pulumi/engine.proto`` of pulumi/pulumi: ``DEBUG`` is not).
_SHOWN = {engine_pb2.INFO: "info", engine_pb2.WARNING: "warning", engine_pb2.ERROR: "error"}


class ProgramLogEngine(MockEngine):
    """The mocks' engine (``pulumi.runtime.mocks.MockEngine``) that shows what the program logs, once, on
    ``sys.stderr`` (as of each message), and keeps it for :func:`collecting`; messages logged through
    :func:`log_own` and ``debug`` ones are dropped."""

    def __init__(self) -> None:
        super().__init__(None)

    def Log(self, request: Any) -> None:  # noqa: N802 - the engine's RPC name
        severity = _SHOWN.get(request.severity)
        if severity is None or _OWN.get():
            return
        entry = {"severity": severity, "message": str(request.message)}
        resource = _resource(str(request.urn or ""))
        if resource:
            entry["resource"] = resource
        kept = _KEPT.get()
        if kept is not None:
            kept.append(entry)
        sys.stderr.write(terminal_text(entry_lines(entry)) + "\n")


def show_program_log() -> None:
    """Make the engine of the mocks :func:`pulumi.runtime.set_mocks` just configured a :class:`ProgramLogEngine`
    (``pulumi.runtime.settings.SETTINGS.engine``, what ``pulumi.log`` sends to). Call it after ``set_mocks``."""
    from pulumi.runtime import settings

    settings.SETTINGS.engine = ProgramLogEngine()


@contextmanager
def printed_to_stderr() -> Iterator[None]:
    """While the block runs, what is written to stdout goes to stderr, in order with what is written there.

    ``sys.stdout`` is ``sys.stderr`` (Python's ``print`` and ``sys.stdout.write``), and file descriptor 1 is a
    duplicate of descriptor 2 (what a child process or C code writes to it; https://docs.python.org/3/library/os.html#os.dup2),
    unless descriptor 1 or 2 is not open (then only ``sys.stdout`` is redirected). Both are given back at the end,
    also when the block raises; what was buffered for stdout before is written to it first."""
    for stream in (sys.stdout, sys.stderr):
        _flush(stream)
    saved = None
    try:
        saved = os.dup(1)
        os.dup2(2, 1)
    except OSError:  # stdout or stderr closed (`gpupool plan >&-`): the Python streams only
        if saved is not None:
            os.close(saved)
        saved = None
    try:
        with redirect_stdout(sys.stderr):
            yield
    finally:
        _flush(sys.stderr)
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)


def _flush(stream: Any) -> None:
    """Flush ``stream`` if it can be (a closed or detached stream is left as it is)."""
    try:
        stream.flush()
    except (OSError, ValueError, AttributeError):
        pass
