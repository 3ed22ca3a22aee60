"""Run a command (``helm template``) with its time and its output bounded.

:func:`run_bounded` starts the command in its own session (a new process group), reads its
stdout and stderr as they come, and stops at the first of:

- both pipes at end of file (the normal end);
- the deadline (``timeout`` seconds from the start);
- more than ``max_stdout`` bytes on stdout or ``max_stderr`` on stderr (the rest is not read);
- the command has exited but something it started still holds a pipe open: that is waited for
  :data:`EXIT_GRACE` seconds at most, not until the deadline or the grandchild's end.

Whenever it stops before both pipes ended, the whole process group is killed (``SIGKILL``: the
command and every process it started that stayed in its group) and the pipes are closed: a
grandchild that left the group and keeps a pipe open cannot stretch the wait either, as nothing
waits for its end of file any more. A descendant that left the group for a session of its own
(``setsid``, ``start_new_session``) is found by the run's mark in its environment, which it inherited
(:data:`RUN_MARK`, read from ``/proc`` where there is one), and killed too. Pure stdlib (``selectors``); POSIX.
"""

from __future__ import annotations

import os
import secrets
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["EXIT_GRACE", "Outcome", "RUN_MARK", "run_bounded"]

#: The environment variable each run gives its command, with a value of its own: every process the command
#: starts inherits it (unless it clears its environment), so the run can find them all when it kills them.
RUN_MARK = "GPUPOOL_RUN"

#: Seconds a pipe may stay open after the command exited.
EXIT_GRACE = 1.0
_CHUNK = 1 << 16


@dataclass(frozen=True)
class Outcome:
    """How a bounded run ended.

    Attributes:
        code: the command's exit status (negative: the signal that ended it); None when it was
            killed before exiting.
        stdout, stderr: what was read (at most the caps).
        timed_out: the deadline passed first.
        too_large: ``"stdout"`` or ``"stderr"`` when that stream passed its cap, else ``""``.
    """

    code: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool = False
    too_large: str = ""


def _kill_group(proc: subprocess.Popen[bytes], mark: str = "") -> None:
    """Kill ``proc``'s process group and, with ``mark`` (``RUN_MARK=<value>``), every process of this user whose
    environment holds it: the descendants that started a session of their own."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if mark:
        for pid in _marked(mark.encode()):
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def _marked(mark: bytes) -> list[int]:
    """The processes whose environment holds ``mark`` (``/proc/<pid>/environ``; [] where there is no ``/proc``)."""
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []
    found = []
    for pid in pids:
        if pid == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as environ:
                if mark in environ.read().split(b"\0"):
                    found.append(pid)
        except OSError:  # gone, or another user's
            continue
    return found


def run_bounded(cmd: Sequence[str], env: Mapping[str, str], timeout: float, *, max_stdout: int,
                max_stderr: int = 1 << 20, cwd: str | os.PathLike[str] | None = None) -> Outcome:
    """Run ``cmd`` (no shell, stdin closed, in ``cwd`` when given) under the bounds of the module docstring.

    Raises:
        OSError: the command cannot be started (missing, not executable).
    """
    mark = f"{RUN_MARK}={secrets.token_hex(8)}"
    proc = subprocess.Popen(list(cmd), env={**env, RUN_MARK: mark.partition("=")[2]},  # noqa: S603
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, cwd=cwd)
    try:
        return _bounded(proc, timeout, max_stdout, max_stderr, mark)
    except BaseException:  # Ctrl-C or SIGTERM in gpupool: the command, in its own session, goes too
        _kill_group(proc, mark)
        proc.kill()
        proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        raise


def _bounded(proc: subprocess.Popen[bytes], timeout: float, max_stdout: int, max_stderr: int, mark: str) -> Outcome:
    """:func:`run_bounded` of the started ``proc``."""
    assert proc.stdout is not None and proc.stderr is not None
    caps = {proc.stdout: ("stdout", max_stdout), proc.stderr: ("stderr", max_stderr)}
    data: dict[str, bytearray] = {"stdout": bytearray(), "stderr": bytearray()}
    deadline = time.monotonic() + timeout
    exited_at: float | None = None
    timed_out, too_large = False, ""
    with selectors.DefaultSelector() as sel:
        for pipe in caps:
            os.set_blocking(pipe.fileno(), False)
            sel.register(pipe, selectors.EVENT_READ)
        while sel.get_map():
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if now >= deadline:
                timed_out = True
                break
            if exited_at is not None and now - exited_at >= EXIT_GRACE:
                break
            wait = deadline - now if exited_at is None else min(deadline - now, EXIT_GRACE - (now - exited_at))
            for key, _ in sel.select(timeout=min(wait, 0.2)):
                name, cap = caps[key.fileobj]  # type: ignore[index]
                try:
                    chunk = os.read(key.fd, _CHUNK)
                except BlockingIOError:
                    continue
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                data[name] += chunk
                if len(data[name]) > cap:
                    del data[name][cap:]
                    too_large = name
                    break
            if too_large:
                break
        unfinished = bool(sel.get_map())
    if unfinished or timed_out or too_large:
        _kill_group(proc, mark)
    for pipe in caps:
        pipe.close()
    try:
        code: int | None = proc.wait(timeout=max(0.0, deadline - time.monotonic()) + EXIT_GRACE)
    except subprocess.TimeoutExpired:
        _kill_group(proc, mark)
        proc.kill()
        proc.wait()
        code = None
    if timed_out or too_large:
        code = None
    return Outcome(code, bytes(data["stdout"]), bytes(data["stderr"]), timed_out, too_large)
