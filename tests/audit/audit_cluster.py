"""Realistic cluster dumps for the audit tests, built from real object shapes.

Node shapes follow what EKS and GKE put on GPU nodes: the kubelet/cloud labels
(``node.kubernetes.io/instance-type``, ``topology.kubernetes.io/*``), the EKS managed node group
labels (``eks.amazonaws.com/nodegroup``, ``capacityType``, ``nodegroup-image``), GKE's
(``cloud.google.com/gke-nodepool``, ``gke-accelerator``, ``gke-gpu-driver-version``), our pool's
labels, and capacity/allocatable of the real machines: g6e.2xlarge (1x NVIDIA L40S, 8 vCPU,
64 GiB), p5.48xlarge (8x H100, 192 vCPU, 2 TiB), g2-standard-8 (1x L4, 8 vCPU, 32 GiB),
m7i.xlarge (4 vCPU, 16 GiB). DaemonSets come from tests/data/corpus (real upstream manifests).
Names, account ids and addresses are made up.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import zlib
from typing import Any

import yaml
from conftest import DATA, ROOT, shipped_project  # noqa: E402

CORPUS = DATA / "corpus" / "daemonsets"


def corpus_ds(name: str, desired: int | None = None) -> dict[str, Any]:
    obj = yaml.safe_load((CORPUS / f"{name}.yaml").read_text())
    if desired is not None:
        obj["status"] = {"desiredNumberScheduled": desired, "currentNumberScheduled": desired,
                         "numberReady": desired, "numberMisscheduled": 0}
    return obj


def eks_node(name: str, *, pool: str | None, nodegroup: str, instance: str, gpus: int | None, zone: str = "us-west-2a",
             taints: list[dict[str, str]] | None = None, extra_labels: dict[str, str] | None = None,
             os_image: str = "Amazon Linux 2023.7.20250512", cpu: str = "8", memory: str = "64982732Ki") -> dict[str, Any]:
    labels = {
        "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/instance-type": instance, "beta.kubernetes.io/os": "linux",
        "eks.amazonaws.com/capacityType": "ON_DEMAND", "eks.amazonaws.com/nodegroup": nodegroup,
        "eks.amazonaws.com/nodegroup-image": "ami-0c3d5e9b1a2f47d86",
        "failure-domain.beta.kubernetes.io/region": "us-west-2", "failure-domain.beta.kubernetes.io/zone": zone,
        "k8s.io/cloud-provider-aws": "8b1c2f3e4d5a6b7c8d9e0f1a2b3c4d5e",
        "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": instance, "topology.k8s.aws/zone-id": "usw2-az1",
        "topology.kubernetes.io/region": "us-west-2", "topology.kubernetes.io/zone": zone,
    }
    if pool:
        labels.update({"gpu-node-pools/pool": pool, "nvidia.com/gpu.present": "true"})
    labels.update(extra_labels or {})
    capacity = {"cpu": cpu, "ephemeral-storage": "104845292Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
                "memory": memory, "pods": "58"}
    allocatable = {"cpu": f"{int(cpu) * 1000 - 90}m", "ephemeral-storage": "95551679124", "hugepages-1Gi": "0",
                   "hugepages-2Mi": "0", "memory": f"{int(memory[:-2]) - 1267392}Ki", "pods": "58"}
    if gpus is not None:
        capacity["nvidia.com/gpu"] = str(gpus)
        allocatable["nvidia.com/gpu"] = str(gpus)
    spec: dict[str, Any] = {"providerID": f"aws:///{zone}/i-0{zlib.crc32(name.encode()) * 7919:016x}"}
    if taints:
        spec["taints"] = taints
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": labels, "annotations": {"alpha.kubernetes.io/provided-node-ip": "10.0.1.23"}},
        "spec": spec,
        "status": {
            "capacity": capacity, "allocatable": allocatable,
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status"}],
            "nodeInfo": {"architecture": "amd64", "containerRuntimeVersion": "containerd://1.7.27",
                         "kubeletVersion": "v1.33.0-eks-802817d", "operatingSystem": "linux", "osImage": os_image},
        },
    }


def gke_l4_node(name: str, pool: str, *, driver: bool = True, gpus: int | None = 1) -> dict[str, Any]:
    labels = {
        "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/instance-type": "g2-standard-8", "beta.kubernetes.io/os": "linux",
        "cloud.google.com/gke-accelerator": "nvidia-l4", "cloud.google.com/gke-boot-disk": "pd-balanced",
        "cloud.google.com/gke-container-runtime": "containerd", "cloud.google.com/gke-nodepool": pool,
        "cloud.google.com/gke-os-distribution": "cos", "cloud.google.com/machine-family": "g2",
        "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": "g2-standard-8", "topology.kubernetes.io/region": "us-central1",
        "topology.kubernetes.io/zone": "us-central1-a",
    }
    if driver:
        labels["cloud.google.com/gke-gpu-driver-version"] = "default"
    capacity = {"cpu": "8", "memory": "32880876Ki", "pods": "110"}
    allocatable = {"cpu": "7910m", "memory": "29094124Ki", "pods": "110"}
    if gpus is not None:
        capacity["nvidia.com/gpu"] = allocatable["nvidia.com/gpu"] = str(gpus)
    return {
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
        "spec": {"providerID": f"gce://ml-project-123/us-central1-a/{name}",
                 "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
        "status": {"capacity": capacity, "allocatable": allocatable,
                   "conditions": [{"type": "Ready", "status": "True"}],
                   "nodeInfo": {"osImage": "Container-Optimized OS from Google", "kubeletVersion": "v1.33.2-gke.1043000"}},
    }


def ds_pod(ds: dict[str, Any], node: str, ready: bool = True, waiting: str = "") -> dict[str, Any]:
    meta = ds["metadata"]
    container = ds["spec"]["template"]["spec"]["containers"][0]["name"]
    status: dict[str, Any] = {
        "phase": "Running" if ready else "Pending",
        "conditions": [{"type": "Ready", "status": "True" if ready else "False"},
                       {"type": "PodScheduled", "status": "True"}],
        "containerStatuses": [{"name": container, "ready": ready,
                               "state": {"running": {}} if ready else {"waiting": {"reason": waiting or "ContainerCreating"}}}],
    }
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"{meta['name']}-{zlib.crc32(node.encode()) % 10**5:05d}", "namespace": meta["namespace"],
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": meta["name"], "controller": True}]},
        "spec": {**copy.deepcopy(ds["spec"]["template"]["spec"]), "nodeName": node},
        "status": status,
    }


def finished_pod(node: str, name: str = "backup-29170560-x7k2p", namespace: str = "ops") -> dict[str, Any]:
    """A Job's pod that ran on ``node`` and ``Succeeded``: a dump of a cluster holds pods (a dump without any leaves the
    pod verdicts not judged and the report partial), and this one weighs in no verdict."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace,
                         "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": name.rsplit("-", 1)[0]}]},
            "spec": {"nodeName": node, "restartPolicy": "Never",
                     "containers": [{"name": "backup", "image": "amazon/aws-cli:2.27.0"}]},
            "status": {"phase": "Succeeded"}}


