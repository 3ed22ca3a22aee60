"""A GKE pool's ComputeClass taint of another effect than NoSchedule, through ``gpupool plan``: the fix each warning
offers, followed, gives a stack that plans with no ComputeClass warning (never a duplicate taint)."""

from __future__ import annotations

import re

import pytest
from conftest import plan_stack_text as plan

CC = "cloud.google.com/compute-class"
STACK = """config:
  gcp:project: acme-ml-dev
  gpu-node-pools:cluster: {name: ml-gke-dev, project: acme-ml-dev, location: us-central1}
  gpu-node-pools:pools:
    - name: l4
      backend: gke
      machineType: g2-standard-8
      accelerator: {type: nvidia-l4, count: 1, gpuDriverVersion: LATEST}
      autoscaling: {minSize: 0, maxSize: 4}
      taints: TAINTS
      labels: {cloud.google.com/compute-class: gpu}
"""


def _stack(taints: list[str]) -> str:
    return STACK.replace("TAINTS", "[" + ", ".join(f'"{t}"' for t in taints) + "]")


def _follow(taints: list[str], warnings: list[str]) -> list[str]:
    """``taints`` after doing what each warning about one of them says."""
    out = list(taints)
    for line in warnings:
        told = re.search(r"taints has '([^']+)'", line).group(1)
        if line.endswith("so remove it") or "; remove it:" in line:
            out.remove(told)
        else:
            out[out.index(told)] = re.search(r"write '([^']+)' instead", line).group(1)
    return out


@pytest.mark.parametrize("taints", [
    [f"{CC}=gpu:NoSchedule", f"{CC}=gpu:NoExecute"],
    [f"{CC}=gpu:NoExecute", f"{CC}=gpu:NoSchedule"],
    [f"{CC}=gpu:NoExecute", f"{CC}=gpu:PreferNoSchedule"],
    [f"{CC}=cpu:NoExecute"],
], ids=["NoSchedule-and-NoExecute", "NoExecute-first", "two-other-effects", "other-value"])
def test_following_the_compute_class_warnings_leaves_one_documented_taint(capsys, temp_project, taints):
    taints = ["nvidia.com/gpu=present:NoSchedule", *taints]
    code, out = plan(capsys, temp_project, _stack(taints))
    assert code == 0, out
    warnings = [line for line in out.splitlines() if "warning:" in line and "ComputeClass taint" in line]
    assert warnings, out
    fixed = _follow(taints, warnings)
    assert fixed == ["nvidia.com/gpu=present:NoSchedule", f"{CC}=gpu:NoSchedule"], (fixed, warnings)
    code, out = plan(capsys, temp_project, _stack(fixed))
    assert code == 0, out
    assert CC not in "".join(line for line in out.splitlines() if "warning:" in line), out
