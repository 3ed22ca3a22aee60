"""Under the plan's mocks the SDK sends no stack trace with a registration (nothing there reads one),
and everything else about the registration, and the SDK afterwards, is unchanged."""

from __future__ import annotations

import pulumi
import pulumi.runtime.resource as runtime_resource

from gpu_node_pool.plan import record
from gpu_node_pool.sdk.mock_stack_traces import without_stack_traces


def _sent(monkeypatch) -> list[tuple[str, int, bool]]:
    """``(name, stack frames, has a source position)`` of each registration the mock monitor receives."""
    from pulumi.runtime.mocks import MockMonitor

    sent: list[tuple[str, int, bool]] = []
    original = MockMonitor.RegisterResource

    def register(self, request):
        sent.append((request.name, len(request.stackTrace.frames), request.HasField("sourcePosition")))
        return original(self, request)

    monkeypatch.setattr(MockMonitor, "RegisterResource", register)
    return sent


class _Thing(pulumi.ComponentResource):
    def __init__(self, name: str) -> None:
        super().__init__("test:index:Thing", name)


def _program() -> None:
    _Thing("thing")  # the SDK's trace starts below the third __init__ (Resource, ComponentResource, _Thing)


def test_registrations_carry_no_stack_trace_and_the_sdk_is_restored(monkeypatch):
    sent = _sent(monkeypatch)
    capture = runtime_resource._get_stack_trace

    resources, _ = record(_program)

    assert [r.name for r in resources] == ["thing"]
    assert ("thing", 0, False) in sent
    assert runtime_resource._get_stack_trace is capture  # a real engine gets its source positions again


def test_without_it_the_sdk_sends_the_stack_that_constructed_the_resource(monkeypatch):
    import contextlib

    from gpu_node_pool.sdk import mock_stack_traces

    sent = _sent(monkeypatch)
    monkeypatch.setattr(mock_stack_traces, "without_stack_traces", contextlib.nullcontext)
    record(_program)
    frames = [n for name, n, has_position in sent if name == "thing" and has_position]
    assert frames and frames[0] > 0


def test_an_sdk_without_the_capture_is_left_as_it_is(monkeypatch):
    monkeypatch.delattr(runtime_resource, "_get_stack_trace")
    with without_stack_traces():
        assert not hasattr(runtime_resource, "_get_stack_trace")
