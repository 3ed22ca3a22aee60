"""MIG on H100, H200 and B200 (EC2 and GKE) judged from sourced per-GPU tables: a profile the GPU cannot run is
refused with the allowed list and the source, an accepted one gets the exact autoscaler count; GPUs without a
sourced table (B300, GB200) stay warnings (not judged), as before."""

from __future__ import annotations

import base64

import pytest

from gpu_node_pool.backends._shared.cluster_autoscaler import CA_LABEL_PREFIX, CA_RESOURCE_PREFIX, ca_node_template_tags
from gpu_node_pool.backends.self_managed.render import ca_tags
from gpu_node_pool.config import ConfigError, validate_stack_config
from gpu_node_pool.config.sharing_names import mig_layout_name
from gpu_node_pool.config.warnings import stack_warnings
from gpu_node_pool.gpu_agents.capacity import autoscaler_resources, gke_accelerator_args
from gpu_node_pool.gpu_agents.mig_partitioners import OPERATOR_DEFAULT_LAYOUTS
from gpu_node_pool.gpu_agents.mig_profiles import GKE_PARTITION_SIZES, MIG_PROFILES
from gpu_node_pool.gpu_agents.promise import pool_promise
from gpu_node_pool.k8s.wellknown import MIG_CONFIG_LABEL, NVIDIA_GPU_RESOURCE

EKS = {"name": "ml", "nodeRoleArn": "arn:aws:iam::123456789012:role/n", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}
PEM = b"-----BEGIN CERTIFICATE-----\nMIIBdummyCAfortests\n-----END CERTIFICATE-----\n"
SELF = EKS | {"kubernetesVersion": "1.33", "apiServerEndpoint": "https://ABCDEF0123456789.gr7.us-east-1.eks.amazonaws.com",
              "certificateAuthority": base64.b64encode(PEM).decode(), "serviceCidr": "10.100.0.0/16"}
GKE = {"name": "c", "project": "my-project-1", "location": "us-central1"}
OPERATOR = {"provider": "gpu-operator"}
OPERATOR_SOURCE = "NVIDIA/gpu-operator assets/state-mig-manager/0400_configmap.yaml@v26.7.0"
GKE_SOURCE = "GoogleCloudPlatform/container-engine-accelerators"


def eks_stack(types, strategy, profile, **extra):
    pool = {"name": "h", "backend": "eks-managed", "instanceTypes": types, "scaling": {"minSize": 0, "maxSize": 4},
            "mig": {"strategy": strategy, "profile": profile}} | extra
    return validate_stack_config({"cluster": EKS, "pools": [pool], "devicePlugin": OPERATOR})


def gke_stack(machine, accel, profile, count=8):
    pool = {"name": "g", "backend": "gke", "machineType": machine, "accelerator": {"type": accel, "count": count},
            "autoscaling": {"minSize": 0, "maxSize": 2}, "mig": {"strategy": "single", "profile": profile}}
    return validate_stack_config({"cluster": GKE, "pools": [pool]})


def issues_of(build) -> list[str]:
    with pytest.raises(ConfigError) as err:
        build()
    return [str(i) for i in err.value.issues]


def asg_tags(pool) -> dict[str, str]:
    """The node-template tags the eks-managed shell registers on the Auto Scaling group of a minSize-0 pool."""
    return ca_node_template_tags(pool.taint_list, pool.node_labels, {k: str(v) for k, v in autoscaler_resources(pool).items()})


# --- (a) H100 on EC2: accepted with the exact count -------------------------------------------------


