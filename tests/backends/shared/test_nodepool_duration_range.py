"""A NodePool duration the CRD pattern admits but Go's ``time.ParseDuration`` cannot hold (more than int64
nanoseconds, 2562047h47m16.854775807s) is refused at config time in both backends that write a NodePool, with the
path, the value, the rule and its source (golang/go src/time/format.go ParseDuration) and the fix."""

from __future__ import annotations

from typing import Any

import pytest
from builders import config_issues
from nodepool_stacks import BACKENDS, CLUSTER
from nodepool_stacks import LIMITED as POOLS

from gpu_node_pool.backends._shared.nodepool import GO_DURATION_MAX_TEXT
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.k8s.integers import INT64_MAX

#: One nanosecond past the largest duration Go reads: 2562047h47m16.854775808s, in whole seconds rounded up.
OVER = "2562047h47m17s"
UNDER = "2562047h47m16s"


def stack(backend: str, **fields: Any) -> dict[str, Any]:
    return {"cluster": CLUSTER, "pools": [{**POOLS[backend], **fields}]}


def test_the_bound_is_int64_nanoseconds():
    hours, rest = divmod(INT64_MAX, 3600 * 10**9)
    minutes, rest = divmod(rest, 60 * 10**9)
    assert GO_DURATION_MAX_TEXT == f"{hours}h{minutes}m{rest // 10**9}.{rest % 10**9:09d}s"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("fields", "path", "value", "never"), [
    ({"expireAfter": "99999999999999999999h"}, "pools[0].expireAfter", "99999999999999999999h", True),
    ({"expireAfter": OVER}, "pools[0].expireAfter", OVER, True),
    ({"disruption": {"consolidateAfter": "9999999999999h"}}, "pools[0].disruption.consolidateAfter",
     "9999999999999h", True),
    ({"terminationGracePeriod": "9999999999999h"}, "pools[0].terminationGracePeriod", "9999999999999h", False),
    ({"disruption": {"budgets": [{"nodes": "1", "schedule": "@daily", "duration": "9999999999999h"}]}},
     "pools[0].disruption.budgets[0].duration", "9999999999999h", False),
])
def test_a_duration_past_go_range_is_refused_with_path_rule_source_and_fix(backend, fields, path, value, never):
    issues = config_issues(stack(backend, **fields))
    assert len(issues) == 1, issues
    at, message = issues[0]
    assert at == path
    assert repr(value) in message
    assert "longer than Go's time.ParseDuration reads" in message and GO_DURATION_MAX_TEXT in message
    assert "golang/go src/time/format.go ParseDuration" in message and "invalid duration" in message
    assert ("write Never" in message) is never
    assert "a smaller duration" in message


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_longest_durations_go_reads_and_never_are_accepted(backend):
    pool = validate_stack_config(stack(
        backend, expireAfter=UNDER, terminationGracePeriod=UNDER,
        disruption={"consolidateAfter": "Never", "budgets": [{"nodes": "1", "schedule": "@daily", "duration": "2562047h"}]},
    )).pools[0]
    assert pool.expire_after == UNDER and pool.termination_grace_period == UNDER
    assert pool.disruption.consolidate_after == "Never"


def test_plan_of_an_overflowing_expire_after_exits_2_at_its_line(capsys, temp_project):
    from conftest import ROOT
    from conftest import plan_stack_text as plan

    prod = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text()
    assert prod.count("      expireAfter: 720h\n") == 1
    code, out = plan(capsys, temp_project, prod.replace("      expireAfter: 720h\n",
                                                        "      expireAfter: 99999999999999999999h\n"))
    assert code == 2, out
    assert "Pulumi.mine.yaml:" in out and ".expireAfter:" in out and "time.ParseDuration" in out, out
