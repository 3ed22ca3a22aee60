"""Scale-from-zero tags, malformed autoscaler tags on any Auto Scaling group, Capacity Blocks,
On-Demand Capacity Reservations and node repair.

Each test names the public rule it implements (Cluster Autoscaler's AWS README and aws_manager.go,
the EKS user guide capacity-blocks-mng and launch-templates, CloudFormation's
CapacityReservationSpecification, the EKS and GKE node repair references).
"""

from __future__ import annotations

import base64

import pytest
from builders import config_errors, config_issues
from conftest import base

from gpu_node_pool import GpuNodePool, GpuNodePoolArgs
from gpu_node_pool.backends._shared.cluster_autoscaler import gpu_tag_need, node_template_tag_problem
from gpu_node_pool.config import stack_warnings, validate_stack_config
from gpu_node_pool.plan import record
from gpu_node_pool.policies import StackResource, evaluate
from gpu_node_pool.policies import rules as d

CA = "k8s.io/cluster-autoscaler/node-template/"
TAG = "aws:autoscaling/tag:Tag"
NG = ("aws:eks/nodeGroup:NodeGroup", "inference-node-group")
LT = ("aws:ec2/launchTemplate:LaunchTemplate", "inference-launch-template")


def declare(cfg: dict) -> dict:
    """Register the pools under Pulumi mocks: ``{(type, name): inputs}``."""

    def program():
        s = validate_stack_config(cfg)
        for p in s.pools:
            GpuNodePool(p.name, GpuNodePoolArgs(pool=p, cluster=s.cluster))

    resources, _ = record(program)
    return {(r.type, r.name): r.inputs for r in resources}


def run(policy, resources):
    return [f for f in evaluate(resources, None, policies=[policy]) if "can't run policy" not in f["message"]]


def pool(**kw) -> dict:
    cfg = base()
    cfg["pools"][0] |= kw
    return cfg


def ca_tags(res: dict) -> dict[str, str]:
    return {v["tag"]["key"]: v["tag"]["value"] for (t, _), v in res.items() if t == TAG}


# --- item 3: scale from zero -----------------------------------------------------------------


def test_zero_size_eks_managed_p5_4xlarge_pool_registers_the_gpu_resource_tag():
    # Cluster Autoscaler takes the template's GPUs from its table or this tag (its AWS README)
    tags = ca_tags(declare(pool(instanceTypes=["p5.4xlarge"])))
    assert tags[CA + "resources/nvidia.com/gpu"] == "1"


def test_fractional_gpu_pool_at_zero_needs_gpus_per_node_and_gets_it_as_the_tag():
    # CA's table gives g6f 0 GPUs (aws/karpenter-provider-aws#8368), so the tag is required and no source gives its value
    (err,) = config_errors(pool(instanceTypes=["g6f.xlarge"]))
    assert "set gpusPerNode" in err and "cloudprovider/aws/README.md" in err
    tags = ca_tags(declare(pool(instanceTypes=["g6f.xlarge"], gpusPerNode=1)))
    assert tags[CA + "resources/nvidia.com/gpu"] == "1"
    assert gpu_tag_need(["g6f.xlarge"]).startswith("required: Cluster Autoscaler's table gives g6f.xlarge 0 GPUs")
    assert gpu_tag_need(["g7.2xlarge"]).startswith("required: g7.2xlarge is not in Cluster Autoscaler's instance table")
    assert gpu_tag_need(["p5.48xlarge"]).startswith("not needed: Cluster Autoscaler's table already gives p5.48xlarge 8 GPU(s)")


def test_mixed_gpu_counts_in_one_zero_size_managed_group_are_refused():
    # one template node per group, one node-template/resources tag: a 1-GPU and a 4-GPU type cannot share it
    (err,) = config_errors(pool(instanceTypes=["g6.xlarge", "g6.12xlarge"]))
    assert "pools[0]" in err and "instanceTypes g6.xlarge, g6.12xlarge of different GPU counts (g6.12xlarge: 4, g6.xlarge: 1)" in err
    assert "split the types into one pool per GPU count" in err and "best-practices/cas.html" in err
    # gpusPerNode cannot make one number true for both types
    assert config_errors(pool(instanceTypes=["g6.xlarge", "g6.12xlarge"], gpusPerNode=1))
    # the same counts, or a group that never scales from zero, are fine
    validate_stack_config(pool(instanceTypes=["g6.xlarge", "g6.2xlarge"]))
    validate_stack_config(pool(instanceTypes=["g6.xlarge", "g6.12xlarge"], scaling={"minSize": 1, "maxSize": 4}))


