"""GPU agent config: pool gpuSharing/mig and stack devicePlugin.provider/gpuAgents, validated with their rules."""

from __future__ import annotations

import pytest
from builders import config_errors

from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.k8s.wellknown import DEVICE_PLUGIN_CONFIG_LABEL

CLUSTER = {"name": "c", "nodeRoleArn": "arn:aws:iam::123456789012:role/n", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}
GKE_CLUSTER = {"name": "c", "project": "my-project-1", "location": "us-central1"}


def _eks(**extra):
    return {"name": "ts", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 2}} | extra


def _gke(**extra):
    accel = {"type": "nvidia-l4", "count": 1} | extra.pop("accelerator", {})
    return {"name": "g", "backend": "gke", "machineType": "g2-standard-8", "accelerator": accel,
            "autoscaling": {"minSize": 0, "maxSize": 2}} | extra


def _stack(pool, cluster=CLUSTER, **top):
    return validate_stack_config({"cluster": cluster, "pools": [pool], **top})


def _errors(pool, cluster=CLUSTER, **top) -> list[str]:
    return config_errors(pool, lambda p: _stack(p, cluster, **top))


def test_time_sliced_pool_is_accepted_and_labels_its_nodes():
    stack = _stack(_eks(gpuSharing={"strategy": "timeSlicing", "replicas": 4}))
    pool = stack.pools[0]
    assert pool.gpu_sharing.config_name == "timeslicing-4"
    assert pool.node_labels[DEVICE_PLUGIN_CONFIG_LABEL] == "timeslicing-4"
    assert stack.device_plugin.provider == "nvidia-device-plugin"
    assert stack.gpu_agents.dcgm_exporter.enabled is False


def test_pool_without_sharing_gets_no_config_label():
    assert DEVICE_PLUGIN_CONFIG_LABEL not in _stack(_eks()).pools[0].node_labels


@pytest.mark.parametrize("replicas", [1, 0, -3])
def test_replicas_below_two_is_refused_with_path_source_and_fix(replicas):
    (issue,) = _errors(_eks(gpuSharing={"strategy": "timeSlicing", "replicas": replicas}))
    assert issue.startswith("pools[0].gpuSharing.replicas:")
    assert "internal/lm/resource.go" in issue and "set replicas: 2 or more" in issue


def test_unknown_strategy_is_refused():
    (issue,) = _errors(_eks(gpuSharing={"strategy": "timeslice", "replicas": 2}))
    assert issue.startswith("pools[0].gpuSharing.strategy:") and "timeSlicing" in issue


def test_sharing_on_a_bottlerocket_release_without_the_setting_is_refused():
    # Bottlerocket time-slices from its own settings since 1.25.0 (tests/backends/eks_managed/test_bottlerocket_gpu_sharing.py)
    issues = _errors(_eks(amiType="BOTTLEROCKET_x86_64_NVIDIA", releaseVersion="1.24.1-0d1b2c3a",
                          gpuSharing={"strategy": "timeSlicing", "replicas": 2}))
    assert any(i.startswith("pools[0].releaseVersion:") and "Bottlerocket" in i for i in issues)


def test_the_config_label_is_the_components():
    issues = _errors(_eks(labels={DEVICE_PLUGIN_CONFIG_LABEL: "x"}, gpuSharing={"strategy": "mps", "replicas": 2}))
    assert any(DEVICE_PLUGIN_CONFIG_LABEL in i and "remove it" in i for i in issues)


def test_mig_without_partitioner_is_refused_naming_it():
    issues = _errors(_eks(instanceTypes=["p4de.24xlarge"], mig={"strategy": "mixed", "profile": "1g.10gb"}))
    assert any(i.startswith("pools[0].mig:") and "devicePlugin.provider: gpu-operator" in i for i in issues)


def test_mig_on_a_gpu_without_mig_is_refused_from_the_catalog():
    issues = _errors(_eks(mig={"strategy": "single", "profile": "1g.10gb"}), devicePlugin={"provider": "gpu-operator"})
    assert issues == [
        "pools[0].mig: the GPU of this pool (NVIDIA L4) does not support MIG (NVIDIA MIG User Guide, Supported GPUs: "
        "A30, A100, H100, H200, B200 and later); remove mig or use a MIG-capable GPU"
    ]


@pytest.mark.parametrize("image", [{}, {"amiType": "BOTTLEROCKET_x86_64_NVIDIA"}], ids=["no-partitioner", "bottlerocket"])
def test_mig_on_a_gpu_without_mig_is_one_refusal_whatever_would_partition(image):
    # advice about a partitioner (the GPU Operator, Bottlerocket's table) cannot help a GPU that has no MIG
    issues = _errors(_eks(instanceTypes=["g6e.12xlarge"], mig={"strategy": "single", "profile": "1g.10gb"}, **image))
    assert issues == [
        "pools[0].mig: the GPU of this pool (NVIDIA L40S) does not support MIG (NVIDIA MIG User Guide, Supported GPUs: "
        "A30, A100, H100, H200, B200 and later); remove mig or use a MIG-capable GPU"
    ]


