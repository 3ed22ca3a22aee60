"""The zone requirement of a NodePool (karpenter, eks-auto) through ``gpupool plan``: the fix a refusal offers is
accepted when followed, a warning about a requirement is told at the index and line the user wrote, and NotIn on a
zone outside the stack's region is told to exclude nothing."""

from __future__ import annotations

import pytest
from conftest import plan_stack_text as plan
from stack_texts import EKS_US_EAST

KARPENTER = EKS_US_EAST + """    karpenterVersion: "1.8"
  gpu-node-pools:pools:
    - name: kp
      backend: karpenter
      instanceFamilies: [g6]
      gpuCounts: [1]
      limits: {nvidia.com/gpu: 8}
      nodeClass: {amiAlias: al2023@latest, role: KarpenterNodeRole-ml}
"""
AUTO = """config:
  aws:region: us-east-1
  gpu-node-pools:cluster:
    name: ml-auto
    kubernetesVersion: "1.33"
    autoModeBuiltInNodePools: true
    nodeRoleArn: arn:aws:iam::111122223333:role/ml-auto-node
    subnetIds: [subnet-0a1b2c3d4e5f60718]
  gpu-node-pools:pools:
    - name: inference
      backend: eks-auto
      instanceFamilies: [g6]
      gpuCounts: [1]
      limits: {nvidia.com/gpu: 8}
"""
STACKS = pytest.mark.parametrize("stack", [KARPENTER, AUTO], ids=["karpenter", "eks-auto"])


def _with(stack: str, lines: str) -> str:
    return stack + "".join(f"      {line}\n" for line in lines.strip().splitlines())


@STACKS
@pytest.mark.parametrize("operator", ["Exists", "DoesNotExist"])
def test_values_on_the_zone_key_point_to_zones_which_is_accepted(capsys, temp_project, stack, operator):
    code, out = plan(capsys, temp_project, _with(stack, f"""
requirements:
  - {{key: topology.kubernetes.io/zone, operator: {operator}, values: [us-east-1a]}}
"""))
    assert code == 2, out
    line = next(line for line in out.splitlines() if "requirements[0]" in line)
    assert "list the zones you want in the pool's zones" in line or "list them in the pool's zones" in line, line
    assert "use operator In" not in line, line
    code, out = plan(capsys, temp_project, _with(stack, "zones: [us-east-1a]"))
    assert code == 0, out


@STACKS
def test_not_in_on_a_zone_outside_the_region_is_warned_at_its_values(capsys, temp_project, stack):
    code, out = plan(capsys, temp_project, _with(stack, """
requirements:
  - {key: topology.kubernetes.io/zone, operator: NotIn, values: [us-east-1b, eu-west-1a]}
"""))
    assert code == 0, out
    warning = next(line for line in out.splitlines() if "eu-west-1a" in line and "warning" in line)
    assert "pools[0].requirements[0].values" in warning, warning
    assert "excludes nothing" in warning and "aws-availability-zones.html" in warning, warning
    assert "us-east-1b" not in warning.split("values:", 1)[1], warning


def test_a_zone_inside_the_region_is_not_warned(capsys, temp_project):
    code, out = plan(capsys, temp_project, _with(KARPENTER, """
requirements:
  - {key: topology.kubernetes.io/zone, operator: NotIn, values: [us-east-1b]}
"""))
    assert code == 0, out
    assert "excludes nothing" not in out, out


def test_a_requirement_the_catalog_cannot_judge_is_told_at_the_users_index_and_line(capsys, temp_project):
    text = _with(KARPENTER, """
requirements:
  - {key: example.com/rack, operator: In, values: [r1]}
  - {key: topology.k8s.aws/zone-id, operator: In, values: [use1-az1]}
""")
    code, out = plan(capsys, temp_project, text)
    assert code == 0, out
    warning = next(line for line in out.splitlines() if "zone-id" in line and "warning" in line)
    row = text.splitlines().index("        - {key: topology.k8s.aws/zone-id, operator: In, values: [use1-az1]}") + 1
    assert f"Pulumi.mine.yaml:{row}:" in warning and "pools[0].requirements[1]:" in warning, warning
    assert "requirements[6]" not in warning and "requirements[7]" not in warning, warning