def test_a_value_less_taint_on_a_zero_size_managed_pool_gets_its_taint_tag():
    # CA aws_wrapper.go skips managed-node-group taints without a value; the ASG tag carries it
    tags = ca_tags(declare(pool(taints=["nvidia.com/gpu:NoSchedule"])))
    assert tags[CA + "taint/nvidia.com/gpu"] == ":NoSchedule"
    assert node_template_tag_problem(CA + "taint/nvidia.com/gpu", ":NoSchedule") is None


def test_malformed_taint_tag_on_a_hand_written_asg_is_reported_with_the_corrected_form():
    # CA extractTaintsFromAsg: the value must be <value>:<Effect>; CA silently ignores anything else
    asg = StackResource("aws:autoscaling/group:Group", "hand-written", {
        "minSize": 1, "maxSize": 2, "tags": [
            {"key": CA + "taint/dedicated", "value": "nvidia.com/gpu=true", "propagateAtLaunch": False},
            {"key": CA + "taint/ok", "value": "yes:NoSchedule", "propagateAtLaunch": False},
        ]})
    tag = StackResource(TAG, "loose-tag", {"autoscalingGroupName": "other", "tag": {
        "key": CA + "taint/team", "value": "ml:NO_SCHEDULE", "propagateAtLaunch": False}})
    found = run(d.scale_from_zero_hints.POLICY, [asg, tag])
    assert len(found) == 2
    assert "write k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu = true:<Effect>" in found[0]["message"]
    assert "hand-written" in found[0]["message"]
    assert "write k8s.io/cluster-autoscaler/node-template/taint/team = ml:NoSchedule" in found[1]["message"]


# --- item 4: Capacity Blocks ------------------------------------------------------------------


def test_capacity_block_requires_the_reservation_id():
    # EKS capacity-blocks-mng
    (err,) = config_errors(pool(instanceTypes=["p5.48xlarge"], capacityType="CAPACITY_BLOCK"))
    assert "CAPACITY_BLOCK needs capacityReservationId" in err and "capacity-blocks-mng" in err


def test_capacity_block_takes_one_instance_type():
    # the type goes in the launch template (EKS launch-templates)
    cfg = pool(instanceTypes=["p5.48xlarge", "p5e.48xlarge"], capacityType="CAPACITY_BLOCK",
               capacityReservationId="cr-0123456789abcdef0")
    assert any("exactly one instance type" in e and "launch-templates" in e for e in config_errors(cfg))


def test_capacity_block_needs_one_subnet():
    # EC2 capacity-blocks-launch: instances launch only in the block's AZ
    cfg = pool(instanceTypes=["p5.48xlarge"], capacityType="CAPACITY_BLOCK", capacityReservationId="cr-0123456789abcdef0")
    cfg["cluster"]["subnetIds"] = ["subnet-0a1b2c3d4e5f60718", "subnet-0f1e2d3c4b5a69788"]
    (err,) = config_errors(cfg)
    assert err.startswith("pools[0].subnetIds: 2 subnets (from cluster.subnetIds)") and "capacity-blocks-launch" in err


def test_reservation_id_only_with_capacity_block():
    # EKS capacity-blocks-mng: both directions
    (err,) = config_errors(pool(capacityReservationId="cr-0123456789abcdef0"))
    assert "capacityReservationId is for capacityType CAPACITY_BLOCK" in err


