"""The EKS and GKE version calendars are sourced data; past their date a newer version is reported
as the table being old, never as a version the platform refuses or does not know."""

from __future__ import annotations

import copy
import datetime

import pytest

from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.config.version_calendars import EKS, GKE, RELEASE_CADENCE
from gpu_node_pool.config.warnings import limit_warnings

ROLE = "arn:aws:iam::111122223333:role/n"
EKS_STACK = {
    "cluster": {"name": "c1", "nodeRoleArn": ROLE, "subnetIds": ["subnet-0a1b2c3d4e5f60718"], "kubernetesVersion": "1.35"},
    "pools": [{"name": "p", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 4}}],
}
GKE_STACK = {
    "cluster": {"name": "c1", "project": "my-proj-123", "location": "us-central1", "kubernetesVersion": "1.35"},
    "pools": [{"name": "g", "backend": "gke", "machineType": "g2-standard-8",
               "accelerator": {"type": "nvidia-l4", "count": 1}, "autoscaling": {"minSize": 0, "maxSize": 2}}],
}
LATE_2026 = datetime.date(2026, 12, 2)


def warnings(raw: dict, version: str, today: datetime.date) -> list[str]:
    raw = copy.deepcopy(raw)
    raw["cluster"]["kubernetesVersion"] = version
    return [str(w) for w in limit_warnings(validate_stack_config(raw), today)]


@pytest.mark.parametrize("calendar", [EKS, GKE], ids=["EKS", "GKE"])
def test_every_row_names_its_source_and_the_table_its_date(calendar):
    assert calendar.as_of <= LATE_2026 and calendar.note and calendar.source.startswith("https://")
    for minor, entry in calendar.entries.items():
        assert entry.source, minor
    assert sorted(calendar.entries) == [(1, m) for m in range(calendar.oldest[1], calendar.newest[1] + 1)]


def test_eks_rows_follow_the_published_policy_14_plus_12_months():
    for minor, entry in EKS.entries.items():
        gap = (entry.end_extended - entry.end_standard).days
        assert 365 <= gap <= 366, (minor, gap)  # 12 months of extended support after standard


def test_eks_versions_in_the_table_warn_only_after_extended_support():
    assert warnings(EKS_STACK, "1.35", LATE_2026) == []
    assert warnings(EKS_STACK, "1.34", LATE_2026) == []  # standard support ends 2026-12-02, extended until 2027-12-02
    (message,) = warnings(EKS_STACK, "1.31", LATE_2026)
    assert "extended support ended 2026-11-26" in message and "kubernetes-versions.adoc@01385604" in message


def test_a_newer_eks_version_past_the_tables_date_says_the_table_is_old():
    (message,) = warnings(EKS_STACK, "1.36", LATE_2026)
    assert "now old" in message and EKS.as_of.isoformat() in message and "1.36" in message
    assert "describe-cluster-versions" in message and "allowUnsupportedKubernetesVersion" in message
    assert "refuses" not in message and "unknown" not in message


def test_a_newer_eks_version_before_the_next_release_is_due_is_one_eks_has_not_released():
    soon = EKS.as_of + datetime.timedelta(days=30)
    (message,) = warnings(EKS_STACK, "1.36", soon)
    assert "refuses versions it has not released" in message
    assert "now old" in warnings(EKS_STACK, "1.36", EKS.stale_after + datetime.timedelta(days=1))[0]
    assert EKS.stale_after == EKS.as_of + RELEASE_CADENCE


def test_gke_stacks_are_judged_against_the_gke_table_not_the_eks_one():
    assert warnings(GKE_STACK, "1.35", LATE_2026) == []  # no GKE end dates are sourced: never judged past
    (message,) = warnings(GKE_STACK, "1.37", LATE_2026)
    assert "GKE" in message and "now old" in message and "get-server-config" in message
    assert "EKS" not in message
