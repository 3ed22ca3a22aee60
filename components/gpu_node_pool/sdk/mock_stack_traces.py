"""Registrations under mocks without the SDK's stack traces, which nothing under mocks reads.

For every resource it registers, Pulumi's Python SDK captures the call stack that constructed it
(``pulumi.runtime.resource._get_stack_trace``: ``traceback.extract_stack()``, then each frame's file
as a ``file://`` URI and its line) and sends it with the registration
(``RegisterResourceRequest.stackTrace`` and ``.sourcePosition``), for the engine to point its
diagnostics at the program's source. The mock monitor that the plan and ``gpupool check`` run
programs under (``pulumi.runtime.mocks.MockMonitor`` in pulumi 3.x) answers from the type, name
and inputs alone and never reads either field; where a resource was constructed the plan notes
itself (:mod:`.registration_sites`). The capture costs in proportion to the depth of the call stack:
about 260 us per registration at the depth of a ``GpuNodePool``'s children, 1.1 s of a 1000-pool
plan (BENCHMARKS.md).

While :func:`without_stack_traces` is active the SDK sends an empty stack trace, the value it
sends itself when it finds no user frame. It replaces a private SDK function; an SDK without
that function is left as it is (the capture then just costs its time).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["without_stack_traces"]


@contextmanager
def without_stack_traces() -> Iterator[None]:
    """While the block runs, resources register with an empty ``stackTrace`` and no ``sourcePosition``.

    Use only around a program running under Pulumi mocks (``pulumi.runtime.set_mocks``): a real
    engine shows the source position in its diagnostics."""
    from pulumi.runtime import resource as runtime_resource

    original = getattr(runtime_resource, "_get_stack_trace", None)
    stack_trace = getattr(getattr(runtime_resource, "source_pb2", None), "StackTrace", None)
    if original is None or stack_trace is None:
        yield
        return
    runtime_resource._get_stack_trace = stack_trace  # the empty message: what the SDK sends for no user frame
    try:
        yield
    finally:
        runtime_resource._get_stack_trace = original
