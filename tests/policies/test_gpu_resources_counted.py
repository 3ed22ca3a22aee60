"""The workload and limit policies count MIG devices and shared GPUs as GPUs
(wellknown.is_gpu_resource: nvidia.com/gpu, nvidia.com/gpu.shared, nvidia.com/mig-<profile>)."""

from __future__ import annotations

import pytest
from builders import EXISTS_GPU, deployment, job, run

from gpu_node_pool.policies import rules as d


@pytest.mark.parametrize("resource", ["nvidia.com/mig-1g.10gb", "nvidia.com/mig-3g.40gb", "nvidia.com/gpu.shared"])
def test_limits_of_every_gpu_resource_are_checked_by_default(resource):
    (found,) = run(d.gpu_limits_well_formed.POLICY, [job(resources={"requests": {resource: 1}})])
    assert resource in found["message"] and "limits" in found["message"]
    assert run(d.gpu_limits_well_formed.POLICY, [job(resources={"limits": {resource: 2}})]) == []
    (half,) = run(d.gpu_limits_well_formed.POLICY, [job(resources={"limits": {resource: "500m"}})])
    assert resource in half["message"]


def test_configured_names_still_restrict_and_other_resources_are_ignored():
    config = {"gpu-limits-well-formed": {"resourceNames": ["nvidia.com/gpu"]}}
    assert run(d.gpu_limits_well_formed.POLICY, [job(resources={"requests": {"nvidia.com/mig-1g.10gb": 1}})], config) == []
    assert run(d.gpu_limits_well_formed.POLICY, [job(resources={"requests": {"example.com/fpga": 1}})]) == []


@pytest.mark.parametrize("resource", ["nvidia.com/mig-1g.10gb", "nvidia.com/gpu.shared"])
def test_a_workload_requesting_a_mig_or_shared_gpu_selects_gpu_nodes(resource):
    assert run(d.gpu_workloads_select_gpu_nodes.POLICY, [deployment(tolerations=[EXISTS_GPU], resources={"limits": {resource: 1}})]) == []
    (found,) = run(d.gpu_workloads_select_gpu_nodes.POLICY, [deployment(tolerations=[EXISTS_GPU], resources={"limits": {"cpu": 1}})])
    assert "never attracts" in found["message"]