def test_capacity_block_renders_the_launch_template_and_a_node_group_without_instance_types():
    # EKS capacity-blocks-mng; desiredSize 0 is allowed
    res = declare(pool(instanceTypes=["p5.48xlarge"], capacityType="CAPACITY_BLOCK",
                       capacityReservationId="cr-0123456789abcdef0", scaling={"minSize": 0, "maxSize": 2}))
    lt = res[LT]
    assert lt["instanceType"] == "p5.48xlarge"
    assert lt["instanceMarketOptions"] == {"marketType": "capacity-block"}
    assert lt["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": "cr-0123456789abcdef0"}}
    ng = res[NG]
    assert "instanceTypes" not in ng and ng["capacityType"] == "CAPACITY_BLOCK"
    assert set(ng["launchTemplate"]) == {"id", "version"}


def test_capacity_block_warns_about_desired_size_and_unconfirmed_types():
    # desired > 0 before the block starts; the Capacity Block type list is unconfirmed for EC2
    stack = validate_stack_config(pool(instanceTypes=["g6e.48xlarge"], capacityType="CAPACITY_BLOCK",
                                       capacityReservationId="cr-0123456789abcdef0",
                                       scaling={"minSize": 0, "maxSize": 2, "desiredSize": 1}))
    messages = [f"{w.path}: {w.message}" for w in stack_warnings(stack)]
    assert any(m.startswith("pools[0].scaling.desiredSize") and "capacity-blocks-mng" in m for m in messages)
    assert any("unconfirmed for EC2" in m and "ReservedCapacityInstanceType" in m for m in messages)


# --- item 4: On-Demand Capacity Reservations ---------------------------------------------------


def test_odcr_target_and_preference_are_exclusive():
    # CloudFormation CapacityReservationSpecification: one option at a time
    (err,) = config_errors(pool(capacityReservation={"id": "cr-0123456789abcdef0", "preference": "open"}))
    assert "exactly one of id, resourceGroupArn" in err and "capacityreservationspecification" in err


def test_odcr_preference_enum():
    # CloudFormation CapacityReservationPreference values
    (err,) = config_errors(pool(capacityReservation={"preference": "targeted"}))
    assert "capacityReservation.preference" in err


def test_odcr_needs_on_demand():
    # an ODCR is On-Demand capacity (terraform-aws-eks-blueprints targeted-odcr)
    (err,) = config_errors(pool(capacityType="SPOT", capacityReservation={"id": "cr-0123456789abcdef0"}))
    assert "needs capacityType ON_DEMAND" in err


def test_odcr_renders_a_launch_template_with_the_target_and_keeps_the_node_group_types():
    # a target is an id or a resource group; the ODCR's AZ
    res = declare(pool(capacityReservation={
        "resourceGroupArn": "arn:aws:resource-groups:us-west-2:111122223333:group/gpu-odcr"}))
    assert res[LT]["capacityReservationSpecification"] == {"capacityReservationTarget": {
        "capacityReservationResourceGroupArn": "arn:aws:resource-groups:us-west-2:111122223333:group/gpu-odcr"}}
    assert res[NG]["instanceTypes"] == ["g6.xlarge"] and "launchTemplate" in res[NG]
    res = declare(pool(capacityReservation={"preference": "capacity-reservations-only"}))
    assert res[LT]["capacityReservationSpecification"] == {"capacityReservationPreference": "capacity-reservations-only"}


