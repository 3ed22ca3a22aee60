"""The admission objects apply the toleration Kubernetes applies: against a ``NoExecute`` taint, the FIRST one that
matches (``GetMatchingTolerations``, kubernetes ``pkg/apis/core/v1/helper/helpers.go``), so a timed toleration before
an untimed one is an eviction, as the preview rule says; the other way round the DaemonSet stays. Every engine (the
ValidatingAdmissionPolicies under two CEL runtimes, the Gatekeeper Rego) gives the preview's verdict."""

from __future__ import annotations

import pytest
from engines import DAEMONSETS, ENGINES, judge, request
from test_admission_differential import GPU_TOL, daemonset, preview

from gpu_node_pool.policies import rules as d

TIMED = {"key": "team", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}
EVERYTHING = {"operator": "Exists"}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("tolerations", "evicted"), [
    ([GPU_TOL, TIMED, EVERYTHING], True),
    ([GPU_TOL, EVERYTHING, TIMED], False),
    ([GPU_TOL], True),  # no toleration of the NoExecute taint at all: the first-match lookup must not be reached
    ([GPU_TOL, {"key": "other", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}], True),
])
def test_the_first_matching_toleration_decides_at_admission_as_in_the_preview(engine, tolerations, evicted):
    ds = daemonset("monitoring", "agent", {"containers": [{"name": "a", "image": "a"}], "tolerations": tolerations})
    messages = judge(engine, DAEMONSETS, request(ds))
    assert bool(preview(ds, d.daemonsets_tolerate_gpu_taints.POLICY)) is evicted
    if evicted:
        (msg,) = messages
        assert "pool training" in msg and "team=ml:NoExecute" in msg
        assert "error" not in msg.lower()  # a verdict, not an evaluation error of the expression
    else:
        assert messages == []
