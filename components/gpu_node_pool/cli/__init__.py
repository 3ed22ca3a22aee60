"""``gpupool``, the command line: one parser (:mod:`.commands`, with ``gpupool audit``'s arguments in
:mod:`.audit_parser` and the chart options in :mod:`.expand_options`), the command handlers, and the
one exit-code and JSON contract every command keeps (:mod:`.contract`), what a failed command reports
(:mod:`.failures`), and the console script's process (:mod:`.entry`).

The console script is ``gpu_node_pool.cli:main_exit``.
"""

from __future__ import annotations

import os
import signal
from typing import Any

__all__ = ["main", "main_exit"]


def main_exit() -> None:
    """Console-script entry point: :func:`gpu_node_pool.cli.entry.main_exit`, imported here.

    Importing the command line takes a few hundred milliseconds; a Ctrl-C or SIGTERM that lands then ends
    the process at once with its one line and exit 130 or 143 (there is nothing to unwind yet), where Python
    would print a traceback. The command's own handlers take over once it is imported."""

    def early(signum: int, frame: object) -> None:
        os.write(2, b"gpupool: terminated\n" if signum == signal.SIGTERM else b"gpupool: interrupted\n")
        os._exit(143 if signum == signal.SIGTERM else 130)

    signal.signal(signal.SIGINT, early)
    signal.signal(signal.SIGTERM, early)
    from .entry import main_exit as run

    run()


def __getattr__(name: str) -> Any:
    """``main`` (:func:`gpu_node_pool.cli.commands.main`), imported when first asked for."""
    if name == "main":
        from .commands import main

        return main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
