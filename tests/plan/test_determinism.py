"""Deterministic, stable resources: the same stack gives byte-identical inputs run after run."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from gpu_node_pool.plan import load_stack_file, record_program

STACKS = sorted(p.name[len("Pulumi."):-len(".yaml")] for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))


def snapshot(stack: str) -> str:
    config, secrets, _ = load_stack_file(ROOT, stack)
    resources, outputs = record_program(ROOT / "__main__.py", config, secrets, stack=stack)
    # Pulumi registers resources concurrently, so registration order is not part of what the
    # engine stores; it keys resources by URN (type + name) and inputs are protobuf Structs
    # (maps, no key order). List order (taints, tolerations, tags' values) is kept as is.
    by_urn = sorted(([r.type, r.name, r.inputs] for r in resources), key=lambda x: (x[0], x[1]))
    return json.dumps({"resources": by_urn, "outputs": outputs}, sort_keys=True, default=str)


@pytest.mark.parametrize("stack", STACKS)
def test_two_runs_give_byte_identical_inputs(stack):
    assert snapshot(stack) == snapshot(stack)


def test_resources_are_recorded_in_the_order_the_program_registered_them_every_run():
    """The SDK sends registrations from worker threads; recorded in arrival order, two of them sent one
    after the other came in either order about one run in five at this size (a pool's NodeOverlays
    swapped places in the report). Answered by one thread, the order is the program's, every run."""
    import pulumi

    from gpu_node_pool.plan.run import record

    def program():
        for i in range(300):
            pulumi.CustomResource("test:index:Thing", f"r{i:03d}", {"i": i})

    for _ in range(10):
        resources, _ = record(program)
        assert [r.name for r in resources] == [f"r{i:03d}" for i in range(300)]
