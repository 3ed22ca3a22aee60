"""The policies evaluate Gt/Lt tolerations as Kubernetes 1.35 does (integer comparison), instead of
skipping them: a DaemonSet with ``Gt 900`` runs on a pool tainted ``example.com/sla=950`` and one with
``Gt 950`` does not."""

from __future__ import annotations

import pytest
from builders import EXISTS_GPU, daemonset, node_group, run

from gpu_node_pool.policies import rules as d

SLA = "example.com/sla=950:NoSchedule"


@pytest.mark.parametrize(("operator", "value", "runs"), [("Gt", "900", True), ("Gt", "950", False), ("Lt", "951", True),
                                                        ("Lt", "-5", False)])
def test_a_daemonset_with_a_numeric_toleration_is_judged_by_integer_comparison(operator, value, runs):
    pool = node_group(taints=("nvidia.com/gpu=present:NoSchedule", SLA))
    agent = daemonset("node-exporter", "monitoring",
                      tolerations=[EXISTS_GPU, {"key": "example.com/sla", "operator": operator, "value": value}])
    found = run(d.daemonsets_tolerate_gpu_taints.POLICY, [pool, agent])
    assert (found == []) is runs, found
    if not runs:
        assert "example.com/sla=950:NoSchedule" in found[0]["message"] and "ignored" not in found[0]["message"]
