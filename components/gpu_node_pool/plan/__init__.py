"""Offline plan: run the real program under Pulumi mocks, record every resource, report.

``gpupool plan --stack dev`` loads ``stacks/Pulumi.dev.yaml``, validates it, runs the
project's ``__main__.py`` with ``pulumi.runtime.set_mocks`` in preview mode (outputs the
cloud would compute stay unknown), records each registered resource with its inputs
(:class:`gpu_node_pool.sdk.record.Resource`), and reads taints, labels, tags and tolerations
*back from those inputs* with the same readers the policies use. No cloud API and no
Kubernetes API is called.

Modules: :mod:`.run` (mocks, recording, the plan of a stack), :mod:`.report` (JSON and text).

Exit codes: 0 clean, 1 a mandatory policy failed (or the device plugin misses a pool
taint), 2 the stack config is invalid.
"""

from __future__ import annotations

from ..k8s.wellknown import SECRET, UNKNOWN
from .report import print_result, render_text, to_json
from .run import (
    FAKE_AMI_ID,
    SYNTHESIZED_CHART_CHILD,
    PlanResult,
    Recorded,
    find_project,
    load_stack_file,
    plan_stack,
    record,
    record_program,
)

__all__ = [
    "FAKE_AMI_ID",
    "SECRET",
    "SYNTHESIZED_CHART_CHILD",
    "UNKNOWN",
    "PlanResult",
    "Recorded",
    "find_project",
    "load_stack_file",
    "plan_stack",
    "print_result",
    "record",
    "record_program",
    "render_text",
    "to_json",
]
