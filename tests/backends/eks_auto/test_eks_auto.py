"""EKS Auto Mode backend: NodePools in Auto Mode's keys on an Auto Mode NodeClass,
no device plugin chart, the pack's detection, and every refusal with its path, rule and fix."""

from __future__ import annotations

import shutil
from typing import Any

import pytest
from builders import config_issues
from conftest import ROOT

from gpu_node_pool.backends._shared.nodepool_detect import nodepool_taint_lists
from gpu_node_pool.backends.eks_auto import detect as auto_detect
from gpu_node_pool.backends.eks_auto import read as auto_read
from gpu_node_pool.backends.eks_auto import render as auto_render
from gpu_node_pool.backends.karpenter import detect as karpenter_detect
from gpu_node_pool.cli.commands import main as cli_main
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.plan import plan_stack, render_text
from gpu_node_pool.policies.pools import find_gpu_pools
from gpu_node_pool.sdk.policy_props import to_policy_props

CLUSTER = {"name": "ml-auto", "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-auto-node",
           "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}
NODEPOOL = "kubernetes:karpenter.sh/v1:NodePool"
NODECLASS = "kubernetes:eks.amazonaws.com/v1:NodeClass"


def good_pool(**changes: Any) -> dict[str, Any]:
    pool: dict[str, Any] = {
        "name": "inference",
        "backend": "eks-auto",
        "instanceFamilies": ["g6e", "g6"],
        "taints": ["nvidia.com/gpu=present:NoSchedule"],
        "limits": {"nvidia.com/gpu": 16},
    }
    pool.update(changes)
    return pool


def validate(pool: dict[str, Any]):
    return validate_stack_config({"cluster": CLUSTER, "pools": [pool]})


@pytest.fixture(scope="module")
def auto_plan():
    return plan_stack("auto", ROOT)


# --- acceptance: the shipped stack --------------------------------------------------------


def test_the_shipped_auto_stack_plans_clean_through_the_cli(capsys):
    assert cli_main(["plan", "--stack", "auto", "--project-dir", str(ROOT)]) == 0
    out = capsys.readouterr().out
    assert "device plugin: not installed by this stack" in out
    assert "built into the Auto Mode node image" in out
    assert "candidate types g6.16xlarge" in out  # the catalog's evaluation of the final requirements


def test_the_auto_stack_registers_nodepools_in_auto_mode_keys_with_the_declared_taint(auto_plan):
    assert auto_plan.exit_code == 0 and auto_plan.violations == []
    by = {(r.type, r.name): r for r in auto_plan.resources}
    pool = by[(NODEPOOL, "inference-nodepool")].inputs
    spec = pool["spec"]["template"]["spec"]
    assert spec["nodeClassRef"] == {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"}
    assert spec["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    reqs = {r["key"]: r for r in spec["requirements"]}
    assert reqs["eks.amazonaws.com/instance-family"]["values"] == ["g6e", "g6"]
    assert reqs["eks.amazonaws.com/instance-gpu-manufacturer"] == {
        "key": "eks.amazonaws.com/instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]}
    assert reqs["eks.amazonaws.com/instance-gpu-count"]["values"] == ["1"]
    assert not any(k.startswith("karpenter.k8s.aws/") for k in reqs)
    assert pool["spec"]["limits"] == {"nvidia.com/gpu": 16}
    assert pool["spec"]["disruption"]["consolidationPolicy"] == "WhenEmpty"
    # the batch pool creates its NodeClass and references it
    nodeclass = by[(NODECLASS, "batch-nodeclass")].inputs
    assert nodeclass["apiVersion"] == "eks.amazonaws.com/v1" and nodeclass["kind"] == "NodeClass"
    assert nodeclass["spec"]["role"] == "ml-auto-node"
    assert nodeclass["spec"]["securityGroupSelectorTerms"] == [{"id": "sg-0c1d2e3f4a5b6c7d8"}]
    assert nodeclass["spec"]["ephemeralStorage"] == {"size": "500Gi", "iops": 6000, "throughput": 500}
    batch = by[(NODEPOOL, "batch-nodepool")].inputs["spec"]["template"]["spec"]
    assert batch["nodeClassRef"]["name"] == "gpu-batch"


def test_the_auto_stack_installs_no_device_plugin_chart_and_reports_no_gap(auto_plan):
    assert not any("helm.sh" in r.type for r in auto_plan.resources)
    assert not any(r.type.endswith(":NvidiaDevicePlugin") for r in auto_plan.resources)
    assert auto_plan.device_plugin is None
    assert {v["policy"] for v in auto_plan.violations} == set()
    assert all(p["devicePlugin"].startswith("built into the Auto Mode node image") for p in auto_plan.pools)
    assert "MISS" not in render_text(auto_plan)


def test_an_untolerated_log_shipper_fails_daemonsets_tolerate_gpu_taints(tmp_path):
    (tmp_path / "stacks").mkdir()
    (tmp_path / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    shutil.copy(ROOT / "tests" / "data" / "eks_auto_log_shipper" / "__main__.py", tmp_path / "__main__.py")
    shutil.copy(ROOT / "stacks" / "Pulumi.auto.yaml", tmp_path / "stacks" / "Pulumi.auto.yaml")
    result = plan_stack("auto", tmp_path)
    assert result.exit_code == 1
    failed = [v for v in result.violations if v["policy"] == "daemonsets-tolerate-gpu-taints"]
    assert failed and all("log-shipper" in v["resource"] for v in failed)
    assert {v["policy"] for v in result.violations} == {"daemonsets-tolerate-gpu-taints"}  # no device-plugin gap


# --- detection ----------------------------------------------------------------------------


def test_the_pack_detects_auto_mode_nodepools_as_shipping_their_own_plugin(auto_plan):
    class Res:
        def __init__(self, r):
            self.resource_type, self.name, self.urn = r.type, r.name, r.urn
            self.props = to_policy_props(r.inputs)
            self.dependencies = []

    pools = find_gpu_pools([Res(r) for r in auto_plan.resources])
    assert sorted(p.name for p in pools) == ["batch-nodepool", "inference-nodepool"]
    assert all(p.backend == "eks-auto" and p.ships_own_device_plugin and not p.needs_nvidia_device_plugin for p in pools)
    inference = next(p for p in pools if p.name == "inference-nodepool")
    assert [str(t) for t in inference.taints] == ["nvidia.com/gpu=present:NoSchedule"]


def test_a_hand_written_auto_mode_nodepool_is_auto_and_a_karpenter_one_stays_karpenter():
    auto = {"metadata": {"name": "gpu"}, "spec": {"template": {"spec": {
        "nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"},
        "requirements": [{"key": "eks.amazonaws.com/instance-family", "operator": "In", "values": ["g6e"]}]}}}}
    pool = auto_detect.detect(NODEPOOL, auto, "gpu", "", {})
    assert pool is not None and pool.ships_own_device_plugin and pool.taints == []
    assert karpenter_detect.detect(NODEPOOL, auto, "gpu", "", {}) is None
    ec2 = {"spec": {"template": {"spec": {
        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
        "requirements": [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6e"]}]}}}}
    assert auto_detect.detect(NODEPOOL, ec2, "k", "", {}) is None
    assert karpenter_detect.detect(NODEPOOL, ec2, "k", "", {}).backend == "karpenter"
    cpu = {"spec": {"template": {"spec": {"nodeClassRef": {"group": "eks.amazonaws.com"},
                                          "requirements": [{"key": "eks.amazonaws.com/instance-category",
                                                            "operator": "In", "values": ["c", "m"]}]}}}}
    assert auto_detect.detect(NODEPOOL, cpu, "cpu", "", {}) is None


# --- renderers and readers ----------------------------------------------------------------


def test_render_and_read_back_round_trip():
    stack = validate(good_pool(gpuNames=["l40s"], zones=["us-west-2a"], nodeClassRef={"name": "gpu"},
                               labels={"example.com/team": "ml"}))
    pool, cluster = stack.pools[0], stack.cluster
    obj = auto_render.nodepool_manifest(pool, cluster)
    assert obj == auto_render.nodepool_manifest(pool, cluster)
    assert [str(t) for t in nodepool_taint_lists(obj).taints] == ["nvidia.com/gpu=present:NoSchedule"]
    assert auto_read.read_labels(obj) == pool.node_labels
    assert auto_read.read_node_class_ref(obj)["name"] == "gpu"
    assert [r["key"] for r in auto_read.read_requirements(obj)] == [
        "eks.amazonaws.com/instance-family", "eks.amazonaws.com/instance-gpu-manufacturer",
        "eks.amazonaws.com/instance-gpu-name", "karpenter.sh/capacity-type", "kubernetes.io/arch",
        "topology.kubernetes.io/zone"]
    with pytest.raises(ValueError, match="creates none"):
        auto_render.nodeclass_manifest(pool, cluster)


def test_a_created_nodeclass_defaults_to_the_cluster_subnets_and_role():
    stack = validate(good_pool(nodeClass={"securityGroupSelectorTags": {"Name": "eks-cluster-sg"}}))
    nc = auto_render.nodeclass_manifest(stack.pools[0], stack.cluster)
    assert nc["metadata"]["name"] == "inference"
    assert nc["spec"]["subnetSelectorTerms"] == [{"id": "subnet-0a1b2c3d4e5f60718"}]
    assert nc["spec"]["securityGroupSelectorTerms"] == [{"tags": {"Name": "eks-cluster-sg"}}]
    assert nc["spec"]["role"] == "ml-auto-node" and "amiSelectorTerms" not in nc["spec"]


# --- bad input: path, rule and fix --------------------------------------------------------

BAD = [
    ("karpenter key on auto pool",
     good_pool(requirements=[{"key": "karpenter.k8s.aws/instance-gpu-memory", "operator": "Gt", "values": ["40000"]}]),
     "pools[0].requirements[0]", ["self-managed Karpenter", "EKS Auto Mode uses different labels than Karpenter",
                                  "write eks.amazonaws.com/instance-gpu-memory"]),
    ("EC2NodeClass ref", good_pool(nodeClassRef={"name": "gpu", "kind": "EC2NodeClass"}),
     "pools[0].nodeClassRef.kind", ["EC2NodeClass belongs to self-managed Karpenter", "backend: karpenter"]),
    ("karpenter group ref", good_pool(nodeClassRef={"name": "gpu", "group": "karpenter.k8s.aws"}),
     "pools[0].nodeClassRef.group", ["eks.amazonaws.com", "backend: karpenter"]),
    ("missing GPU limit", good_pool(limits={"cpu": "1000"}),
     "pools[0].limits", ["missing nvidia.com/gpu", "add e.g. nvidia.com/gpu: 32"]),
    ("no such family", good_pool(instanceFamilies=["g9z"]),
     "pools[0].instanceFamilies[0]", ["'g9z' is not an NVIDIA GPU instance family"]),
    ("family Auto Mode does not launch", good_pool(instanceFamilies=["g6f"]),
     "pools[0].instanceFamilies", ["does not launch the g6f family", "automode-learn-instances"]),
    ("kubernetes.io label", good_pool(labels={"node-role.kubernetes.io/gpu": "true"}),
     "pools[0].labels['node-role.kubernetes.io/gpu']", ["kubernetes.io domain", "Kubernetes reserves", "example.com/role=gpu"]),
    ("eks.amazonaws.com label", good_pool(labels={"eks.amazonaws.com/nodegroup": "gpu"}),
     "pools[0].labels['eks.amazonaws.com/nodegroup']", ["eks.amazonaws.com domain", "EKS Auto Mode Supported Labels"]),
    ("karpenter.sh label", good_pool(labels={"karpenter.sh/team": "a"}),
     "pools[0].labels['karpenter.sh/team']", ["label domain \"karpenter.sh\" is restricted"]),
    ("user data", good_pool(userData="#!/bin/bash\n"),
     "pools[0].userData", ["takes no user data", "declare taints and labels in taints/labels"]),
    ("custom AMI", good_pool(amiId="ami-0123456789abcdef0"),
     "pools[0].amiId", ["AWS determines the operating system and image", "karpenter or self-managed backend"]),
    ("registration taints", good_pool(registerWithTaints=["a=b:NoSchedule"]),
     "pools[0].registerWithTaints", ["taints go in taints"]),
    ("AMI on the node class", good_pool(nodeClass={"securityGroupIds": ["sg-0c1d2e3f4a5b6c7d8"],
                                                   "amiSelectorTerms": [{"id": "ami-1"}]}),
     "pools[0].nodeClass.amiSelectorTerms", ["no AMI, user data or kubelet fields"]),
    ("node class named default", good_pool(nodeClass={"name": "default", "securityGroupIds": ["sg-0c1d2e3f4a5b6c7d8"]}),
     "pools[0].nodeClass.name", ["Do not name your custom node class default"]),
    ("no security groups", good_pool(nodeClass={}),
     "pools[0].nodeClass.securityGroupIds", ["securityGroupSelectorTerms"]),
    ("ephemeral iops", good_pool(nodeClass={"securityGroupIds": ["sg-0c1d2e3f4a5b6c7d8"],
                                            "ephemeralStorage": {"iops": 100}}),
     "pools[0].nodeClass.ephemeralStorage.iops", ["outside 3000-16000"]),
    ("managed key in requirements",
     good_pool(requirements=[{"key": "eks.amazonaws.com/instance-family", "operator": "In", "values": ["g6"]}]),
     "pools[0]", ["is written by instanceFamilies"]),
    ("no instance selection", good_pool(instanceFamilies=None),
     "pools[0]", ["set instanceFamilies"]),
    ("windows", good_pool(requirements=[{"key": "kubernetes.io/os", "operator": "In", "values": ["windows"]}]),
     "pools[0].requirements[0]", ["Linux nodes only"]),
]


@pytest.mark.parametrize(("case", "pool", "path", "needles"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_one_config_error_with_path_rule_and_fix(case, pool, path, needles):
    pool = {k: v for k, v in pool.items() if v is not None}
    found = config_issues(pool, validate)
    assert len(found) == 1, found
    (got_path, message), = found
    assert got_path == path
    for needle in needles:
        assert needle in message, message


def test_an_eks_managed_pool_switched_to_eks_auto_gets_every_mistake_in_one_run(tmp_path, capsys):
    # The dev stack's pool with backend: eks-auto and gpuSharing added: each key Auto Mode has no place for, each
    # key of another backend and the missing limits are reported together, each at its own path and line.
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "stacks").mkdir()
    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text().replace("backend: eks-managed", "backend: eks-auto")
    text = text.replace("      taints:\n", "      gpuSharing: {strategy: timeSlicing, replicas: 4}\n      taints:\n")
    (tmp_path / "stacks" / "Pulumi.mine.yaml").write_text(text)
    assert cli_main(["plan", "--stack", "mine", "--project-dir", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "6 errors in Pulumi.mine.yaml" in out
    for path in ("limits", "amiType", "capacityType", "scaling", "gpuSharing", "tags"):
        assert f": pools[0].{path}: " in out, (path, out)
    assert "AWS determines the operating system and image" in out
    assert "EKS Auto Mode includes the NVIDIA device plugin" in out


def test_refused_node_class_keys_come_with_the_node_class_s_other_mistakes():
    found = config_issues(good_pool(nodeClass={"amiFamily": "AL2023", "userData": "x", "ephemeralStorage": {"iops": 100}}),
                          validate)
    assert sorted(p for p, _ in found) == ["pools[0].nodeClass.amiFamily", "pools[0].nodeClass.ephemeralStorage.iops",
                                           "pools[0].nodeClass.userData"], found


def test_auto_mode_keys_on_a_karpenter_pool_are_refused():
    pool = {"name": "burst", "backend": "karpenter", "instanceFamilies": ["g6e"], "nodeClass": {},
            "limits": {"nvidia.com/gpu": 8},
            "requirements": [{"key": "eks.amazonaws.com/instance-gpu-memory", "operator": "Gt", "values": ["40000"]}]}
    found = config_issues(pool, validate)
    assert found[0][0] == "pools[0].requirements[0]"
    assert "write karpenter.k8s.aws/instance-gpu-memory" in found[0][1] and "backend: eks-auto" in found[0][1]


def test_feasibility_uses_the_catalog_evaluator_with_auto_mode_keys():
    found = config_issues(good_pool(instanceFamilies=["g6e"], gpuCounts=[8], limits={"nvidia.com/gpu": 4}), validate)
    assert {p for p, _ in found} == {"pools[0]"}
    assert any("all available instance types exceed limits for nodepool" in m for _, m in found)
    found = config_issues(good_pool(instanceFamilies=["g6"], gpuCounts=[3]), validate)
    assert any("eks.amazonaws.com/instance-gpu-count In [3]: allows 0 type(s)" in m for _, m in found)


# --- the built-in NodeClass and reserved capacity ------------------------------------------------


def _stack(pool: dict[str, Any], **cluster: Any) -> dict[str, Any]:
    return {"cluster": CLUSTER | cluster, "pools": [pool]}


def test_the_built_in_node_class_is_a_warning_until_the_built_in_node_pools_are_stated():
    # EKS provisions the 'default' NodeClass only while a built-in node pool is enabled (set-builtin-node-pools)
    from gpu_node_pool.config import stack_warnings

    warned = [(w.path, w.message) for w in stack_warnings(validate_stack_config(_stack(good_pool())))]
    assert any(p == "pools[0]" and "autoModeBuiltInNodePools" in m and "set-builtin-node-pools" in m for p, m in warned)
    stated = stack_warnings(validate_stack_config(_stack(good_pool(), autoModeBuiltInNodePools=True)))
    assert not any("autoModeBuiltInNodePools" in w.message for w in stated)
    ((path, message),) = config_issues(_stack(good_pool(), autoModeBuiltInNodePools=False))
    assert path == "pools[0]" and "does not exist" in message and "nodeClass:" in message
    # a pool with its own NodeClass does not depend on the built-in node pools
    own = good_pool(nodeClass={"securityGroupIds": ["sg-0123456789abcdef0"]})
    validate_stack_config(_stack(own, autoModeBuiltInNodePools=False))


def test_reserved_capacity_needs_a_node_class_that_selects_the_reservations():
    # Auto Mode launches 'reserved' only from reservations a NodeClass selects (auto-odcr)
    from gpu_node_pool.config import stack_warnings

    ((path, message),) = config_issues(_stack(good_pool(capacityTypes=["reserved", "on-demand"]), autoModeBuiltInNodePools=True))
    assert path == "pools[0].capacityTypes" and "capacityReservationSelectorTerms" in message and "auto-odcr" in message
    created = good_pool(capacityTypes=["reserved"], nodeClass={"securityGroupIds": ["sg-0123456789abcdef0"]})
    assert [p for p, _ in config_issues(_stack(created))] == ["pools[0].capacityTypes"]
    existing = good_pool(capacityTypes=["reserved"], nodeClassRef={"name": "reserved-gpus"})
    warned = stack_warnings(validate_stack_config(_stack(existing)))
    assert any(w.path == "pools[0].capacityTypes" and "'reserved-gpus'" in w.message for w in warned)
