"""An eks-managed pool's releaseVersion is of its amiType's image family and of the node group's Kubernetes version.

AL2023 releases are ``<Kubernetes major.minor.patch>-<YYYYMMDD>`` (awslabs/amazon-eks-ami releases), Bottlerocket's
``<Bottlerocket version>-<commit>``; EKS refuses a release of another family or Kubernetes minor ("Requested release
version ... is not valid for kubernetes version ...", eksctl-io/eksctl#4423 and #7976). Through ``gpupool plan``.
"""

from __future__ import annotations

import pytest
from conftest import plan_stack_text as plan


def stack(ami_type: str, release: str, version: str | None = "1.33", extra: str = "") -> str:
    k8s = f'    kubernetesVersion: "{version}"\n' if version else ""
    return f"""config:
  aws:region: us-east-1
  gpu-node-pools:cluster:
    name: ml-t
{k8s}    nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node
    subnetIds: [subnet-0a1b2c3d4e5f60718, subnet-0f1e2d3c4b5a69788]
  gpu-node-pools:pools:
    - name: gpu
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      amiType: {ami_type}
      scaling: {{minSize: 0, maxSize: 4}}
      releaseVersion: "{release}"
{extra}"""


RELEASE_LINE = "Pulumi.mine.yaml:14:"  # the releaseVersion line of stack()


def test_a_bottlerocket_release_on_an_al2023_ami_type_is_refused_at_releaseVersion(capsys, temp_project):
    code, out = plan(capsys, temp_project, stack("AL2023_x86_64_NVIDIA", "1.40.0-25e1f1a4"))
    assert code == 2
    line = next(x for x in out.splitlines() if "pools[0].releaseVersion" in x)
    assert RELEASE_LINE in line and "'1.40.0-25e1f1a4' is a Bottlerocket release" in line
    assert "<Bottlerocket version>-<commit>" in line and "<Kubernetes major.minor.patch>-<YYYYMMDD>" in line
    assert "AL2023_* AMI types take that form, BOTTLEROCKET_* the first" in line
    assert "eksctl-io/eksctl#4423" in line and "API_CreateNodegroup" in line
    assert "remove releaseVersion" in line


@pytest.mark.parametrize(("ami_type", "instance"), [("BOTTLEROCKET_x86_64_NVIDIA", "g6.xlarge"),
                                                    ("BOTTLEROCKET_ARM_64_NVIDIA_FIPS", "g5g.xlarge")])
def test_an_al2023_release_on_a_bottlerocket_ami_type_is_refused_at_releaseVersion(capsys, temp_project, ami_type,
                                                                                    instance):
    text = stack(ami_type, "1.33.0-20250610").replace("[g6.xlarge]", f"[{instance}]")
    code, out = plan(capsys, temp_project, text)
    assert code == 2
    line = next(x for x in out.splitlines() if "pools[0].releaseVersion" in x)
    assert RELEASE_LINE in line and "'1.33.0-20250610' is an AL2023 EKS-optimized AMI release" in line
    assert f"amiType {ami_type} runs Bottlerocket" in line and "e.g. 1.40.0-25e1f1a4" in line
    assert "/aws/service/bottlerocket/" in line and "eksctl-io/eksctl#4423" in line


def test_an_al2023_release_of_another_kubernetes_minor_is_refused_with_the_version_to_pin(capsys, temp_project):
    code, out = plan(capsys, temp_project, stack("AL2023_x86_64_NVIDIA", "1.30.0-20250610", version="1.33",
                                                 extra="      gpuSharing: {strategy: timeSlicing, replicas: 4}\n"))
    assert code == 2
    line = next(x for x in out.splitlines() if "pools[0].releaseVersion" in x)
    assert RELEASE_LINE in line
    assert "'1.30.0-20250610' is an AL2023 EKS-optimized AMI release for Kubernetes 1.30" in line
    assert "runs Kubernetes 1.33 (cluster.kubernetesVersion)" in line
    assert "is not valid for kubernetes version" in line and "eksctl-io/eksctl#7976" in line
    assert "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/" in line and "remove releaseVersion" in line


@pytest.mark.parametrize(("ami_type", "release"), [
    ("AL2023_x86_64_NVIDIA", "1.33.0-20250610"),
    ("AL2023_x86_64_NVIDIA", "1.33.4-20251021"),
    ("BOTTLEROCKET_x86_64_NVIDIA", "1.40.0-25e1f1a4"),
    ("BOTTLEROCKET_x86_64_NVIDIA", "1.30.0-12345678"),  # a commit of digits only, no date: Bottlerocket's form
])
def test_a_release_of_the_ami_types_family_and_version_plans(capsys, temp_project, ami_type, release):
    code, out = plan(capsys, temp_project, stack(ami_type, release))
    assert code == 0, out
    assert "releaseVersion" not in out


def test_an_al2023_release_without_kubernetesVersion_is_a_warning_that_it_was_not_judged(capsys, temp_project):
    code, out = plan(capsys, temp_project, stack("AL2023_x86_64_NVIDIA", "1.30.0-20250610", version=None))
    assert code == 0
    line = next(x for x in out.splitlines() if "pools[0].releaseVersion" in x)
    assert "not judged" in line and "Set cluster.kubernetesVersion" in line