@pytest.mark.parametrize(("strategy", "profile", "resource", "count"), [
    ("single", "1g.10gb", NVIDIA_GPU_RESOURCE, 56),  # 8 GPUs x 7 instances
    ("single", "1g.20gb", NVIDIA_GPU_RESOURCE, 32),  # 8 x 4
    ("mixed", "3g.40gb", "nvidia.com/mig-3g.40gb", 16),  # 8 x 2
    ("mixed", "1g.10gb+me", "nvidia.com/mig-1g.10gb.me", 8),  # one +me instance per GPU
    ("mixed", "7g.80gb", "nvidia.com/mig-7g.80gb", 8),
])
def test_h100_p5_48xlarge_profile_is_accepted_and_the_asg_tag_counts_its_mig_devices(strategy, profile, resource, count):
    s = eks_stack(["p5.48xlarge"], strategy, profile)
    pool = s.pools[0]
    assert not [w for w in stack_warnings(s) if "mig" in w.path]  # judged, not a "not judged" warning
    tags = asg_tags(pool)
    assert tags[CA_RESOURCE_PREFIX + resource] == str(count)
    assert tags[CA_LABEL_PREFIX + MIG_CONFIG_LABEL] == mig_layout_name(profile)
    assert [k for k in tags if k.startswith(CA_RESOURCE_PREFIX)] == [CA_RESOURCE_PREFIX + resource]
    assert pool_promise(pool, "gpu-operator")["advertised"] == {resource: count}


def test_h100_one_gpu_p5_4xlarge_counts_one_gpu():
    assert autoscaler_resources(eks_stack(["p5.4xlarge"], "single", "1g.10gb").pools[0]) == {NVIDIA_GPU_RESOURCE: 7}


def test_self_managed_h100_tags_come_from_the_same_count():
    pool = {"name": "sm", "backend": "self-managed", "format": "al2023", "instanceTypes": ["p5.48xlarge"],
            "scaling": {"minSize": 0, "maxSize": 2}, "securityGroupIds": ["sg-0a1b2c3d4e5f60718"],
            "mig": {"strategy": "mixed", "profile": "2g.20gb"}}
    s = validate_stack_config({"cluster": SELF, "pools": [pool], "devicePlugin": OPERATOR})
    tags = ca_tags(s.pools[0], s.cluster)
    assert tags[CA_RESOURCE_PREFIX + "nvidia.com/mig-2g.20gb"] == "24"  # 8 x 3
    assert CA_RESOURCE_PREFIX + NVIDIA_GPU_RESOURCE not in tags


def test_h200_and_b200_counts_follow_their_own_tables():
    # 1g.35gb: 4 per H200 (the layout's device-filter 0x233510DE), not 7 as on GB300
    assert autoscaler_resources(eks_stack(["p5e.48xlarge"], "mixed", "1g.35gb").pools[0]) == {"nvidia.com/mig-1g.35gb": 32}
    assert autoscaler_resources(eks_stack(["p5en.48xlarge"], "single", "1g.18gb").pools[0]) == {NVIDIA_GPU_RESOURCE: 56}
    assert autoscaler_resources(eks_stack(["p6-b200.48xlarge"], "mixed", "3g.90gb").pools[0]) == {"nvidia.com/mig-3g.90gb": 16}


# --- (b) a profile the GPU cannot run is refused -------------------------------------------------------


def test_a100_only_profile_on_h100_is_refused_with_the_allowed_list_and_the_source():
    (issue,) = issues_of(lambda: eks_stack(["p5.48xlarge"], "single", "1g.5gb"))
    assert issue == (
        "pools[0].mig.profile: '1g.5gb' is not a MIG profile of this GPU (H100-80GB); allowed: 1g.10gb, 1g.10gb+me, "
        "1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb (the GPU Operator's default-mig-parted-config: "
        f"{OPERATOR_SOURCE}); use one of those"
    )


def test_h100_profile_on_h200_is_refused_naming_the_h200_table():
    (issue,) = issues_of(lambda: eks_stack(["p5e.48xlarge"], "single", "3g.40gb"))
    assert issue.startswith("pools[0].mig.profile: '3g.40gb' is not a MIG profile of this GPU (H200-141GB); allowed: 1g.18gb")
    assert OPERATOR_SOURCE in issue


def test_operator_layout_message_offers_the_pools_own_gpu():
    issues = issues_of(lambda: eks_stack(["p6-b200.48xlarge"], "mixed", "2g.45gb+me"))
    (layout,) = [i for i in issues if "has no layout" in i]
    offered = layout.split("on this GPU (B200-180GB): ")[1].split(", ")
    assert offered == [mig_layout_name(p) for p in MIG_PROFILES["B200-180GB"]]
    assert "all-1g.5gb" not in layout


