"""A label key that breaks the name rule and lies in a domain Kubernetes or a platform reserves (kubernetes.io,
k8s.io, karpenter.sh, karpenter.k8s.aws, eks.amazonaws.com, cloud.google.com) is told once, with a key in your
own domain to write; planning the stack with that key is accepted."""

from __future__ import annotations

import re

import pytest
from conftest import plan_stack_text as plan
from stack_texts import EKS_US_EAST

from gpu_node_pool.k8s.names import qualified_name_problem

KARPENTER_18 = EKS_US_EAST + """    karpenterVersion: "1.8"
  gpu-node-pools:pools:
    - name: a
      backend: karpenter
      instanceFamilies: [g6]
      gpuCounts: [1]
      limits: {nvidia.com/gpu: 8}
      labels:
        "KEY": "x"
      nodeClass:
        amiAlias: al2023@latest
        role: KarpenterNodeRole-ml
"""
EKS_MANAGED = EKS_US_EAST + """  gpu-node-pools:pools:
    - name: a
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      scaling: {minSize: 0, maxSize: 3}
      labels:
        "KEY": "x"
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
      labels:
        "KEY": "x"
"""
CASES = [
    (KARPENTER_18, "karpenter.sh/My Label", "example.com/My-Label"),
    (KARPENTER_18, "Kubernetes.IO/x y", "example.com/x-y"),
    (KARPENTER_18, "node-role.kubernetes.io/GPU Node", "example.com/GPU-Node"),
    (KARPENTER_18, "karpenter.k8s.aws/my family", "example.com/my-family"),
    (EKS_MANAGED, "Kubernetes.IO/x y", "example.com/x-y"),
    (EKS_MANAGED, "eks.amazonaws.com/My Label", "example.com/My-Label"),
    (EKS_MANAGED, "node.k8s.io/a b", "example.com/a-b"),
    (GKE, "cloud.google.com/my label", "example.com/my-label"),
    (GKE, "topology.kubernetes.io/my zone", "example.com/my-zone"),
]


@pytest.mark.parametrize("stack, key, offered", CASES, ids=[f"{c[0].split('backend: ')[1].split()[0]}-{c[1]}" for c in CASES])
def test_the_key_offered_for_a_reserved_domain_is_accepted(capsys, temp_project, stack, key, offered):
    code, out = plan(capsys, temp_project, stack.replace("KEY", key))
    assert code == 2, out
    told = [line for line in out.splitlines() if key in line]
    assert len(told) == 1, out  # one message about the key, not a syntax one and a domain one
    assert f"use your own domain, e.g. '{offered}'" in told[0], told[0]
    assert "reserves" in told[0] or "manages" in told[0], told[0]
    assert not re.search(r"write e\.g\. '[^']*(kubernetes\.io|k8s\.io|karpenter|amazonaws|google)", told[0]), told[0]
    code, out = plan(capsys, temp_project, stack.replace("KEY", offered))
    assert code == 0, out


def test_the_compute_class_label_misspelt_is_fixed_in_place():
    problem = qualified_name_problem("cloud.google.com/compute class", node_label=True)
    assert problem is not None and problem.endswith("write e.g. 'cloud.google.com/compute-class'"), problem


@pytest.mark.parametrize("key", ["kubernetes.io/o s", "topology.kubernetes.io/my zone", "karpenter.sh/capacity type"])
def test_a_key_that_selects_or_tolerates_keeps_its_domain(key):
    # a node selector or toleration matches the labels and taints nodes carry: the fix keeps the domain
    problem = qualified_name_problem(key)
    assert problem is not None and "write e.g. '" + key.partition("/")[0] + "/" in problem, problem