PENDING_MESSAGE = ("0/5 nodes are available: 1 node(s) had untolerated taint {maintenance: true}, "
                   "1 node(s) had untolerated taint {nvidia.com/gpu: present}, 3 node(s) didn't match Pod's node "
                   "affinity/selector. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.")


def acceptance_objects() -> list[dict[str, Any]]:
    """The issue's acceptance cluster (EKS):

    * pool ``inference`` (g6e.2xlarge, ``nvidia.com/gpu=present:NoSchedule``): ``gpu-inf-1``
      healthy; ``gpu-inf-2`` with a hand-added ``maintenance=true:NoSchedule`` and 0 GPUs;
    * pool ``training`` (p5.48xlarge, Bottlerocket NVIDIA, which runs its own device plugin):
      ``nvidia.com/gpu=present:NoSchedule`` and ``workload=training:NoSchedule``;
    * a CPU node ``cpu-1`` (m7i.xlarge) in node group ``system``;
    * DaemonSets: fluent-bit (no toleration), dcgm-exporter selecting GPU nodes, EBS CSI node
      with the chart's ``node.tolerateAllTaints: false`` tolerations, the static NVIDIA device
      plugin (tolerates only ``nvidia.com/gpu``), aws-node and kube-proxy (tolerate everything);
    * a Pending helper pod selecting pool inference, tolerating ``nvidia.com/gpu`` with
      ``Equal "true"`` and requesting no GPU.
    """
    gpu_taint = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    inf = {"pool": "inference", "nodegroup": "inference-node-group-20250601", "instance": "g6e.2xlarge",
           "extra_labels": {"workload": "inference", "example.com/team": "ml-platform"}}
    nodes = [
        eks_node("gpu-inf-1", gpus=1, taints=[gpu_taint], **inf),
        eks_node("gpu-inf-2", gpus=None, taints=[gpu_taint, {"key": "maintenance", "value": "true", "effect": "NoSchedule"}], **inf),
        eks_node("gpu-train-1", pool="training", nodegroup="training-node-group-20250601", instance="p5.48xlarge", gpus=8,
                 cpu="192", memory="2097152000Ki", os_image="Bottlerocket OS 1.37.0 (aws-k8s-1.33-nvidia)",
                 taints=[gpu_taint, {"key": "workload", "value": "training", "effect": "NoSchedule"}],
                 extra_labels={"workload": "training", "example.com/team": "research",
                               **{f"nvidia.com/gpu.deploy.{o}": "false" for o in ("driver", "container-toolkit", "device-plugin", "mig-manager")}}),
        eks_node("cpu-1", pool=None, nodegroup="system-20250601", instance="m7i.xlarge", gpus=None, cpu="4", memory="15896988Ki"),
    ]
    fluent = corpus_ds("fluent-bit", 1)
    dcgm = corpus_ds("dcgm-exporter", 0)
    dcgm["spec"]["template"]["spec"]["nodeSelector"] = {"nvidia.com/gpu.present": "true"}
    dcgm["spec"]["template"]["spec"]["tolerations"] = []
    ebs = corpus_ds("ebs-csi-node", 1)
    # aws-ebs-csi-driver chart with node.tolerateAllTaints: false renders CriticalAddonsOnly plus
    # values.yaml's node.tolerations default (NoExecute for 300 s).
    ebs["spec"]["template"]["spec"]["tolerations"] = [
        {"key": "CriticalAddonsOnly", "operator": "Exists"},
        {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    ]
    plugin = corpus_ds("nvidia-device-plugin-static", 2)
    aws_node = corpus_ds("aws-node", 4)
    kube_proxy = corpus_ds("kube-proxy-eks", 4)
    daemonsets = [fluent, dcgm, ebs, plugin, aws_node, kube_proxy]
    pods = [ds_pod(fluent, "cpu-1"), ds_pod(ebs, "cpu-1"), ds_pod(plugin, "gpu-inf-1"), ds_pod(plugin, "cpu-1")]
    pods += [ds_pod(d, n) for d in (aws_node, kube_proxy) for n in ("gpu-inf-1", "gpu-inf-2", "gpu-train-1", "cpu-1")]
    helper = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "model-cache-warmer", "namespace": "ml"},
        "spec": {
            "nodeSelector": {"gpu-node-pools/pool": "inference"},
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}],
            "containers": [{"name": "warm", "image": "public.ecr.aws/docker/library/busybox:1.37",
                            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}],
        },
        "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                                         "message": PENDING_MESSAGE}]},
    }
    event = {
        "apiVersion": "v1", "kind": "Event", "metadata": {"name": "model-cache-warmer.18a2b3c4d5e6f7a8", "namespace": "ml"},
        "involvedObject": {"kind": "Pod", "name": "model-cache-warmer", "namespace": "ml"},
        "reason": "FailedScheduling", "type": "Warning", "message": PENDING_MESSAGE,
        "lastTimestamp": "2025-06-01T10:00:00Z", "source": {"component": "default-scheduler"},
    }
    return nodes + daemonsets + pods + [helper, event]