def test_mig_with_the_operator_on_a100_80gb_is_accepted_and_profiles_are_checked():
    good = _eks(instanceTypes=["p4de.24xlarge"], mig={"strategy": "mixed", "profile": "3g.40gb"})
    assert _stack(good, devicePlugin={"provider": "gpu-operator"}).pools[0].mig.profile == "3g.40gb"
    bad = _eks(instanceTypes=["p4de.24xlarge"], mig={"strategy": "mixed", "profile": "3g.20gb"})
    (issue,) = _errors(bad, devicePlugin={"provider": "gpu-operator"})
    assert issue.startswith("pools[0].mig.profile: '3g.20gb' is not a MIG profile of this GPU (A100-80GB); allowed: 1g.10gb")
    assert "NVIDIA MIG User Guide" in issue


def test_h100_profile_is_judged_from_its_table():
    pool = _eks(instanceTypes=["p5.48xlarge"], mig={"strategy": "single", "profile": "1g.10gb"})
    assert _stack(pool, devicePlugin={"provider": "gpu-operator"}).pools[0].mig is not None
    bad = _eks(instanceTypes=["p5.48xlarge"], mig={"strategy": "single", "profile": "3g.20gb"})
    (issue,) = _errors(bad, devicePlugin={"provider": "gpu-operator"})
    assert issue.startswith("pools[0].mig.profile: '3g.20gb' is not a MIG profile of this GPU (H100-80GB)")


def test_malformed_mig_profile_is_refused():
    (issue,) = _errors(_eks(mig={"strategy": "single", "profile": "small"}), devicePlugin={"provider": "gpu-operator"})
    assert issue.startswith("pools[0].mig.profile:") and "<compute>g.<memory>gb" in issue


def test_mixed_on_gke_is_refused():
    pool = _gke(machineType="a2-highgpu-1g", accelerator={"type": "nvidia-tesla-a100"}, mig={"strategy": "mixed", "profile": "1g.5gb"})
    issues = _errors(pool, GKE_CLUSTER)
    assert issues == [
        "pools[0].mig.strategy: 'mixed': GKE partitions with gpu_partition_size and exposes the partitions as "
        "nvidia.com/gpu (the single strategy: https://cloud.google.com/kubernetes-engine/docs/how-to/gpus-multi); use strategy: single"
    ]
    single = _gke(machineType="a2-highgpu-1g", accelerator={"type": "nvidia-tesla-a100"}, mig={"strategy": "single", "profile": "1g.5gb"})
    assert _stack(single, GKE_CLUSTER).pools[0].mig.strategy == "single"


def test_gke_raw_sharing_field_is_refused_for_gpu_sharing():
    pool = _gke(gpuSharing={"strategy": "timeSlicing", "replicas": 2},
                accelerator={"gpuSharingConfig": {"gpuSharingStrategy": "TIME_SHARING", "maxSharedClientsPerGpu": 2}})
    assert any(i.startswith("pools[0].accelerator.gpuSharingConfig: not taken") and "gpuSharing" in i
               for i in _errors(pool, GKE_CLUSTER))


def test_gke_sharing_pool_gets_no_plugin_label():
    stack = _stack(_gke(gpuSharing={"strategy": "mps", "replicas": 4}), GKE_CLUSTER)
    assert DEVICE_PLUGIN_CONFIG_LABEL not in stack.pools[0].node_labels


def test_gpu_operator_with_standalone_only_options_is_refused():
    issues = _errors(_eks(), devicePlugin={"provider": "gpu-operator", "imageDigest": "sha256:" + "0" * 64})
    assert len(issues) == 1 and issues[0].startswith("devicePlugin.imageDigest:") and "provider: nvidia-device-plugin" in issues[0]


def test_gpu_operator_on_gke_managed_plugin_pool_is_refused():
    issues = _errors(_gke(), GKE_CLUSTER, devicePlugin={"provider": "gpu-operator"})
    assert issues[0].startswith("pools[0]: GKE already runs its device plugin") and "google-gke.rst" in issues[0]


def test_feature_discovery_that_gke_runs_is_refused():
    issues = _errors(_gke(), GKE_CLUSTER, gpuAgents={"featureDiscovery": {"enabled": True}})
    assert issues[0].startswith("gpuAgents.featureDiscovery.enabled:")


def test_unknown_provider_and_agent_keys():
    assert _errors(_eks(), devicePlugin={"provider": "nvidia"})[0].startswith("devicePlugin.provider:")
    assert "unknown key" in _errors(_eks(), gpuAgents={"dcgm": {"enabled": True}})[0]
