"""The plan shows per pool what its nodes will advertise, who makes it so, and what the autoscaler is told:
a single and a mixed MIG pool (GPU Operator) and a time-sliced pool in one stack, in text and --json, the
JSON checked against the shipped report schema."""

from __future__ import annotations

import shutil

import jsonschema
import pytest
from conftest import ROOT

from gpu_node_pool.cli.contract import report_schema
from gpu_node_pool.plan import plan_stack
from gpu_node_pool.plan.report import render_text, to_json

STACK = """
config:
  aws:region: us-west-2
  gpu-node-pools:cluster:
    name: ml-dev
    nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node
    subnetIds: [subnet-0a1b2c3d4e5f60718]
  gpu-node-pools:devicePlugin:
    provider: gpu-operator
  gpu-node-pools:pools:
    - name: mig-single
      backend: eks-managed
      instanceTypes: [p4d.24xlarge]
      scaling: {minSize: 0, maxSize: 2}
      mig: {strategy: single, profile: 1g.5gb}
    - name: mig-mixed
      backend: eks-managed
      instanceTypes: [p4de.24xlarge]
      scaling: {minSize: 0, maxSize: 2}
      mig: {strategy: mixed, profile: 1g.10gb}
    - name: sliced
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      scaling: {minSize: 0, maxSize: 2}
      gpuSharing: {strategy: timeSlicing, replicas: 4}
"""


@pytest.fixture(scope="module")
def planned(tmp_path_factory):
    project = tmp_path_factory.mktemp("proj")
    shutil.copy(ROOT / "Pulumi.yaml", project / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", project / "__main__.py")
    (project / "stacks").mkdir()
    (project / "stacks" / "Pulumi.mig.yaml").write_text(STACK)
    return plan_stack("mig", project)


def _pools(planned):
    return {p["name"]: p for p in to_json(planned)["pools"]}


def test_the_stack_plans_without_config_errors(planned):
    assert not planned.config_issues, planned.config_issues


def test_each_pool_shows_what_its_nodes_advertise_and_who_makes_it_so(planned):
    pools = _pools(planned)
    # p4d.24xlarge: 8 x A100 40GB, 1g.5gb = 7 per GPU -> 56, exposed as nvidia.com/gpu by the single strategy
    single = pools["mig-single"]["gpus"]
    assert single["mechanism"] == "mig-single" and single["advertised"] == {"nvidia.com/gpu": 56}
    assert "nvidia.com/mig.config=all-1g.5gb" in single["by"] and "mig-single" in single["by"]
    # p4de.24xlarge: 8 x A100 80GB, 1g.10gb = 7 per GPU -> 56 nvidia.com/mig-1g.10gb
    mixed = pools["mig-mixed"]["gpus"]
    assert mixed["mechanism"] == "mig-mixed" and mixed["advertised"] == {"nvidia.com/mig-1g.10gb": 56}
    sliced = pools["sliced"]["gpus"]
    assert sliced["mechanism"] == "time-slicing" and sliced["advertised"] == {"nvidia.com/gpu": 4}
    assert "timeslicing-4" in sliced["by"]


def test_the_autoscaler_view_is_read_back_from_the_recorded_tags_and_agrees(planned):
    for name, pool in _pools(planned).items():
        scaler = pool["gpus"]["autoscaler"]
        assert scaler["name"] == "cluster-autoscaler", name
        tagged = {k.rsplit("resources/", 1)[1]: int(v) for k, v in pool["scaleFromZeroTags"].items() if "/resources/" in k}
        assert scaler["resources"] == tagged == pool["gpus"]["advertised"], name
        assert scaler["agrees"] is True


def test_the_text_plan_names_mechanism_resources_and_autoscaler(planned):
    text = render_text(planned)
    assert "  GPUs            mig-mixed by GPU Operator MIG manager (nvidia.com/mig.config=all-1g.10gb)" in text
    assert "  advertises      nvidia.com/mig-1g.10gb: 56 per node" in text
    assert "  autoscaler      cluster-autoscaler: nvidia.com/gpu: 56 (matches;" in text


def test_the_json_matches_the_report_schema(planned):
    jsonschema.Draft202012Validator(report_schema()).validate(to_json(planned))


def test_a_pool_reads_back_only_its_own_scale_from_zero_tags_when_another_name_extends_it(tmp_path):
    # the tags are named "<pool>-ca-<n>": pool "a"'s prefix "a-ca-" also starts pool "a-ca-x"'s tag names
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "stacks").mkdir()
    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
    pool = text[text.index("    - name: inference"):text.index("  gpu-node-pools:devicePlugin:")]
    two = pool.replace("name: inference", "name: a") + pool.replace("name: inference", "name: a-ca-x").replace(
        "example.com/team: ml-platform", "example.com/team: research\n        example.com/only-x: \"yes\"")
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text(text.replace(pool, two))
    result = plan_stack("dev", tmp_path)
    assert not result.config_issues, result.config_issues
    tags = {p["name"]: p["scaleFromZeroTags"] for p in result.pools}
    assert tags["a"]["k8s.io/cluster-autoscaler/node-template/label/example.com/team"] == "ml-platform"
    assert tags["a-ca-x"]["k8s.io/cluster-autoscaler/node-template/label/example.com/team"] == "research"
    assert "k8s.io/cluster-autoscaler/node-template/label/example.com/only-x" not in tags["a"]
    assert len(tags["a"]) == len(tags["a-ca-x"]) - 1
    assert all(p["scaleFromZeroMatches"] for p in result.pools)
