"""GPU sharing and MIG derivations, checked against the real device-plugin chart."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

from gpu_node_pool import registry
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.gpu_agents import mig, sharing
from gpu_node_pool.gpu_agents.pools import AgentPool, GpuLabel, GpuSharing, MigSetting, agent_pool
from gpu_node_pool.k8s.taints import Taint
from gpu_node_pool.plan.expand import locate_helm

#: The shared test data beside the repo; GPU_NODE_POOLS_SHARED points elsewhere (a git worktree).
SHARED = Path(os.environ.get("GPU_NODE_POOLS_SHARED", ROOT.parent / "shared"))
CHART = SHARED / "charts" / "nvidia-device-plugin"


def _pool(name="ts", sharing_=None, mig_=None, backend="eks-managed", gpus=1, family="al2023-nvidia", plugin="none"):
    record = registry.get(backend)  # how the backend shares and partitions GPUs (GKE: the platform itself)
    return AgentPool(
        name=name,
        backend=backend,
        taints=(Taint.parse("nvidia.com/gpu=true:NoSchedule"),),
        labels={"nvidia.com/gpu.present": "true", "gpu-node-pools/pool": name},
        gpu_label=GpuLabel("nvidia.com/gpu.present", "true"),
        gpus_per_node=gpus,
        driver="image",
        device_plugin=plugin,
        image_family=family,
        sharing=sharing_,
        mig=mig_,
        sharing_by=record.gpu_sharing,
        mig_by=record.mig,
    )


def _eks_g6_xlarge():
    stack = validate_stack_config(
        {
            "cluster": {"name": "c", "nodeRoleArn": "arn:aws:iam::123456789012:role/n", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]},
            "pools": [
                {"name": "ts", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"],
                 "scaling": {"minSize": 0, "maxSize": 2}}
            ],
        }
    )
    return agent_pool(stack.pools[0], sharing=GpuSharing("timeSlicing", 4))


def test_time_sliced_g6_xlarge_replicas_4():
    pool = _eks_g6_xlarge()
    values = sharing.device_plugin_config_values([pool])
    assert values["default"] == "default"
    assert set(values["map"]) == {"default", "timeslicing-4"}
    doc = yaml.safe_load(values["map"]["timeslicing-4"])
    assert doc == {
        "version": "v1",
        "sharing": {"timeSlicing": {"renameByDefault": False, "resources": [{"name": "nvidia.com/gpu", "replicas": 4}]}},
    }
    assert sharing.pool_config_labels(pool) == {"nvidia.com/device-plugin.config": "timeslicing-4"}
    assert sharing.advertised_gpus(pool) == 4


def test_one_named_config_per_distinct_setting():
    pools = [_pool("a", GpuSharing("timeSlicing", 4)), _pool("b", GpuSharing("timeSlicing", 4)),
             _pool("c", GpuSharing("mps", 2)), _pool("d")]
    assert sorted(sharing.device_plugin_config_values(pools)["map"]) == ["default", "mps-2", "timeslicing-4"]
    assert sharing.device_plugin_config_values([_pool("d")]) == {}
    assert sharing.needs_feature_discovery(pools[2]) and not sharing.needs_feature_discovery(pools[0])


def test_gke_mapping():
    assert sharing.gke_sharing_config(GpuSharing("mps", 3)) == {"gpu_sharing_strategy": "MPS", "max_shared_clients_per_gpu": 3}
    assert sharing.gke_sharing_config(GpuSharing("timeSlicing", 2))["gpu_sharing_strategy"] == "TIME_SHARING"
    many = sharing.sharing_problems(_pool(backend="gke", sharing_=GpuSharing("timeSlicing", 60)), "pools[0].gpuSharing")
    assert [p.warning for p in many] == [True]


@pytest.mark.parametrize(
    ("pool", "needle"),
    [
        (_pool(sharing_=GpuSharing("timeSlicing", 1)), "at least 2 replicas"),
        (_pool(sharing_=GpuSharing("mps", 2), mig_=MigSetting("single", "1g.10gb")), "MIG-enabled"),
        (_pool(sharing_=GpuSharing("timeSlicing", 2), family="bottlerocket-nvidia", plugin="image"), "Bottlerocket"),
    ],
)
def test_sharing_bad_input(pool, needle):
    problems = sharing.sharing_problems(pool, "pools[0].gpuSharing")
    assert any(needle in p.message and not p.warning for p in problems), problems


def test_mig_needs_a_partitioner():
    pool = _pool(mig_=MigSetting("mixed", "1g.10gb"))
    problems = mig.mig_problems(pool, "pools[0].mig", provider="nvidia-device-plugin", mig_capable=True,
                                profiles=mig.MIG_PROFILES["A100-80GB"])
    assert any("nothing partitions" in p.message and "gpu-operator" in p.message for p in problems)
    assert not mig.mig_problems(pool, "pools[0].mig", provider="gpu-operator", mig_capable=True,
                                profiles=mig.MIG_PROFILES["A100-80GB"])


def test_mig_bad_input():
    gke = _pool(backend="gke", mig_=MigSetting("mixed", "1g.10gb"))
    assert any("use strategy: single" in p.message for p in mig.mig_problems(
        gke, "p", provider="nvidia-device-plugin", mig_capable=True, profiles=None))
    no_mig = _pool(mig_=MigSetting("single", "1g.10gb"))
    assert any("does not support MIG" in p.message for p in mig.mig_problems(
        no_mig, "p", provider="gpu-operator", mig_capable=False, profiles=None))
    unknown = mig.mig_problems(no_mig, "p", provider="gpu-operator", mig_capable=None, profiles=None)
    assert [p.warning for p in unknown] == [True]
    no_mig = _pool(mig_=MigSetting("single", "1g.20gb"))
    bad_profile = mig.mig_problems(no_mig, "p", provider="gpu-operator", mig_capable=True,
                                   profiles=mig.MIG_PROFILES["A100-40GB"])
    assert any(p.path == "p.profile" for p in bad_profile)


def test_mig_autoscaler_resource():
    pool = _pool(gpus=8, mig_=MigSetting("mixed", "1g.10gb+me"))
    assert mig.autoscaler_resource(pool, mig.MIG_PROFILES["A100-80GB"]) == ("nvidia.com/mig-1g.10gb.me", 8)
    pool = _pool(gpus=8, mig_=MigSetting("mixed", "3g.40gb"))
    assert mig.autoscaler_resource(pool, mig.MIG_PROFILES["A100-80GB"]) == ("nvidia.com/mig-3g.40gb", 16)
    single = _pool(gpus=2, mig_=MigSetting("single", "1g.5gb"))
    assert mig.autoscaler_resource(single, mig.MIG_PROFILES["A100-40GB"]) == ("nvidia.com/gpu", 14)


def test_config_map_renders_in_the_real_chart(tmp_path):
    helm = locate_helm()
    if helm is None:
        pytest.skip("helm is not on PATH (tools/install_helm.py installs it)")
    if not CHART.is_dir():
        pytest.skip(f"{CHART} is absent (the shared charts folder is not in this checkout)")
    pool = _eks_g6_xlarge()
    values_file = tmp_path / "values.yaml"
    values_file.write_text(yaml.safe_dump({"config": sharing.device_plugin_config_values([pool])}))
    out = subprocess.run([helm, "template", "dp", str(CHART), "-n", "nvidia", "-f", str(values_file)],
                         check=True, capture_output=True, text=True).stdout
    docs = [d for d in yaml.safe_load_all(out) if d]
    cm = next(d for d in docs if d["kind"] == "ConfigMap" and "timeslicing-4" in (d.get("data") or {}))
    assert yaml.safe_load(cm["data"]["timeslicing-4"])["sharing"]["timeSlicing"]["resources"][0]["replicas"] == 4
    ds = next(d for d in docs if d["kind"] == "DaemonSet" and d["metadata"]["name"] == "dp-nvidia-device-plugin")
    args = yaml.safe_dump(ds["spec"]["template"]["spec"])
    assert "nvidia.com/device-plugin.config" in args or "NODE_LABEL" in args
    assert "DEFAULT_CONFIG" in args and "default" in args
