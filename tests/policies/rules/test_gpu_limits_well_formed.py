"""Policy gpu-limits-well-formed: GPU quantities are whole numbers set in limits, with requests equal to
limits when given; the resource names checked come from the config (MIG profiles)."""

from __future__ import annotations

import pytest
from builders import (
    job,
    run,
)

from gpu_node_pool.policies import rules as d


def test_case_d_job_with_limits_3_and_requests_1_fails():
    (found,) = run(d.gpu_limits_well_formed.POLICY, [job(resources={"limits": {"nvidia.com/gpu": 3}, "requests": {"nvidia.com/gpu": 1}})])
    assert "differs from limits" in found["message"] and found["enforcement"] == "mandatory"


@pytest.mark.parametrize(
    "resources, fragment",
    [
        ({"requests": {"nvidia.com/gpu": 1}}, "not in limits"),
        ({"limits": {"nvidia.com/gpu": "500m"}}, "whole number"),
        ({"limits": {"nvidia.com/gpu": 0.5}}, "whole number"),
        ({"limits": {"nvidia.com/gpu": "two"}}, "whole number"),
        ({"limits": {"nvidia.com/gpu": -1}}, "whole number"),
    ],
)
def test_malformed_gpu_quantities_fail(resources, fragment):
    (found,) = run(d.gpu_limits_well_formed.POLICY, [job(resources=resources)])
    assert fragment in found["message"]


@pytest.mark.parametrize(
    "resources",
    [
        {"limits": {"nvidia.com/gpu": 1}},
        {"limits": {"nvidia.com/gpu": "2"}, "requests": {"nvidia.com/gpu": 2.0}},
        {"limits": {"cpu": "500m"}},
        None,
        {"limits": None, "requests": None},
    ],
)
def test_well_formed_or_absent_gpu_quantities_pass(resources):
    assert run(d.gpu_limits_well_formed.POLICY, [job(resources=resources)]) == []


def test_mig_resources_are_checked_when_configured():
    config = {"gpu-limits-well-formed": {"resourceNames": ["nvidia.com/gpu", "nvidia.com/mig-1g.10gb"]}}
    (found,) = run(d.gpu_limits_well_formed.POLICY, [job(resources={"requests": {"nvidia.com/mig-1g.10gb": 1}})], config)
    assert "nvidia.com/mig-1g.10gb" in found["message"]
