"""``gpupool check`` on hand-written scale-from-zero groups: a malformed node-template taint tag is judged once
(cluster_autoscaler.judge_node_template_tag), so the advisory on the Auto Scaling group and the one on the pool give
the same tag-form fix with its source and name every malformed tag; the advisory on an EKS managed node group says
which tag to add and how to reach the Auto Scaling group EKS creates; and each fix, followed, silences its advisory."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from gpu_node_pool.cli import commands as cli

POLICY = "scale-from-zero-hints"
CA = "k8s.io/cluster-autoscaler/node-template/"
SOURCE = "aws_manager.go@00a2c93c extractTaintsFromAsg"
USER_DATA = base64.b64encode(b"""MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="B"

--B
Content-Type: application/node.eks.aws

apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  cluster:
    name: c
    apiServerEndpoint: https://x.eks.amazonaws.com
    certificateAuthority: Y2E=
    cidr: 10.100.0.0/16
  kubelet:
    flags:
      - --register-with-taints=nvidia.com/gpu=present:NoSchedule,dedicated=:NoSchedule
--B--
""").decode()


def project(tmp_path: Path, asg_tags: dict[str, str], managed_tags: dict[str, str] | None = None) -> Path:
    """A self-managed launch template + Auto Scaling group tagged ``asg_tags`` and an EKS managed node group
    (taints nvidia.com/gpu=present:NoSchedule and dedicated:NoSchedule, min size 0); ``managed_tags`` are
    aws.autoscaling.Tag resources on the node group's Auto Scaling group, written as the advisory says."""
    tags = [{"key": k, "value": v, "propagate_at_launch": False} for k, v in asg_tags.items()]
    tag_code = "".join(
        f"aws.autoscaling.Tag('mng-ca-{i}', autoscaling_group_name=ng.resources[0].autoscaling_groups[0].name, "
        f"tag={{'key': {k!r}, 'value': {v!r}, 'propagate_at_launch': False}})\n"
        for i, (k, v) in enumerate((managed_tags or {}).items()))
    (tmp_path / "Pulumi.yaml").write_text("name: sfz\nruntime:\n  name: python\n")
    (tmp_path / "Pulumi.ci.yaml").write_text("config:\n  aws:region: us-east-1\n")
    (tmp_path / "__main__.py").write_text(
        "import pulumi_aws as aws\n"
        "taints = [{'key': 'nvidia.com/gpu', 'value': 'present', 'effect': 'NO_SCHEDULE'},\n"
        "          {'key': 'dedicated', 'value': '', 'effect': 'NO_SCHEDULE'}]\n"
        "ng = aws.eks.NodeGroup('mng', cluster_name='c', node_role_arn='arn:aws:iam::111122223333:role/r',\n"
        "    subnet_ids=['subnet-0a1b2c3d4e5f60718'], instance_types=['g6.xlarge'], ami_type='AL2023_x86_64_NVIDIA',\n"
        "    scaling_config={'min_size': 0, 'max_size': 3, 'desired_size': 0}, taints=taints)\n"
        "lt = aws.ec2.LaunchTemplate('lt', name='gpu-lt', image_id='ami-0123456789abcdef0', instance_type='g6.xlarge',\n"
        f"    user_data={USER_DATA!r})\n"
        "asg = aws.autoscaling.Group('asg', min_size=0, max_size=3, vpc_zone_identifiers=['subnet-0a1b2c3d4e5f60718'],\n"
        f"    launch_template={{'name': 'gpu-lt', 'version': '$Latest'}}, tags={tags!r})\n" + tag_code)
    return tmp_path


def advisories(capsys, where: Path) -> list[str]:
    cli.main(["check", "--project-dir", str(where), "--stack", "ci", "--json"])
    doc = json.loads(capsys.readouterr().out)
    return [v["message"] for v in doc["violations"] if v["policy"] == POLICY]


MALFORMED = {CA + "taint/dedicated": "NoSchedule", CA + "taint/nvidia.com/gpu": "present:NO_SCHEDULE"}
FIXED = {CA + "taint/dedicated": ":NoSchedule", CA + "taint/nvidia.com/gpu": "present:NoSchedule"}


def test_group_and_pool_advisories_give_the_same_tag_form_fix_for_every_malformed_tag(capsys, tmp_path):
    messages = advisories(capsys, project(tmp_path, MALFORMED))
    on_group = [m for m in messages if m.startswith("Auto Scaling group tag on aws:autoscaling/group:Group 'asg'")]
    (on_pool,) = [m for m in messages if m.startswith("GPU pool 'lt'")]
    assert len(on_group) == 2
    for key, value in FIXED.items():
        fix = f"write {key} = {value}"
        assert sum(fix in m for m in on_group) == 1 and fix in on_pool
    assert all(SOURCE in m for m in [*on_group, on_pool])
    assert "2 node-template tag(s) malformed" in on_pool
    assert "key=value:Effect" not in on_pool and "has no effect" not in on_pool


def test_a_malformed_tag_the_pool_has_no_taint_for_is_told_to_go_on_both_advisories(capsys, tmp_path):
    messages = advisories(capsys, project(tmp_path, {**FIXED, CA + "taint/spot": "NoSchedule"}))
    told = [m for m in messages if CA + "taint/spot" in m]
    assert len(told) == 2 and all("remove it: the pool's nodes carry no taint spot" in m for m in told)
    assert not any(f"write {CA}taint/spot" in m for m in told)


def test_the_managed_node_group_advisory_names_the_tag_and_how_to_reach_the_group_eks_creates(capsys, tmp_path):
    (message,) = [m for m in advisories(capsys, project(tmp_path, FIXED)) if m.startswith("GPU pool 'mng'")]
    assert f"Add {CA}taint/dedicated = :NoSchedule to the Auto Scaling group" in message
    assert "resources[0].autoscalingGroups[0].name" in message and "aws.autoscaling.Tag" in message
    assert "https://docs.aws.amazon.com/eks/latest/APIReference/API_Nodegroup.html" in message


def test_the_fixes_followed_leave_no_mismatch(capsys, tmp_path):
    messages = advisories(capsys, project(tmp_path, FIXED, {CA + "taint/dedicated": ":NoSchedule"}))
    assert not [m for m in messages if "malformed" in m or "do not describe its nodes" in m]
    # what remains is the note on tags an autoscaler with eks:DescribeNodegroup does not need; followed, it goes too
    (note,) = messages
    assert f"{CA}taint/nvidia.com/gpu = present:NoSchedule" in note
    followed = {CA + "taint/dedicated": ":NoSchedule", CA + "taint/nvidia.com/gpu": "present:NoSchedule"}
    assert advisories(capsys, project(tmp_path, FIXED, followed)) == []
