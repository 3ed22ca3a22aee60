"""An ``amiAlias`` AL2023 release dated before EKS released the cluster's Kubernetes version is warned of at its
line: Karpenter looks up ``amazon-eks-node-al2023-<arch>-nvidia-<k8s>-v<date>`` (aws/karpenter-provider-aws
pkg/providers/amifamily/al2023.go@v1.14.1), and no AMI of a version predates EKS's release of it (14 months of
standard support before the EKS calendar's end date, https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html).
"""

from __future__ import annotations

import re

import pytest
from conftest import ROOT
from conftest import plan_stack_text as plan

PROD = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text()
ALIAS = "        amiAlias: al2023@latest\n"


def with_alias(alias: str) -> str:
    assert PROD.count(ALIAS) == 1
    return PROD.replace(ALIAS, f"        amiAlias: {alias}\n")


def version() -> str:
    (found,) = re.findall(r'kubernetesVersion: "(1\.\d+)"', PROD)
    return found


def test_a_release_from_before_the_kubernetes_version_is_warned_at_its_line(capsys, temp_project):
    code, out = plan(capsys, temp_project, with_alias("al2023@v20240703"))
    assert code == 0, out
    (line,) = [line for line in out.splitlines() if "nodeClass.amiAlias" in line and "warning" in line]
    line_no = with_alias("al2023@v20240703").splitlines().index("        amiAlias: al2023@v20240703") + 1
    assert f"Pulumi.mine.yaml:{line_no}:" in line
    assert "2024-07-03" in line and f"Kubernetes {version()}" in line
    assert "al2023.go@v1.14.1" in line and "kubernetes-versions.html" in line
    assert "write al2023@latest or a release of " + version() in line
    assert f"/aws/service/eks/optimized-ami/{version()}/amazon-linux-2023/" in line


@pytest.mark.parametrize("alias", ["al2023@latest", "al2023@v20261101", "bottlerocket@v1.40.0"])
def test_latest_a_recent_release_or_another_family_is_not_warned(capsys, temp_project, alias):
    code, out = plan(capsys, temp_project, with_alias(alias))
    assert code == 0, out
    assert "nodeClass.amiAlias" not in out


def test_a_malformed_version_no_longer_suggests_a_fixed_old_release(capsys, temp_project):
    code, out = plan(capsys, temp_project, with_alias("al2023@lastest"))
    assert code == 2, out
    assert "v20240703" not in out
    assert "al2023@v<YYYYMMDD>" in out
