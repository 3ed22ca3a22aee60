"""A Ctrl-C or SIGTERM that lands while a Pulumi program's body runs under the plan's mocks ends the run at once.

The SDK runs the body inside ``run_pulumi_func`` (pulumi/runtime/stack.py), which keeps any exception the body
raises, interrupts included, and first waits for every RPC and every output already made
(``wait_for_rpcs``). An interrupt can cut short the callback that was to give one of those outputs its value
(a callback the SDK runs while the body waits on an invoke, for example), and the wait then never ends: the
process hangs until a second signal. :func:`raised_from_the_loop` gives the interrupt back to the event loop
instead, outside every task, where asyncio lets it through (``Handle._run`` re-raises ``KeyboardInterrupt``),
so that it leaves the loop at once and the command unwinds as for any other interrupt.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

__all__ = ["raised_from_the_loop"]


def raised_from_the_loop(program: Callable[[], Any]) -> Callable[[], Any]:
    """``program`` for ``run_pulumi_func``: the same call, except that a ``KeyboardInterrupt`` it raises (Ctrl-C,
    or the CLI's ``Terminated`` for SIGTERM) is raised again from the event loop's next callback, and the body
    returns None meanwhile. Any other exception passes through unchanged, for the SDK to report after its wait.
    Only the synchronous call is covered: an awaitable ``program`` returns (an ``async def`` program) is awaited by
    the SDK after the call, and an interrupt that lands there is handled as the SDK handles it."""

    def body() -> Any:
        try:
            return program()
        except KeyboardInterrupt as stop:
            interrupt = stop  # ``stop`` is unbound once the except block ends; the callback runs later
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # called outside the loop: nothing would wait, the interrupt goes on as it is
                raise
        loop.call_soon(_raise, interrupt)
        return None

    return body


def _raise(interrupt: KeyboardInterrupt) -> None:
    raise interrupt
