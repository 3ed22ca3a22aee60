"""A GKE pool's ComputeClass taint and label, and its zones, as a user sees them through ``gpupool``.

GKE documents the ComputeClass taint of a node pool created by hand with ``NoSchedule`` only
(about-custom-compute-classes#manual-node-pools), and a node pool's zones must be zones of the cluster's region
(regional-clusters page); ``gpupool validate`` says so with the source and the fix.
"""

from __future__ import annotations

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main

GKE = (ROOT / "stacks" / "Pulumi.gke-dev.yaml").read_text()
GPU_TAINT = "        - nvidia.com/gpu=present:NoSchedule"
SOURCE = "https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes#manual-node-pools"


def stack(taint: str | None = None, label: str | None = None) -> str:
    text = GKE
    if taint:
        text = text.replace(GPU_TAINT, f"{GPU_TAINT}\n        - cloud.google.com/compute-class={taint}")
    if label:
        text = text.replace("        workload: inference", f"        workload: inference\n        cloud.google.com/compute-class: {label}")
    assert text != GKE or not (taint or label)
    return text


def validate(capsys, temp_project, text: str) -> tuple[int, str]:
    code = main(["validate", "--stack", "mine", "--project-dir", str(temp_project("mine", text))])
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.mark.parametrize("effect", ["NoSchedule", "NoExecute", "PreferNoSchedule"])
def test_a_compute_class_taint_without_its_label_is_warned_whatever_its_effect(capsys, temp_project, effect):
    code, out = validate(capsys, temp_project, stack(taint=f"x:{effect}"))
    assert code == 0, out
    warning = next(line for line in out.splitlines() if "warning:" in line and "compute-class" in line)
    assert "pools[0].taints:" in warning and SOURCE in warning
    assert "add the label" in warning


@pytest.mark.parametrize("label", [None, "x"])
@pytest.mark.parametrize("effect", ["NoExecute", "PreferNoSchedule"])
def test_a_compute_class_taint_of_another_effect_than_no_schedule_is_told_to_be_no_schedule(
        capsys, temp_project, effect, label):
    code, out = validate(capsys, temp_project, stack(taint=f"x:{effect}", label=label))
    assert code == 0, out
    assert (f"taints has 'cloud.google.com/compute-class=x:{effect}', but GKE documents the ComputeClass taint of a "
            "node pool created by hand with the effect NoSchedule only") in out
    assert "write 'cloud.google.com/compute-class=x:NoSchedule' instead" in out
    assert ("add the label" in out) is (label is None)


def test_the_documented_pair_is_not_warned(capsys, temp_project):
    code, out = validate(capsys, temp_project, stack(taint="x:NoSchedule", label="x"))
    assert code == 0 and "warning" not in out, out


def test_the_label_without_the_taint_is_still_warned(capsys, temp_project):
    code, out = validate(capsys, temp_project, stack(label="x"))
    assert code == 0
    assert "'x' without the taint 'cloud.google.com/compute-class=x:NoSchedule'" in out and SOURCE in out


def test_zones_outside_the_cluster_region_are_refused_with_the_source_and_the_fix(capsys, temp_project):
    text = GKE.replace("nodeLocations: [us-central1-a, us-central1-c]", "nodeLocations: [us-east1-b]")
    assert text != GKE
    code, out = validate(capsys, temp_project, text)
    assert code == 2, out
    line = next(line for line in out.splitlines() if "nodeLocations" in line)
    assert "us-east1-b is outside the cluster's region us-central1" in line
    assert "https://cloud.google.com/kubernetes-engine/docs/concepts/regional-clusters" in line
    assert "zone~^us-central1-" in line and "drop nodeLocations" in line