def as_list(objects: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": objects}


def audit_dump(tmp_path, objects: list[dict[str, Any]], *args: str) -> tuple[int, dict[str, Any], str]:
    """``gpupool audit --cluster-dump <dump> <args>`` of ``objects`` (written as one List), as a user runs it: the exit
    code of the ``--json`` run, its report, and the text the same audit prints without ``--json``."""
    from gpu_node_pool.cli.commands import main  # the CLI only where a test runs it

    dump = tmp_path / "cluster.json"
    dump.write_text(json.dumps(as_list(objects)))
    argv = ["audit", "--cluster-dump", str(dump), *args]
    out, text = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([*argv, "--json"])
    with contextlib.redirect_stdout(text):
        main(argv)
    return code, json.loads(out.getvalue()), text.getvalue()


def audit_stack(tmp_path, objects: list[dict[str, Any]], stack: str, text: str | None = None,
                ) -> tuple[int, dict[str, Any], str]:
    """:func:`audit_dump` with ``--stack <stack>``: of the repository's project, or, given the stack file's ``text``,
    of a copy of it in ``tmp_path`` whose ``stacks/Pulumi.<stack>.yaml`` is ``text``."""
    project = ROOT if text is None else shipped_project(tmp_path, {stack: text})
    return audit_dump(tmp_path, objects, "--stack", stack, "--project-dir", str(project))


ACCEPTANCE_STACK = """\
config:
  aws:region: us-west-2
  gpu-node-pools:cluster:
    name: ml-prod
    kubernetesVersion: "1.33"
    nodeRoleArn: arn:aws:iam::444455556666:role/ml-prod-gpu-node
    subnetIds: [subnet-07a1c2e3f4a5b6c7d]
  gpu-node-pools:pools:
    - name: inference
      backend: eks-managed
      instanceTypes: [g6e.2xlarge]
      amiType: AL2023_x86_64_NVIDIA
      scaling: {minSize: 0, maxSize: 4}
      taints: ["nvidia.com/gpu=present:NoSchedule", "example.com/tier=gpu:NoSchedule"]
      labels: {workload: inference, example.com/team: ml-platform}
    - name: training
      backend: eks-managed
      instanceTypes: [p5.48xlarge]
      amiType: BOTTLEROCKET_x86_64_NVIDIA
      scaling: {minSize: 0, maxSize: 2}
      taints: ["nvidia.com/gpu=present:NoSchedule", "workload=training:NoSchedule"]
      labels: {workload: training, example.com/team: research}
  gpu-node-pools:devicePlugin:
    namespace: nvidia-device-plugin
"""
