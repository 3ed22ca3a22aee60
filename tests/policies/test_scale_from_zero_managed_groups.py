"""``gpupool check`` on a hand-written EKS managed node group that scales from zero: the scale-from-zero-hints
advisory says a node-template tag is needed for a taint without a value (Cluster Autoscaler's
eks:DescribeNodegroup reading skips it: aws_wrapper.go), and otherwise only for an autoscaler older than 1.31.0 or
without eks:DescribeNodegroup (cluster-autoscaler/cloudprovider/aws/README.md); a tag the nodes do not match is
always reported."""

from __future__ import annotations

import json
from pathlib import Path

from gpu_node_pool.cli import commands as cli

POLICY = "scale-from-zero-hints"
CA = "k8s.io/cluster-autoscaler/node-template/"
STACK = """config:
  aws:region: us-west-2
"""


def project(tmp_path: Path, taints: list[dict], tags: dict[str, str] | None = None) -> Path:
    """A program with one hand-written GPU managed node group (min size 0) and ``tags`` as Auto Scaling group tags."""
    tag_code = "".join(
        f"aws.autoscaling.Tag('tag-{i}', autoscaling_group_name='asg', tag={{'key': {k!r}, 'value': {v!r}, "
        "'propagate_at_launch': False}, opts=pulumi.ResourceOptions(depends_on=[group]))\n"
        for i, (k, v) in enumerate((tags or {}).items()))
    (tmp_path / "Pulumi.yaml").write_text("name: team-gpu\nruntime:\n  name: python\n")
    (tmp_path / "Pulumi.ci.yaml").write_text(STACK)
    (tmp_path / "__main__.py").write_text(
        "import pulumi\nimport pulumi_aws as aws\n\n"
        "group = aws.eks.NodeGroup('batch-gpu', cluster_name='ml', node_role_arn='arn:aws:iam::111122223333:role/n',\n"
        "    subnet_ids=['subnet-0a1b2c3d4e5f60718'], instance_types=['g6.xlarge'], ami_type='AL2023_x86_64_NVIDIA',\n"
        "    scaling_config={'min_size': 0, 'max_size': 2, 'desired_size': 0},\n"
        f"    taints={taints!r}, labels={{'team': 'batch'}})\n" + tag_code)
    return tmp_path


def advisories(capsys, where: Path) -> list[str]:
    cli.main(["check", "--project-dir", str(where), "--stack", "ci", "--json"])
    doc = json.loads(capsys.readouterr().out)
    return [v["message"] for v in doc["violations"] if v["policy"] == POLICY]


def test_taints_with_values_and_labels_need_tags_only_for_an_old_autoscaler_or_one_without_describe_nodegroup(
        capsys, tmp_path):
    (message,) = advisories(capsys, project(tmp_path, [{"key": "dedicated", "value": "batch", "effect": "NO_SCHEDULE"}]))
    assert "taint tags missing dedicated=batch:NoSchedule" in message
    assert "label tags missing team=batch" in message
    assert "eks:DescribeNodegroup" in message and "cluster-autoscaler-1.31.0" in message
    assert "needed only where the autoscaler is older than that or lacks eks:DescribeNodegroup" in message
    assert "cluster-autoscaler/cloudprovider/aws/README.md" in message and "aws_wrapper.go" in message
    assert "scale a group whose nodes the pending pod cannot use" not in message


def test_a_taint_without_a_value_needs_its_tag(capsys, tmp_path):
    (message,) = advisories(capsys, project(tmp_path, [{"key": "dedicated", "value": "batch", "effect": "NO_SCHEDULE"},
                                                       {"key": "gpu-only", "effect": "NO_SCHEDULE"}]))
    assert "taint tags differ from the pool's taints (missing gpu-only:NoSchedule)" in message
    assert "which has no taint without a value" in message
    assert "scale a group whose nodes the pending pod cannot use" in message
    assert "dedicated=batch:NoSchedule" in message.split("with it, these need no tag:")[1]


def test_a_tag_the_nodes_do_not_match_is_reported(capsys, tmp_path):
    taints = [{"key": "dedicated", "value": "batch", "effect": "NO_SCHEDULE"}]
    (message,) = advisories(capsys, project(tmp_path, taints, {CA + "taint/dedicated": "batch:NoExecute"}))
    assert "not on the nodes dedicated=batch:NoExecute" in message


def test_tags_that_describe_the_group_pass(capsys, tmp_path):
    taints = [{"key": "gpu-only", "effect": "NO_SCHEDULE"}]
    tags = {CA + "taint/gpu-only": ":NoSchedule", CA + "label/team": "batch"}
    assert advisories(capsys, project(tmp_path, taints, tags)) == []