def test_every_tabled_profile_has_an_operator_layout():
    # what the table accepts on EC2, the operator's MIG manager can apply (else the label partitions nothing)
    missing = {m: [p for p in t if mig_layout_name(p) not in OPERATOR_DEFAULT_LAYOUTS] for m, t in MIG_PROFILES.items()}
    assert missing == {m: [] for m in MIG_PROFILES}


def test_bottlerocket_on_h100_stays_refused():
    pool = {"name": "br", "backend": "self-managed", "format": "bottlerocket", "instanceTypes": ["p5.48xlarge"],
            "scaling": {"minSize": 0, "maxSize": 2}, "securityGroupIds": ["sg-0a1b2c3d4e5f60718"],
            "mig": {"strategy": "single", "profile": "1g.10gb"}}
    issues = issues_of(lambda: validate_stack_config({"cluster": SELF, "pools": [pool]}))
    assert any("(H100-80GB) are not in the component's table" in i and "not confirmed at a Bottlerocket release tag" in i
               for i in issues)


# --- (c) GKE: judged against GKE's own partition sizes ----------------------------------------------------


@pytest.mark.parametrize(("machine", "accel", "profile", "count"), [
    ("a3-highgpu-8g", "nvidia-h100-80gb", "1g.10gb", 56),
    ("a3-megagpu-8g", "nvidia-h100-mega-80gb", "1g.20gb", 32),
    ("a3-ultragpu-8g", "nvidia-h200-141gb", "1g.18gb", 56),
    ("a3-ultragpu-8g", "nvidia-h200-141gb", "4g.71gb", 8),
    ("a4-highgpu-8g", "nvidia-b200", "2g.45gb", 24),
])
def test_gke_h100_h200_b200_partition_size_is_accepted_with_its_count(machine, accel, profile, count):
    s = gke_stack(machine, accel, profile)
    pool = s.pools[0]
    assert gke_accelerator_args(pool) == {"gpu_partition_size": profile}
    assert autoscaler_resources(pool) == {NVIDIA_GPU_RESOURCE: count}
    assert not [w for w in stack_warnings(s) if "mig" in w.path]


def test_gke_h100_refuses_a100_sizes_and_sizes_gkes_plugin_rejects():
    (issue,) = issues_of(lambda: gke_stack("a3-highgpu-8g", "nvidia-h100-80gb", "1g.5gb"))
    assert issue.startswith("pools[0].mig.profile: '1g.5gb' is not a gpu_partition_size that GKE's partitioner and device "
                            "plugin both accept for nvidia-h100-80gb; allowed: 1g.10gb, 1g.20gb, 2g.20gb, 3g.40gb, 7g.80gb")
    assert GKE_SOURCE in issue
    # 4g.40gb is an H100 profile (NVIDIA), but GKE's device plugin has no count for it
    (issue,) = issues_of(lambda: gke_stack("a3-highgpu-8g", "nvidia-h100-80gb", "4g.40gb"))
    assert "'4g.40gb' is not a gpu_partition_size" in issue


def test_gke_h200_refuses_an_h100_size():
    (issue,) = issues_of(lambda: gke_stack("a3-ultragpu-8g", "nvidia-h200-141gb", "1g.10gb"))
    assert "for nvidia-h200-141gb; allowed: 1g.18gb, 1g.35gb, 2g.35gb, 3g.71gb, 4g.71gb, 7g.141gb" in issue


def test_gke_sizes_are_a_subset_of_the_gpus_table_with_the_same_counts():
    from gpu_node_pool.gpu_agents.mig_profiles import GKE_MODELS

    for accel, sizes in GKE_PARTITION_SIZES.items():
        gpu = MIG_PROFILES[GKE_MODELS[accel]]
        assert {p: gpu.get(p) for p in sizes} == dict(sizes), accel


# --- (d) GPUs without a sourced table: not judged, as before ------------------------------------------------


def test_b300_is_not_judged_and_gets_no_resources_tag():
    s = eks_stack(["p6-b300.48xlarge"], "mixed", "1g.34gb")
    (warning,) = [w for w in stack_warnings(s) if w.path == "pools[0].mig.profile"]
    assert "NVIDIA B300" in warning.message and "not judged" in warning.message
    assert autoscaler_resources(s.pools[0]) == {}
    assert not [k for k in asg_tags(s.pools[0]) if k.startswith(CA_RESOURCE_PREFIX)]
