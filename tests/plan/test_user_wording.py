"""What a pip-installed user reads names nothing only a source checkout has (the test suite's paths)."""

from __future__ import annotations

from gpu_node_pool.plan.expand import FALLBACK_STAND_IN


def test_the_stand_in_label_says_what_was_checked_without_pointing_into_the_test_suite():
    assert "tests/" not in FALLBACK_STAND_IN
    assert "checked against the chart's real render in tolerations, node affinity and priority class" in FALLBACK_STAND_IN
