"""The cluster as an input: identity values that are Outputs, or the cluster resource itself.

Under a plain ``pulumi.runtime.Mocks`` subclass (Pulumi's testing guide) with a ``MockMonitor``
subclass that also records what each registration depends on (``set_mocks(monitor=...)``).
"""

from __future__ import annotations

import base64

import pulumi
import pytest
from pulumi.runtime.mocks import MockMonitor

from gpu_node_pool import GpuNodePool, GpuNodePoolArgs
from gpu_node_pool.config import ConfigError

REGISTERED: dict[str, pulumi.runtime.MockResourceArgs] = {}
DEPENDS: dict[str, tuple[set[str], dict[str, set[str]]]] = {}  # name -> (dependencies, per property)
URNS: dict[str, str] = {}  # name -> urn

ROLE = "arn:aws:iam::111122223333:role/ml-dev-gpu-node"
ENDPOINT = "https://ABCDEF.gr7.us-west-2.eks.amazonaws.com"
CA = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n").decode()


class MyMocks(pulumi.runtime.Mocks):
    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        REGISTERED[args.name] = args
        outputs = dict(args.inputs)
        if args.typ == "aws:eks/cluster:Cluster":  # what EKS returns for a created cluster
            outputs |= {
                "endpoint": ENDPOINT,
                "certificateAuthority": {"data": CA},
                "kubernetesNetworkConfig": {"serviceIpv4Cidr": "172.20.0.0/16"},
            }
        if args.typ == "aws:iam/role:Role":
            outputs["arn"] = f"arn:aws:iam::111122223333:role/{args.name}"
        return [args.name + "_id", outputs]

    def call(self, args: pulumi.runtime.MockCallArgs):
        return {"value": "ami-0123456789abcdef0"} if args.token == "aws:ssm/getParameter:getParameter" else {}


class RecordingMonitor(MockMonitor):
    def RegisterResource(self, request):  # noqa: N802 - the gRPC method name
        response = super().RegisterResource(request)
        URNS[request.name] = response.urn
        DEPENDS[request.name] = (
            set(request.dependencies),
            {k: set(v.urns) for k, v in request.propertyDependencies.items()},
        )
        return response


@pytest.fixture(autouse=True)
def _mocks():
    for d in (REGISTERED, DEPENDS, URNS):
        d.clear()
    pulumi.runtime.set_mocks(MyMocks(), preview=False, monitor=RecordingMonitor(MyMocks()))


def _network():
    import pulumi_aws as aws

    role = aws.iam.Role("gpu-node-role", assume_role_policy="{}")
    subnets = [aws.ec2.Subnet(f"private-{i}", vpc_id="vpc-0123", cidr_block=f"10.0.{i}.0/24") for i in range(2)]
    cluster = aws.eks.Cluster("ml", name="ml", role_arn="arn:aws:iam::111122223333:role/eks", vpc_config={
        "subnet_ids": [s.id for s in subnets]})
    return cluster, role, subnets


EKS_POOL = {
    "name": "inference",
    "backend": "eks-managed",
    "instanceTypes": ["g6.xlarge"],
    "scaling": {"minSize": 1, "maxSize": 4},
    "taints": ["nvidia.com/gpu=present:NoSchedule"],
}
SELF_POOL = {
    "name": "batch",
    "backend": "self-managed",
    "format": "al2023",
    "instanceTypes": ["g6.xlarge"],
    "scaling": {"minSize": 1, "maxSize": 2},
    "amiId": "ami-0123456789abcdef0",
    "securityGroupIds": ["sg-0123456789abcdef0"],
}


def _resolve(output):
    box = {}
    output.apply(lambda v: box.setdefault("v", v))
    return box


