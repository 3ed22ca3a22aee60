"""The ``gpupool`` console script's process (``gpu_node_pool.cli:main_exit``): the collector settings of a
process the package owns, streams closed at start, Ctrl-C, a report the disk refuses, and the end
without the interpreter's teardown. The commands themselves are :func:`gpu_node_pool.cli.commands.main`."""

from __future__ import annotations

import os
import signal
import sys

from . import commands
from .contract import WRITE_FAILED, ExitCode, cannot_write, closed_stdout

__all__ = ["Terminated", "main_exit"]


class Terminated(KeyboardInterrupt):
    """SIGTERM reached the ``gpupool`` process: raised where it was, so that every ``with`` block unwinds
    (a ``check`` child killed, its request file and temporary directories removed) before it exits 143.
    A ``KeyboardInterrupt``, so that no ``except Exception`` takes it for a failure and asyncio's event loop
    (the Pulumi mocks run in one) re-raises it from a callback instead of logging it and going on."""


def _terminate(signum: int, frame: object) -> None:
    _second_signal_ends_at_once()
    raise Terminated


def _interrupt(signum: int, frame: object) -> None:
    _second_signal_ends_at_once()
    raise KeyboardInterrupt


def _second_signal_ends_at_once() -> None:
    """After the first Ctrl-C or SIGTERM, the next one ends the process at once: the unwinding may be stuck
    (a library waiting on a thread the interrupt left), and a user who asks twice means it."""
    def now(signum: int, frame: object) -> None:
        try:
            os.write(2, b"gpupool: terminated\n" if signum == signal.SIGTERM else b"gpupool: interrupted\n")
        finally:
            os._exit(143 if signum == signal.SIGTERM else 130)

    signal.signal(signal.SIGTERM, now)
    signal.signal(signal.SIGINT, now)


def _stopped(line: str, code: int) -> int:
    """Say ``line`` on stderr once the command has unwound, ignoring further Ctrl-C and SIGTERM; ``code``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    print(line, file=sys.stderr)
    return code


def main_exit() -> None:
    """Console-script entry point: exit with :func:`~gpu_node_pool.cli.commands.main`'s code (in a process tuned by
    :func:`gpu_node_pool.sdk.process.tune_gc`).

    The process ends once stdout and stderr are flushed, without the interpreter's teardown
    (``os._exit``): by then every file the command wrote is closed and every temporary directory
    removed (each is a ``with`` block), and freeing a large plan's objects one by one only costs
    time (2-3 s after a 1000-pool plan, BENCHMARKS.md)."""
    from ..sdk.process import tune_gc

    tune_gc()
    signal.signal(signal.SIGTERM, _terminate)  # `timeout`, CI cancelling a job: unwind as for Ctrl-C
    signal.signal(signal.SIGINT, _interrupt)
    for name in ("stdout", "stderr"):  # started with it closed (>&-, 2>&-): what goes there is dropped
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w"))  # noqa: SIM115 - for the rest of the process
    try:
        code = commands.main()
    except Terminated:  # SIGTERM: the unwinding of Ctrl-C (children killed, temporary directories removed)
        code = _stopped("gpupool: terminated", 143)  # 128 + SIGTERM
    except KeyboardInterrupt:  # Ctrl-C: every with block has unwound (temporary directories removed)
        code = _stopped("gpupool: interrupted", 130)  # 128 + SIGINT, what a shell reports for Ctrl-C
    try:
        if sys.stdout is not None:  # None: started with stdout closed (>&-)
            sys.stdout.flush()  # what is still buffered; its reader may have gone since
    except BrokenPipeError:
        code = closed_stdout()
    except OSError as err:
        code = cannot_write(err) if err.errno in WRITE_FAILED else ExitCode.INTERNAL
    try:
        if sys.stderr is not None:  # None: started with stderr closed (2>&-)
            sys.stderr.flush()
    except (OSError, ValueError):  # stderr's reader gone, stderr closed, or its disk full
        pass
    os._exit(code)
