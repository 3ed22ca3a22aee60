"""Mock monitor calls answered one at a time, in the order the program made them.

Pulumi's Python SDK sends every registration, invoke and outputs registration to the monitor from
a worker thread (``loop.run_in_executor(None, ...)`` in ``pulumi.runtime.resource`` and
``pulumi.runtime.invoke``, pulumi 3.x): the event loop's default executor, a
``ThreadPoolExecutor`` of several threads. Under a real engine each call is a gRPC request and the
engine orders resources by their dependencies. Under mocks the calls run Python code, so several
threads take turns on the GIL, and two registrations sent one after the other can reach the mock's
``new_resource`` in either order. The plan records resources in the order they arrive, so its
report (a pool's NodeOverlays, ``gpupool check --json``'s resources) could change from run to run.

Once :func:`monitor_calls_in_order` has been called for a loop, its default executor is one thread: calls
are answered first in, first out, in the order the event loop made them. That order is a pure
function of the program. No mock call waits for another one, so one thread cannot deadlock them.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

__all__ = ["monitor_calls_in_order"]

#: One thread for every plan of the process, made on first use and kept: a loop's default executor
#: cannot be put back once replaced, and a shut-down executor would refuse the next program's calls.
_SERIAL: list[ThreadPoolExecutor] = []


def monitor_calls_in_order(loop: asyncio.AbstractEventLoop) -> None:
    """From now on, ``loop``'s ``run_in_executor(None, ...)`` calls run one at a time, in the order they
    were made. ``loop``: the loop the program runs on (``pulumi.runtime.sync_await``'s). Call it before
    running a program under Pulumi mocks; it stays the loop's default executor afterwards."""
    if not _SERIAL:
        _SERIAL.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="gpupool-mock-monitor"))
    loop.set_default_executor(_SERIAL[0])