@pulumi.runtime.test
def test_an_eks_managed_pool_takes_the_cluster_identity_as_outputs_and_depends_on_them():
    cluster, role, subnets = _network()
    pool = GpuNodePool("inference", GpuNodePoolArgs(
        cluster={"name": cluster.name, "nodeRoleArn": role.arn, "subnetIds": [s.id for s in subnets]},
        pool=EKS_POOL,
    ))

    def check(_):
        inputs = REGISTERED["inference-node-group"].inputs
        assert inputs["clusterName"] == "ml"
        assert inputs["nodeRoleArn"] == "arn:aws:iam::111122223333:role/gpu-node-role"
        assert inputs["subnetIds"] == ["private-0_id", "private-1_id"]
        assert inputs["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]
        deps, by_property = DEPENDS["inference-node-group"]
        assert {URNS["ml"], URNS["gpu-node-role"], URNS["private-0"], URNS["private-1"]} <= deps
        assert by_property["clusterName"] == {URNS["ml"]}
        assert by_property["nodeRoleArn"] == {URNS["gpu-node-role"]}
        assert by_property["subnetIds"] == {URNS["private-0"], URNS["private-1"]}
        assert pool.taints == ["nvidia.com/gpu=present:NoSchedule"]  # judged fields stay plain

    return pool.node_group_arn.apply(check)


@pulumi.runtime.test
def test_a_self_managed_al2023_pool_renders_its_user_data_when_endpoint_and_ca_are_known():
    cluster, role, subnets = _network()
    pool = GpuNodePool("batch", GpuNodePoolArgs(
        cluster={
            "name": cluster.name,
            "nodeRoleArn": role.arn,
            "subnetIds": [s.id for s in subnets],
            "apiServerEndpoint": cluster.endpoint,
            "certificateAuthority": cluster.certificate_authority.apply(lambda ca: ca.data),
            "serviceCidr": "172.20.0.0/16",
        },
        pool=SELF_POOL,
    ))

    def check(_):
        template = REGISTERED["batch-launch-template"].inputs
        text = base64.b64decode(template["userData"]).decode()
        assert "name: ml\n" in text and f"apiServerEndpoint: {ENDPOINT}" in text and CA in text
        assert "registerWithTaints:\n      - key: nvidia.com/gpu\n        value: present" in text  # at registration
        assert DEPENDS["batch-launch-template"][1]["userData"] >= {URNS["ml"]}
        assert REGISTERED["batch-instance-profile"].inputs["role"] == "gpu-node-role"
        group = REGISTERED["batch-asg"].inputs
        tags = {t["key"]: t["value"] for t in group["tags"]}
        assert tags["kubernetes.io/cluster/ml"] == "owned" and tags["k8s.io/cluster-autoscaler/ml"] == "owned"
        assert tags["Name"] == "ml-batch"
        assert group["vpcZoneIdentifiers"] == ["private-0_id", "private-1_id"]
        assert "k8s.io/cluster-autoscaler/enabled" in pool.asg_tags  # plain; the cluster-keyed tag is on the group

    return pool.autoscaling_group_name.apply(check)


@pulumi.runtime.test
def test_the_aws_eks_cluster_resource_itself_with_the_node_role_passed_separately():
    cluster, role, _ = _network()
    managed = GpuNodePool("inference", GpuNodePoolArgs(cluster=cluster, node_role_arn=role.arn, pool=EKS_POOL))
    selfm = GpuNodePool("batch", GpuNodePoolArgs(cluster=cluster, node_role_arn=role.arn, pool=SELF_POOL))

    def check(_):
        group = REGISTERED["inference-node-group"].inputs
        assert group["clusterName"] == "ml" and group["subnetIds"] == ["private-0_id", "private-1_id"]
        assert group["nodeRoleArn"] == "arn:aws:iam::111122223333:role/gpu-node-role"
        assert URNS["ml"] in DEPENDS["inference-node-group"][0]
        text = base64.b64decode(REGISTERED["batch-launch-template"].inputs["userData"]).decode()
        assert f"apiServerEndpoint: {ENDPOINT}" in text and "cidr: 172.20.0.0/16" in text and CA in text

    return pulumi.Output.all(managed.node_group_arn, selfm.autoscaling_group_name).apply(check)


@pytest.mark.parametrize(
    ("key", "value", "path"),
    [
        ("taints", lambda: pulumi.Output.from_input(["nvidia.com/gpu=present:NoSchedule"]), "pool.taints"),
        ("instanceTypes", lambda: [pulumi.Output.from_input("g6.xlarge")], "pool.instanceTypes[0]"),
    ],
)
def test_an_output_in_a_judged_field_is_refused_before_anything_registers(key, value, path):
    def program():
        cluster, role, subnets = _network()
        GpuNodePool("inference", GpuNodePoolArgs(
            cluster={"name": cluster.name, "nodeRoleArn": role.arn, "subnetIds": [s.id for s in subnets]},
            pool=EKS_POOL | {key: value()},
        ))

    with pytest.raises(ConfigError) as exc:
        program()
    assert f"{path}: is a Pulumi Output (another resource's output, or a secret" in str(exc.value)
    assert "pool and cluster settings must be plain values" in str(exc.value)
    assert not [n for n in REGISTERED if n.startswith("inference")]


def test_a_cluster_that_is_neither_mapping_nor_cluster_resource_is_refused_with_the_fix():
    with pytest.raises(ConfigError, match=r"GpuNodePoolArgs.cluster: got 42 \(int\); expected a mapping such as .*aws.eks.Cluster"):
        GpuNodePoolArgs(cluster=42, pool=EKS_POOL).validated()


def test_the_readme_cluster_input_snippet_registers_a_node_group_for_the_cluster_and_the_plugin():
    import re

    from conftest import ROOT

    from gpu_node_pool.plan import record

    readme = (ROOT / "README.md").read_text()
    snippet = next(s for s in re.findall(r"```python\n(.*?)```", readme, flags=re.S) if "cluster=eks" in s)
    resources, _ = record(lambda: exec(snippet, {"__name__": "__main__"}))
    group = next(r for r in resources if r.name == "vision-node-group")
    assert group.inputs["clusterName"] == "ml"
    assert group.inputs["subnetIds"] == ["subnet-07a1c2e3f4a5b6c7d", "subnet-0b2d3e4f5a6b7c8d9"]
    assert ("kubernetes:helm.sh/v4:Chart", "nvidia-device-plugin-chart") in {(r.type, r.name) for r in resources}


GKE_POOL = {
    "name": "l4",
    "backend": "gke",
    "machineType": "g2-standard-8",
    "accelerator": {"type": "nvidia-l4", "count": 1},
    "nodeLocations": ["europe-west4-a"],
    "autoscaling": {"minSize": 0, "maxSize": 2},
}


def test_identity_outputs_are_not_judged_and_the_plain_values_beside_them_are():
    args = GpuNodePoolArgs(
        cluster={"name": pulumi.Output.from_input("ML"), "project": "ml-prod-123456",
                 "location": pulumi.Output.from_input("us-central1")},
        pool=GKE_POOL,
    )
    _, settings, identity = args.validated_identity()
    # neither the upper-case name nor the zone outside us-central1 is judged against a stand-in value
    assert settings.not_judged == ("name", "location")
    assert settings.name is None and settings.location is None and settings.project == "ml-prod-123456"
    assert isinstance(identity.name, pulumi.Output) and identity.project == "ml-prod-123456"
    with pytest.raises(ConfigError, match=r"cluster.project: 'ML'"):
        GpuNodePoolArgs(cluster={"name": pulumi.Output.from_input("ml"), "project": "ML", "location": "us-central1"},
                        pool=GKE_POOL).validated()


def test_a_missing_identity_value_is_still_reported_when_others_are_outputs():
    with pytest.raises(ConfigError, match=r"pools\[0\].nodeRoleArn: missing; set it here or in cluster.nodeRoleArn"):
        GpuNodePoolArgs(cluster={"name": pulumi.Output.from_input("ml"), "subnetIds": ["subnet-0a1b2c3d4e5f60718"]},
                        pool=EKS_POOL).validated()
