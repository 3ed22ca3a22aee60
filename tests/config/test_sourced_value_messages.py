"""Refusals of a number out of range, a fraction, a GKE zone, an EKS release version and a GPU-sharing count, and of
``render --out`` on a dangling link, through ``gpupool``: each names the rule's public source and a fix that is
accepted when followed."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT
from conftest import plan_stack_text as plan
from stack_texts import EKS_US_EAST

from gpu_node_pool.cli.commands import main

EKS = EKS_US_EAST + """  gpu-node-pools:pools:
    - name: a
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      amiType: AMI
      scaling: SCALING
"""
GKE = """config:
  gcp:project: acme-ml-dev
  gpu-node-pools:cluster: {name: ml-gke-dev, project: acme-ml-dev, location: us-central1}
  gpu-node-pools:pools:
    - name: l4
      backend: gke
      machineType: g2-standard-8
      accelerator: {type: nvidia-l4, count: 1, gpuDriverVersion: LATEST}
      autoscaling: {minSize: 0, maxSize: 4}
      taints: [nvidia.com/gpu=present:NoSchedule]
      nodeLocations: [ZONES]
"""
EKS_SCALING_API = "https://docs.aws.amazon.com/eks/latest/APIReference/API_NodegroupScalingConfig.html"


def _eks(scaling: str, extra: str = "", ami: str = "AL2023_x86_64_NVIDIA") -> str:
    return EKS.replace("SCALING", scaling).replace("AMI", ami) + extra


def _line(out: str, path: str) -> str:
    return next(line for line in out.splitlines() if f"{path}:" in line)


@pytest.mark.parametrize("scaling, path, fixed", [
    ("{minSize: 0, maxSize: 3, desiredSize: -1}", "scaling.desiredSize", "{minSize: 0, maxSize: 3, desiredSize: 0}"),
    ("{minSize: -2, maxSize: 3}", "scaling.minSize", "{minSize: 0, maxSize: 3}"),
    ("{minSize: 0, maxSize: 0}", "scaling.maxSize", "{minSize: 0, maxSize: 1}"),
])
def test_a_node_count_below_its_bound_names_the_api(capsys, temp_project, scaling, path, fixed):
    code, out = plan(capsys, temp_project, _eks(scaling))
    assert code == 2, out
    line = _line(out, path)
    bound = re.search(r"must be at least (\d+)", line)
    assert bound and EKS_SCALING_API in line and f"write {bound[1]} or more" in line, line
    code, out = plan(capsys, temp_project, _eks(fixed))
    assert code == 0, out


def test_a_fractional_node_count_names_the_api(capsys, temp_project):
    code, out = plan(capsys, temp_project, _eks("{minSize: 0.5, maxSize: 4}"))
    assert code == 2, out
    line = _line(out, "scaling.minSize")
    assert "must be a whole number" in line and EKS_SCALING_API in line and "int32" in line, line


def test_a_release_version_of_the_wrong_form_says_the_form_and_its_source(capsys, temp_project):
    code, out = plan(capsys, temp_project, _eks("{minSize: 0, maxSize: 4}", '      releaseVersion: "v1.33-2025"\n'))
    assert code == 2, out
    line = _line(out, "releaseVersion")
    assert "expected: Pin" not in line, line
    assert "1.33.0-20250610" in line and "1.40.0-25e1f1a4" in line, line
    assert "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html" in line, line
    code, out = plan(capsys, temp_project, _eks("{minSize: 0, maxSize: 4}", '      releaseVersion: "1.33.0-20250610"\n'))
    assert code == 0, out


def test_sharing_replicas_past_int32_on_al2023_names_the_device_plugin_type(capsys, temp_project):
    code, out = plan(capsys, temp_project, _eks("{minSize: 0, maxSize: 4}", "      gpuSharing: {strategy: timeSlicing, replicas: 1e20}\n"))
    assert code == 2, out
    line = _line(out, "gpuSharing.replicas")
    assert "NVIDIA/k8s-device-plugin api/config/v1/replicas.go" in line and "2147483647" in line, line
    assert not line.split("(", 1)[1].startswith("an int32 in Bottlerocket"), line


@pytest.mark.parametrize("zones, offered", [("us-central1", "us-central1-a"), ("us-central1, central", "us-central1-a")])
def test_a_gke_node_location_that_is_no_zone_names_the_rule_and_a_zone(capsys, temp_project, zones, offered):
    code, out = plan(capsys, temp_project, GKE.replace("ZONES", zones))
    assert code == 2, out
    line = _line(out, "nodeLocations")
    assert "https://cloud.google.com/compute/docs/regions-zones" in line and f"write zones, e.g. {offered}, or drop" in line, line
    code, out = plan(capsys, temp_project, GKE.replace("ZONES", offered))
    assert code == 0, out


def test_render_out_on_a_dangling_link_names_the_link_and_its_target(capsys, tmp_path):
    link = tmp_path / "out"
    link.symlink_to(tmp_path / "missing")
    for out_dir in (link, link / "prod"):
        code = main(["render", "--stack", "dev", "--out", str(out_dir), "--project-dir", str(ROOT)])
        err = capsys.readouterr().err
        assert code == 2, err
        assert "is a symbolic link to" in err and str(tmp_path / "missing") in err and "does not exist" in err, err
        assert "File exists" not in err, err
    (tmp_path / "missing").mkdir()  # the fix offered: create the directory it points to
    code = main(["render", "--stack", "dev", "--out", str(link), "--project-dir", str(ROOT)])
    assert code == 0, capsys.readouterr().err
