"""A fake backend, registered by tests/core/test_registry.py: proof that a backend is one folder.

Nothing outside this folder knows it: the stack config validates its pools, GpuNodePool wires
them, the plan summarises them and the policies detect them, all through the registry.
"""

from __future__ import annotations

from gpu_node_pool.registry import Backend

TYPE = "fakecloud:index:GpuNodePool"

BACKEND = Backend(
    name="fakecloud",
    package=__name__,
    config_model="config:FakePool",  # imported when a stack is validated
    stack_checks="config:stack_issues",
    wire="resources:wire",
    summarise="summary:summarise",
    report="summary:report",
    detect="detect:detect",
    detects=(TYPE,),
    children={"pool": (TYPE, "{pool}-fake-pool")},
)
