"""The GPU Operator and the DCGM exporter read where the platform puts the NVIDIA driver as pool data
(``AgentPool.driver_mount``, filled from the pool model), never a backend's or image family's name: a GKE pool gets
GKE's directory from its model, and a pool of any family with a platform directory is served the same way."""

from __future__ import annotations

import pytest

from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.gpu_agents.dcgm_exporter.values import dcgm_values
from gpu_node_pool.gpu_agents.gpu_operator.values import operator_values
from gpu_node_pool.gpu_agents.pools import AgentPool, GpuLabel, agent_pool
from gpu_node_pool.k8s.taints import Taint

MOUNT = ("/opt/platform/nvidia", "/usr/local/platform-nvidia")


def _pool(name="p", family="other", mount=None, root="/"):
    return AgentPool(name=name, backend="eks-managed", taints=(Taint.parse("nvidia.com/gpu=true:NoSchedule"),),
                     labels={"gpu-node-pools/pool": name}, gpu_label=GpuLabel("nvidia.com/gpu.present", "true"),
                     driver="none", image_family=family, driver_root=root, driver_mount=mount)


def test_a_gke_pool_model_gives_gkes_driver_directory_and_where_gpu_containers_see_it():
    stack = validate_stack_config({"cluster": {"name": "ml", "project": "acme-ml-dev", "location": "us-central1"}, "pools": [
        {"name": "l4", "backend": "gke", "machineType": "g2-standard-8",
         "accelerator": {"type": "nvidia-l4", "count": 1}, "autoscaling": {"minSize": 0, "maxSize": 1}}]})
    assert agent_pool(stack.pools[0]).driver_mount == ("/home/kubernetes/bin/nvidia", "/usr/local/nvidia")


def test_the_exporter_mounts_the_platform_directory_of_any_pool_that_has_one():
    values = dcgm_values([_pool(mount=MOUNT)])
    assert values["extraHostVolumes"] == [{"name": "nvidia-install-dir-host", "hostPath": "/opt/platform/nvidia"}]
    assert {"name": "nvidia-install-dir-host", "mountPath": "/usr/local/platform-nvidia", "readOnly": True} in \
        values["extraVolumeMounts"]
    assert values["extraEnv"] == [{"name": "LD_LIBRARY_PATH", "value": "/usr/local/platform-nvidia/lib64"}]


def test_the_family_name_gke_alone_mounts_nothing_and_keeps_the_operators_driver():
    gke_named = _pool(family="gke")
    assert "extraHostVolumes" not in dcgm_values([gke_named])
    assert operator_values([gke_named])["driver"] == {"enabled": True}


def test_the_operator_installs_no_driver_only_when_every_pool_has_a_platform_directory():
    values = operator_values([_pool(mount=MOUNT, root="/opt/platform/nvidia")])
    assert values["driver"] == {"enabled": False}
    assert values["hostPaths"] == {"driverInstallDir": "/opt/platform/nvidia"}
    assert operator_values([_pool("a", mount=MOUNT), _pool("b")])["driver"] == {"enabled": True}


def test_pools_with_two_platform_directories_are_refused_naming_them():
    with pytest.raises(ValueError, match=r"one exporter mounts one platform driver directory, .*/opt/platform/nvidia "
                                         r"at /usr/local/platform-nvidia \(a\); /x at /y \(b\)"):
        dcgm_values([_pool("a", mount=MOUNT), _pool("b", mount=("/x", "/y"))])