def test_odcr_on_a_self_managed_launch_template():
    # CloudFormation CapacityReservationSpecification / Target
    from gpu_node_pool.backends.self_managed.render import launch_template_args

    cfg = base()
    cfg["cluster"] |= {"apiServerEndpoint": "https://10.0.0.10", "serviceCidr": "10.100.0.0/16", "kubernetesVersion": "1.33",
                       "certificateAuthority": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="}
    cfg["pools"] = [{"name": "batch", "backend": "self-managed", "format": "al2023", "instanceTypes": ["g6e.12xlarge"],
                     "scaling": {"minSize": 0, "maxSize": 2}, "securityGroupIds": ["sg-0a1b2c3d4e5f60718"],
                     "capacityReservation": {"id": "cr-0123456789abcdef0"}}]
    stack = validate_stack_config(cfg)
    args = launch_template_args(stack.pools[0], stack.cluster, image_id="ami-0123456789abcdef0",
                                instance_profile_arn="arn:aws:iam::111122223333:instance-profile/x")
    assert args["capacity_reservation_specification"] == {
        "capacity_reservation_target": {"capacity_reservation_id": "cr-0123456789abcdef0"}}


# --- item 6: node repair -------------------------------------------------------------------------


def test_eks_node_repair_renders_node_repair_config_and_names_the_agent():
    # EKS NodeRepairConfig; GPU faults need the node monitoring agent
    res = declare(pool(nodeRepair={"enabled": True}))
    assert res[NG]["nodeRepairConfig"] == {"enabled": True}
    stack = validate_stack_config(pool(nodeRepair={"enabled": True}))
    assert any("eks-node-monitoring-agent" in w.message for w in stack_warnings(stack))


def test_gke_node_repair_renders_management_auto_repair():
    # GKE NodeManagement.autoRepair
    from gpu_node_pool.backends.gke.render import node_pool_args

    cfg = {"cluster": {"name": "ml-dev", "project": "ml-project-123", "location": "us-central1"},
           "pools": [{"name": "l4", "backend": "gke", "machineType": "g2-standard-8",
                      "accelerator": {"type": "nvidia-l4", "count": 1, "gpuDriverVersion": "LATEST"},
                      "autoscaling": {"minSize": 0, "maxSize": 2}, "nodeRepair": {"enabled": True}}]}
    stack = validate_stack_config(cfg)
    assert node_pool_args(stack.pools[0], stack.cluster)["management"] == {"auto_repair": True}


@pytest.mark.parametrize(("value", "taint"), [
    ("nvidia.com/gpu=true:NoSchedule", "dedicated=nvidia.com/gpu=true:NoSchedule"),
    ("a:b:NoSchedule", "dedicated=a:b:NoSchedule"),
    ("present:NoScheduleX", "dedicated=present:NoScheduleX"),
    ("present:NoSchedule:x", "dedicated=present:NoSchedule:x"),
])
def test_a_malformed_taint_tag_the_autoscaler_misreads_says_which_taint_it_builds(value, taint):
    # kubernetes/autoscaler aws_manager.go extractTaintsFromAsg: unanchored (.*):(NoSchedule|...), then SplitN(v, ":", 2)
    message = node_template_tag_problem(CA + "taint/dedicated", value)
    assert f"read by Cluster Autoscaler as the taint {taint}" in message and "ignored" not in message
    assert "aws_manager.go" in message and "write " in message


@pytest.mark.parametrize("value", ["ml:NO_SCHEDULE", "present", "NoSchedule", "present:noschedule"])
def test_a_taint_tag_without_a_known_effect_after_a_colon_is_ignored_by_the_autoscaler(value):
    message = node_template_tag_problem(CA + "taint/dedicated", value)
    assert "is ignored by Cluster Autoscaler" in message and "builds no taint" in message


def test_ca_reads_taint_tags_as_extract_taints_from_asg():
    from gpu_node_pool.backends._shared.cluster_autoscaler import ca_reads_taint_tag

    assert ca_reads_taint_tag(CA + "taint/nvidia.com/gpu", "present:NoSchedule") == ("nvidia.com/gpu", "present", "NoSchedule")
    assert ca_reads_taint_tag(CA + "taint/nvidia.com/gpu", ":NoExecute") == ("nvidia.com/gpu", "", "NoExecute")
    assert ca_reads_taint_tag(CA + "taint/k", "x:y:PreferNoSchedule") == ("k", "x", "y:PreferNoSchedule")
    assert ca_reads_taint_tag(CA + "taint/k", "present:NO_SCHEDULE") is None
    assert ca_reads_taint_tag(CA + "label/k", "present:NoSchedule") is None


# --- gpusPerNode against the catalog ----------------------------------------------------------


def test_gpus_per_node_that_contradicts_the_catalog_is_refused_in_the_plan(temp_project, capsys):
    # g6.xlarge has 1 GPU (Cluster Autoscaler's table); without sharing or MIG the device plugin advertises it once,
    # so a tag of 8 would have the autoscaler scale the group up for pods no node of it can hold.
    from conftest import ROOT

    from gpu_node_pool.cli.commands import main

    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text().replace(
        "      instanceTypes: [g6.xlarge]\n", "      instanceTypes: [g6.xlarge]\n      gpusPerNode: 8\n")
    project = temp_project("dev", text)
    assert main(["plan", "--stack", "dev", "--project-dir", str(project)]) == 2
    err = capsys.readouterr().err
    (line,) = [x for x in err.splitlines() if "gpusPerNode" in x]
    assert "stacks/Pulumi.dev.yaml:15:" in line and "pools[0].gpusPerNode" in line
    assert "8" in line and "g6.xlarge" in line and "1 GPU" in line and "ec2_instance_types.go" in line
    assert "counts physical GPUs" in line and "remove gpusPerNode" in line


@pytest.mark.parametrize("over", [
    {"instanceTypes": ["g6.12xlarge"], "gpusPerNode": 1},
    {"instanceTypes": ["g6.xlarge"], "gpusPerNode": 4, "scaling": {"minSize": 1, "maxSize": 4}},
])
def test_gpus_per_node_against_the_catalog_is_refused_whatever_the_size(over):
    issues = config_issues(pool(**over))
    assert [p for p, _ in issues] == ["pools[0].gpusPerNode"], issues


@pytest.mark.parametrize("over", [
    {"instanceTypes": ["g6.xlarge"], "gpusPerNode": 1},  # what the catalog says
    {"instanceTypes": ["g6f.xlarge"], "gpusPerNode": 1},  # a fractional GPU: no count in the catalog
    {"instanceTypes": ["g6.3xlarge"], "allowUnknownInstanceTypes": True, "gpusPerNode": 8},  # not in the catalog
    {"instanceTypes": ["g6.xlarge"], "gpusPerNode": 1, "gpuSharing": {"strategy": "timeSlicing", "replicas": 4}},
])
def test_gpus_per_node_the_catalog_does_not_contradict_stays_accepted(over):
    validate_stack_config(pool(**over))


def test_gpus_per_node_counts_physical_gpus_under_sharing_and_mig_too():
    # the tag multiplies gpusPerNode by the replicas or MIG devices: 4 x 4 = 16 where a node has 1 x 4
    sharing = config_issues(pool(instanceTypes=["g6.xlarge"], gpusPerNode=4,
                                 gpuSharing={"strategy": "timeSlicing", "replicas": 4}))
    assert [p for p, _ in sharing] == ["pools[0].gpusPerNode"] and "g6.xlarge has 1 GPU" in sharing[0][1]
    mig = config_issues(pool(instanceTypes=["p4d.24xlarge"], gpusPerNode=56, amiType="BOTTLEROCKET_x86_64_NVIDIA",
                             mig={"strategy": "single", "profile": "1g.5gb"}))
    assert [p for p, _ in mig] == ["pools[0].gpusPerNode"] and "p4d.24xlarge has 8 GPUs" in mig[0][1]
    validate_stack_config(pool(instanceTypes=["p4d.24xlarge"], gpusPerNode=8, amiType="BOTTLEROCKET_x86_64_NVIDIA",
                               mig={"strategy": "single", "profile": "1g.5gb"}))


_CA = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIBdummy\n-----END CERTIFICATE-----\n").decode()


def test_a_self_managed_pool_gets_the_same_rule():
    cfg = {"cluster": base()["cluster"] | {"kubernetesVersion": "1.33", "apiServerEndpoint": "https://example.com",
                                           "certificateAuthority": _CA, "serviceCidr": "10.100.0.0/16"},
           "pools": [{"name": "batch", "backend": "self-managed", "format": "al2023", "instanceTypes": ["g6e.12xlarge"],
                      "scaling": {"minSize": 0, "maxSize": 2}, "securityGroupIds": ["sg-0a1b2c3d4e5f60718"],
                      "gpusPerNode": 8}]}
    issues = config_issues(cfg)
    assert [p for p, _ in issues] == ["pools[0].gpusPerNode"], issues
    assert "g6e.12xlarge" in issues[0][1] and "4 GPU" in issues[0][1]
    cfg["pools"][0]["gpusPerNode"] = 4
    validate_stack_config(cfg)
