"""A Karpenter pool's labels are judged in one run: the base label rules (syntax, lengths) and Karpenter's own
(the domains it keeps, the keys a requirement writes) each report their labels together."""

from __future__ import annotations

from typing import Any

import pytest
from builders import config_issues

CLUSTER = {"name": "ml-prod", "nodeRoleArn": "arn:aws:iam::444455556666:role/ml-prod-gpu-node"}


def _issues(labels: dict[str, str]) -> dict[str, str]:
    pool: dict[str, Any] = {"name": "burst", "backend": "karpenter", "instanceFamilies": ["g6e"], "nodeClass": {},
                            "limits": {"nvidia.com/gpu": 8}, "labels": labels}
    return dict(config_issues({"cluster": CLUSTER, "pools": [pool]}))


@pytest.mark.parametrize(
    ("base_key", "base_value", "base_path", "base_fragment"),
    [
        ("", "a", "pools[0].labels['']", "must not be empty"),
        ("team", "x" * 64, "pools[0].labels.team", "is 64 characters; at most 63"),
    ],
)
@pytest.mark.parametrize(
    ("karpenter_key", "karpenter_path", "karpenter_fragment"),
    [
        ("karpenter.k8s.aws/instance-family", "pools[0].labels['karpenter.k8s.aws/instance-family']",
         "is written by instanceFamilies as a requirement"),
        ("karpenter.sh/team", "pools[0].labels['karpenter.sh/team']", "in the karpenter.sh domain"),
    ],
)
def test_a_label_the_base_refuses_and_one_only_karpenter_refuses_are_both_reported(
        base_key, base_value, base_path, base_fragment, karpenter_key, karpenter_path, karpenter_fragment):
    issues = _issues({base_key: base_value, karpenter_key: "x"})
    assert base_fragment in issues.get(base_path, ""), issues
    assert karpenter_fragment in issues.get(karpenter_path, ""), issues
