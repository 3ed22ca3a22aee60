"""scale-from-zero-hints asks the registry's ``autoscaler_group_api`` of the pool's backend whether Cluster
Autoscaler also reads a node group's labels and valued taints through a cloud API: eks-managed names
eks:DescribeNodegroup (its source in ``backends/eks_managed/__init__.py``); without that field the same node group
needs a tag for every label and taint."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from gpu_node_pool import registry
from gpu_node_pool.backends import eks_managed

sys.path.insert(0, str(Path(__file__).parent))
from test_scale_from_zero_managed_groups import advisories, project  # noqa: E402

TAINTS = [{"key": "dedicated", "value": "batch", "effect": "NO_SCHEDULE"}]


def test_eks_managed_names_describe_nodegroup_with_its_source():
    api = registry.get("eks-managed").autoscaler_group_api
    assert api is not None and api.action == "eks:DescribeNodegroup" and api.since == "1.31.0"
    assert "aws_wrapper.go getManagedNodegroupInfo" in api.why and "kubernetes/autoscaler#6482" in api.why


def test_the_managed_group_advisory_quotes_the_registry_answer(capsys, tmp_path):
    (message,) = advisories(capsys, project(tmp_path, TAINTS))
    assert registry.get("eks-managed").autoscaler_group_api.why in message


def test_without_the_field_every_missing_tag_is_a_problem(capsys, tmp_path):
    registry.register(dataclasses.replace(eks_managed.BACKEND, autoscaler_group_api=None))
    try:
        (message,) = advisories(capsys, project(tmp_path, TAINTS))
    finally:
        registry.register(eks_managed.BACKEND)
    assert "no Cluster Autoscaler node-template tags" in message
    assert "eks:DescribeNodegroup" not in message
