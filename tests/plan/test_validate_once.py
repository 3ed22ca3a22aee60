"""``gpupool plan`` validates the stack file once: the program it runs under mocks takes the plan's
validated config when its runtime config is the one the plan validated, and validates
anything else as ``pulumi up`` would."""

from __future__ import annotations

import pytest
from conftest import ROOT

from gpu_node_pool.component import program
from gpu_node_pool.config import ConfigError, loading
from gpu_node_pool.plan import plan_stack


def test_the_plan_validates_the_stack_once(monkeypatch):
    sources = []
    original = loading.load_stack_config
    monkeypatch.setattr(loading, "load_stack_config", lambda *a, **k: sources.append(a[1]) or original(*a, **k))
    result = plan_stack("dev", ROOT)
    assert not result.config_issues and result.resources
    assert sources == ["Pulumi.dev.yaml"]


def test_a_runtime_config_other_than_the_validated_one_is_validated(monkeypatch):
    stack = object()
    monkeypatch.setattr(program, "runtime_config", lambda: {"gpu-node-pools:pools": "not json"})
    with program.validated_by_the_plan({"gpu-node-pools:pools": "[]"}, stack), pytest.raises(ConfigError):
        program.read_stack_config()
    monkeypatch.setattr(program, "runtime_config", lambda: {"gpu-node-pools:pools": "[]"})
    with program.validated_by_the_plan({"gpu-node-pools:pools": "[]"}, stack):
        assert program.read_stack_config() is stack
    assert program._VALIDATED.get() is None  # reset on leaving
