"""Stack files the CLI tests share, as the text a user writes in ``Pulumi.<stack>.yaml``.

``GKE_L4``: a GKE pool of two L4s with GKE's driver install and device plugin off and NVIDIA's device plugin
on, tainted ``nvidia.com/gpu=present:NoSchedule``. ``EKS_BIG``: one untainted EKS managed node group of
``g6.xlarge``. Each ends inside its ``config:`` map, so a test appends further keys (two-space indented) or
pool entries (``EKS_BIG`` ends in its pools list). ``PROBES``: program lines (after ``import pulumi_aws as aws``
and ``import pulumi_kubernetes as k8s``) registering two DaemonSets, ``probe-a`` and ``probe-b``, whose tolerations are
an Output of a resource created in the same run, so unknown at preview: no policy can judge them then.
"""

from __future__ import annotations

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
