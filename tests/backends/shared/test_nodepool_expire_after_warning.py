"""A NodePool ``expireAfter`` under an hour (``0s``, ``30m``) is warned about, not refused, in both backends that write
a NodePool: the CRD admits it (pattern ``^(([0-9]+(s|m|h))+|Never)$``), but Karpenter's expiration is forceful and
measured from the node's creation (https://karpenter.sh/docs/concepts/disruption/#expiration), so every GPU node of
the pool would be drained and replaced soon after it launches, over and over."""

from __future__ import annotations

from typing import Any

import pytest
from nodepool_stacks import BACKENDS, CLUSTER
from nodepool_stacks import LIMITED as POOLS

from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.config.warnings import stack_warnings


def expire_warnings(backend: str, **fields: Any) -> list[str]:
    stack = validate_stack_config({"cluster": CLUSTER, "pools": [{**POOLS[backend], **fields}]})
    assert stack.pools[0].expire_after == fields.get("expireAfter")  # taken as written: a warning, not a refusal
    return [w.message for w in stack_warnings(stack) if w.path == "pools[0].expireAfter"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("value", "when"), [
    ("0s", "as soon as it launches"),
    ("0h0m0s", "as soon as it launches"),
    ("30m", "30m after it launches"),
    ("59m59s", "59m59s after it launches"),
])
def test_a_zero_or_short_expire_after_is_warned_with_what_happens_the_source_and_the_fix(backend, value, when):
    [message] = expire_warnings(backend, expireAfter=value)
    assert message.startswith(f"expireAfter {value!r} (NodePool spec.template.spec.expireAfter) is under an hour: "
                              f"every node of this pool is drained and deleted {when}"), message
    assert "replaced again and again" in message
    assert "https://karpenter.sh/docs/concepts/disruption/#expiration" in message
    assert "kubernetes-sigs/karpenter@v1.14.1 pkg/controllers/nodeclaim/expiration/controller.go" in message
    assert "NodePool disruption budgets do not hold it back" in message
    assert message.endswith("write expireAfter: Never to keep nodes until something else disrupts them, or a lifetime "
                            "of days, e.g. 720h (Karpenter's default; EKS Auto Mode's is 336h)")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("value", ["1h", "60m", "3600s", "720h", "336h", "Never", None])
def test_an_hour_or_more_never_and_unset_are_not_warned(backend, value):
    fields = {} if value is None else {"expireAfter": value}
    assert expire_warnings(backend, **fields) == []


def test_plan_of_expire_after_0s_succeeds_and_warns_at_its_line(capsys, temp_project):
    from conftest import ROOT
    from conftest import plan_stack_text as plan

    prod = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text()
    assert prod.count("      expireAfter: 720h\n") == 1
    code, out = plan(capsys, temp_project, prod.replace("      expireAfter: 720h\n", "      expireAfter: 0s\n"))
    assert code == 0, out
    assert ".expireAfter" in out and "expireAfter '0s'" in out and "as soon as it launches" in out, out
