"""A GpuNodePool's resource name: Pulumi names the children after it, and the cloud has rules for those names."""

from __future__ import annotations

import pulumi
import pytest
from conftest import base

from gpu_node_pool import GpuNodePool, GpuNodePoolArgs
from gpu_node_pool.config import ConfigError


class Mocks(pulumi.runtime.Mocks):
    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        return [args.name + "_id", dict(args.inputs)]

    def call(self, args: pulumi.runtime.MockCallArgs):
        return {}


def declare(name: object, backend: str = "eks-managed") -> None:
    pulumi.runtime.set_mocks(Mocks(), preview=False)
    pool = {"name": "vision", "backend": backend, "instanceTypes": ["g6.2xlarge"], "scaling": {"minSize": 0, "maxSize": 6}}
    cluster = dict(base()["cluster"])
    if backend == "self-managed":
        pool |= {"format": "al2023", "securityGroupIds": ["sg-0a1b2c3d4e5f60718"]}
        cluster |= {"apiServerEndpoint": "https://10.0.0.10", "serviceCidr": "10.100.0.0/16",
                    "certificateAuthority": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==", "kubernetesVersion": "1.33"}
    GpuNodePool(name, GpuNodePoolArgs(pool=pool, cluster=cluster))  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["", None])
def test_no_name_is_a_config_error_not_pulumis_type_error(name):
    with pytest.raises(ConfigError) as err:
        declare(name)
    assert "the resource name must be a non-empty string" in str(err.value)


def test_a_name_too_long_for_the_eks_node_group_is_refused():
    declare("v" * 44)  # 44 + "-node-group" + "-" and 7 random characters = 63: accepted
    with pytest.raises(ConfigError) as err:
        declare("v" * 45)
    (issue,) = err.value.issues
    assert issue.path == "name" and "is 45 characters" in issue.message and "at most 44 characters" in issue.message
    assert "pulumi-aws aws.eks.NodeGroup nodeGroupName" in issue.message


def test_a_name_with_characters_the_cloud_refuses_is_refused():
    with pytest.raises(ConfigError) as err:
        declare("Vision Pool/ü")
    assert "an EKS node group name must fit" in err.value.issues[0].message
    with pytest.raises(ConfigError) as err:
        declare("Vision+Pool", backend="self-managed")  # + is an IAM name's, not a launch template's
    assert "an EC2 launch template name must fit" in err.value.issues[0].message
    declare("vision_pool.2", backend="self-managed")  # accepted: every child takes . and _


def test_a_self_managed_name_too_long_for_its_instance_profile_is_refused_with_iams_rule():
    declare("v" * 103, backend="self-managed")  # 103 + "-instance-profile" + "-" and 7 random characters = 128
    with pytest.raises(ConfigError) as err:
        declare("v" * 104, backend="self-managed")  # the launch template's name would fit: 104 + 16 + 8 = 128
    (issue,) = err.value.issues
    assert issue.path == "name" and "is 104 characters" in issue.message and "at most 103 characters" in issue.message
    assert "'" + "v" * 104 + "-instance-profile'" in issue.message
    assert "IAM API reference, CreateInstanceProfile InstanceProfileName" in issue.message


@pytest.mark.parametrize("name", ["gpu(a100)", "gpu/a100", "Vision Pool ü"])
def test_a_self_managed_name_with_characters_iam_refuses_names_the_instance_profile(name):
    with pytest.raises(ConfigError) as err:
        declare(name, backend="self-managed")
    (issue,) = err.value.issues
    assert issue.message.startswith(f"{name!r}: Pulumi names the child {name + '-instance-profile'!r} plus a random suffix")
    assert "an IAM instance profile name must fit (1 to 128 characters of letters, digits and _ + = , . @ -" in issue.message


def test_given_the_pool_only_the_children_it_creates_are_judged():
    from gpu_node_pool.backends.self_managed.names import resource_name_problem
    from gpu_node_pool.config import validate_stack_config

    pool = {"name": "vision", "backend": "self-managed", "format": "al2023", "instanceTypes": ["g6.2xlarge"],
            "scaling": {"minSize": 0, "maxSize": 6}, "securityGroupIds": ["sg-0a1b2c3d4e5f60718"]}
    cluster = {**base()["cluster"], "apiServerEndpoint": "https://10.0.0.10", "serviceCidr": "10.100.0.0/16",
               "certificateAuthority": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==", "kubernetesVersion": "1.33"}
    own = validate_stack_config({"cluster": cluster, "pools": [
        {**pool, "instanceProfileArn": "arn:aws:iam::111122223333:instance-profile/gpu"}]}).pools[0]
    made = validate_stack_config({"cluster": cluster, "pools": [pool]}).pools[0]
    assert "IAM instance profile" in resource_name_problem("gpu(a100)", made)
    assert resource_name_problem("gpu(a100)", own) is None  # its own profile: no instance profile is created
    assert "EC2 launch template" in resource_name_problem("gpu+a100", own)
