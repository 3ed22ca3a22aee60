"""MIG on a gke pool whose driver GKE does not install: on ``UBUNTU_CONTAINERD`` nothing creates the partitions
(Google's Ubuntu installer has no ``partition-gpus`` init container, GKE's device plugin only counts partitions), so
``mig`` there is refused; on COS (whose installer partitions) and with GKE's own driver it is taken, and GPU sharing
on Ubuntu, which GKE's device plugin sets up whatever installer ran, stays taken."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import shipped_project

from gpu_node_pool.cli.commands import main as cli_main
from gpu_node_pool.config import ConfigError
from gpu_node_pool.config.loading import load_stack_config

UPSTREAM_UBUNTU = Path(__file__).parents[2] / "data" / "gke_driver_installer" / "ubuntu-daemonset-preloaded.yaml"
CLUSTER = {"name": "ml-gke-dev", "project": "acme-ml-dev", "location": "us-central1"}


def a100_pool(**changes) -> dict:
    """The trial's pool: a2-highgpu-1g on Ubuntu, driver left to the user, 1g.5gb MIG partitions."""
    pool = {"name": "ubu", "backend": "gke", "machineType": "a2-highgpu-1g", "imageType": "UBUNTU_CONTAINERD",
            "accelerator": {"type": "nvidia-tesla-a100", "count": 1, "gpuDriverVersion": "INSTALLATION_DISABLED"},
            "mig": {"strategy": "single", "profile": "1g.5gb"}, "autoscaling": {"minSize": 0, "maxSize": 4}}
    pool.update(changes)
    return {key: value for key, value in pool.items() if value is not None}


def load(pool: dict):
    return load_stack_config({"gpu-node-pools:cluster": dict(CLUSTER), "gpu-node-pools:pools": [pool]}, "test")


def test_googles_ubuntu_installer_has_no_partitioner():
    """The fact the refusal rests on, in the copy of Google's Ubuntu manifest the installer is written from."""
    text = UPSTREAM_UBUNTU.read_text()
    assert "gke-nvidia-installer:fixed" in text
    assert "partition" not in text


def test_the_trial_stack_is_refused_at_mig_with_the_source_and_the_fixes(tmp_path, capsys):
    doc = {"config": {"gpu-node-pools:cluster": dict(CLUSTER), "gpu-node-pools:pools": [a100_pool()]}}
    shipped_project(tmp_path, {"mig": yaml.safe_dump(doc, sort_keys=False)})
    code = cli_main(["plan", "--stack", "mig", "--project-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert ("pools[0].mig: '1g.5gb' partitions on imageType UBUNTU_CONTAINERD with accelerator.gpuDriverVersion "
            "INSTALLATION_DISABLED: nothing would create them") in err
    assert "nvidia-driver-installer/cos/daemonset-preloaded.yaml@992db81257553607f1477945f1b3219632991829 " \
           "initContainers partition-gpus" in err
    assert "pkg/gpu/nvidia/mig/mig.go" in err
    assert "https://cloud.google.com/kubernetes-engine/docs/how-to/gpus-multi" in err
    assert "advertises" not in err
    assert "accelerator.gpuDriverVersion: DEFAULT" in err and "imageType: COS_CONTAINERD" in err


@pytest.mark.parametrize("changes", [
    {"imageType": None},  # GKE's default COS: its installer partitions
    {"imageType": "COS_CONTAINERD"},
    {"accelerator": {"type": "nvidia-tesla-a100", "count": 1, "gpuDriverVersion": "DEFAULT"}},  # GKE installs
])
def test_mig_is_taken_where_something_creates_the_partitions(changes):
    stack = load(a100_pool(**changes))
    assert stack.pools[0].mig.profile == "1g.5gb"


@pytest.mark.parametrize("sharing", [{"strategy": "timeSlicing", "replicas": 3}, {"strategy": "mps", "replicas": 2}])
def test_gpu_sharing_on_ubuntu_without_gkes_driver_is_not_refused(sharing):
    stack = load(a100_pool(mig=None, gpuSharing=sharing))
    assert stack.pools[0].gpu_sharing.strategy == sharing["strategy"]


def test_the_refusal_names_only_mig():
    with pytest.raises(ConfigError) as err:
        load(a100_pool())
    assert "pools[0].mig:" in str(err.value)
    assert "pools[0].imageType" not in str(err.value)
