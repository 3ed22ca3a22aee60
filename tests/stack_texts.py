"""Stack files the CLI tests share, as the text a user writes in ``Pulumi.<stack>.yaml``.

``GKE_L4``: a GKE pool of two L4s with GKE's driver install and device plugin off and NVIDIA's device plugin
on, tainted ``nvidia.com/gpu=present:NoSchedule``. ``EKS_BIG``: one untainted EKS managed node group of
``g6.xlarge``. Each ends inside its ``config:`` map, so a test appends further keys (two-space indented) or
pool entries (``EKS_BIG`` ends in its pools list). ``PROBES``: program lines (after ``import pulumi_aws as aws``
and ``import pulumi_kubernetes as k8s``) registering two DaemonSets, ``probe-a`` and ``probe-b``, whose tolerations are
an Output of a resource created in the same run, so unknown at preview: no policy can judge them then.
"""

from __future__ import annotations

from pathlib import Path

GKE_CLUSTER = """config:
  gcp:project: acme-ml
  gcp:region: us-central1
  gpu-node-pools:cluster: {name: ml-gke, project: acme-ml, location: us-central1}
"""
GKE_TAINT_LINE = "      taints: [nvidia.com/gpu=present:NoSchedule]\n"
GKE_L4 = GKE_CLUSTER + """  gpu-node-pools:pools:
    - name: l4
      backend: gke
      machineType: g2-standard-24
      accelerator: {type: nvidia-l4, count: 2, gpuDriverVersion: INSTALLATION_DISABLED}
      autoscaling: {minSize: 0, maxSize: 4}
""" + GKE_TAINT_LINE + """      labels: {gke-no-default-nvidia-gpu-device-plugin: "true"}
      nvidiaDevicePlugin: true
"""
#: An EKS 1.33 cluster in us-east-1 (``ml-t``), ending inside ``gpu-node-pools:cluster:``: a test appends cluster keys
#: (four-space indented) or ``  gpu-node-pools:pools:`` and its pools.
EKS_US_EAST = """config:
  aws:region: us-east-1
  gpu-node-pools:cluster:
    name: ml-t
    kubernetesVersion: "1.33"
    nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node
    subnetIds: [subnet-0a1b2c3d4e5f60718, subnet-0f1e2d3c4b5a69788]
"""
#: The shipped dev stack's cluster (EKS 1.33), ending at ``gpu-node-pools:pools:``: a test appends its pool entries.
EKS_DEV = """config:
  aws:region: us-west-2
  gpu-node-pools:cluster:
    name: ml-dev
    kubernetesVersion: "1.33"
    nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node
    subnetIds: [subnet-0a1b2c3d4e5f60718]
  gpu-node-pools:pools:
"""
EKS_BIG = """config:
  aws:region: us-west-2
  gpu-node-pools:cluster: {name: ml, nodeRoleArn: "arn:aws:iam::111122223333:role/n", subnetIds: [subnet-0a1b2c3d4e5f60718]}
  gpu-node-pools:pools:
    - name: big
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      scaling: {minSize: 0, maxSize: 2}
"""
PROBES = """
probe_tolerations = aws.iam.Role("probe-role", assume_role_policy="{}").arn.apply(
    lambda _: [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}])
k8s.apps.v1.DaemonSet("probe-a", metadata={"name": "probe-a", "namespace": "monitoring"}, spec={
    "selector": {"matchLabels": {"app": "a"}}, "template": {"metadata": {"labels": {"app": "a"}}, "spec": {
        "tolerations": probe_tolerations, "containers": [{"name": "p", "image": "busybox"}]}}})
k8s.apps.v1.DaemonSet("probe-b", metadata={"name": "probe-b", "namespace": "monitoring"}, spec={
    "selector": {"matchLabels": {"app": "b"}}, "template": {"metadata": {"labels": {"app": "b"}}, "spec": {
        "tolerations": probe_tolerations, "containers": [{"name": "p", "image": "busybox"}]}}})
"""


_STACKS = Path(__file__).resolve().parent.parent / "stacks"
#: The shipped dev stack file's text (``stacks/Pulumi.dev.yaml``: one eks-managed pool, ``inference``).
DEV = (_STACKS / "Pulumi.dev.yaml").read_text()
_DEV_AT = "      capacityType: ON_DEMAND\n"  # the shipped dev stack's one eks-managed pool, pools[0]
_KARPENTER_AT = "        amiAlias: al2023@latest\n"  # the shipped prod stack's karpenter pool pools[2], in its nodeClass


def dev_edited(old: str, new: str, text: str = DEV) -> str:
    """``text`` (the shipped dev stack unless given) with its one ``old`` written ``new``; fails the test unless
    ``old`` stands in it exactly once."""
    assert text.count(old) == 1, old
    return text.replace(old, new)


def eks_managed_kubelet(config: str) -> str:
    """The shipped dev stack with ``kubelet: {config: <config>}`` (a YAML flow map) on its eks-managed pool."""
    return dev_edited(_DEV_AT, f"{_DEV_AT}      kubelet: {{config: {config}}}\n")


def karpenter_kubelet(kubelet: str) -> str:
    """The shipped prod stack with ``nodeClass.kubelet: <kubelet>`` (a YAML flow map) on its karpenter pool."""
    prod = (_STACKS / "Pulumi.prod.yaml").read_text()
    assert prod.count(_KARPENTER_AT) == 1
    return prod.replace(_KARPENTER_AT, f"{_KARPENTER_AT}        kubelet: {kubelet}\n")
