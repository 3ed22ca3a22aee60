"""Synthetic cluster dumps for the audit rows of the bench and the audit's streaming test.

``write_dump(path, nodes, pods_per_node=30, daemonsets=20)`` writes what
``kubectl get nodes,daemonsets,pods,events -A -o json`` writes for such a cluster (one ``List``,
``kind`` after ``items`` as kubectl prints it), one item at a time, so that the generator never
holds the cluster either. Deterministic: the same arguments give the same bytes.

The cluster: an EKS cluster whose nodes are 40% GPU nodes in three ``GpuNodePool`` pools
(``inference``: g6e.2xlarge, ``training``: p5.48xlarge Bottlerocket NVIDIA, ``batch``: g5.xlarge
with a team taint) and 60% CPU nodes of node group ``system``; every 25th GPU node has no
allocatable GPU (its device plugin pod is not Ready, or missing), every 40th carries a
hand-added ``maintenance=true:NoSchedule`` taint, every 97th a taint with a misspelt effect.
DaemonSets are the upstream manifests of ``tests/data/corpus/daemonsets`` (repeated with a
suffix past 19); each node runs a pod of every DaemonSet that tolerates everything or none is
needed, then application pods (Deployment-owned, with the managed fields, volumes and statuses
the API serves) up to ``pods_per_node``. One node in 50 has a Pending pod that selects a GPU
pool without tolerating its taint, with two ``FailedScheduling`` events (the later one counts).

Imports nothing of ``gpu_node_pool``.
"""

from __future__ import annotations

import copy
import json
import zlib
from pathlib import Path
from typing import Any

import yaml

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "corpus" / "daemonsets"
_GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
_POOLS = (
    ("inference", "g6e.2xlarge", 1, "Amazon Linux 2023.7.20250512", []),
    ("training", "p5.48xlarge", 8, "Bottlerocket OS 1.37.0 (aws-k8s-1.33-nvidia)",
     [{"key": "workload", "value": "training", "effect": "NoSchedule"}]),
    ("batch", "g5.xlarge", 1, "Amazon Linux 2023.7.20250512", [{"key": "team", "value": "t1", "effect": "NoSchedule"}]),
)
_PENDING_MESSAGE = ("0/{n} nodes are available: {g} node(s) had untolerated taint {{nvidia.com/gpu: present}}, "
                    "{c} node(s) didn't match Pod's node affinity/selector. preemption: 0/{n} nodes are available: "
                    "{n} Preemption is not helpful for scheduling.")


def corpus_daemonsets(count: int) -> list[dict[str, Any]]:
    """``count`` DaemonSets from the corpus (sorted by file name; past the corpus, copies named ``-2``...)."""
    files = sorted(CORPUS.glob("*.yaml"))
    base = [yaml.safe_load(f.read_text()) for f in files]
    out = []
    for i in range(count):
        ds = copy.deepcopy(base[i % len(base)])
        if i >= len(base):
            ds["metadata"]["name"] += f"-{i // len(base) + 1}"
        ds.setdefault("metadata", {}).setdefault("namespace", "kube-system")
        ds["status"] = {"currentNumberScheduled": 0, "numberMisscheduled": 0, "numberReady": 0}
        out.append(ds)
    return out


def _managed_fields(manager: str) -> list[dict[str, Any]]:
    return [{"apiVersion": "v1", "fieldsType": "FieldsV1", "manager": manager, "operation": "Update",
             "time": "2025-06-01T09:00:00Z",
             "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}}},
                          "f:spec": {"f:containers": {'k:{"name":"app"}': {".": {}, "f:image": {}, "f:name": {},
                                                                           "f:resources": {}, "f:env": {}}}},
                          "f:status": {"f:conditions": {}, "f:containerStatuses": {}, "f:phase": {}}}}]


def _node(i: int, pools_gpu: int) -> dict[str, Any]:
    name = f"ip-10-{i // 250}-{i % 250}-{(i * 7) % 250}.us-west-2.compute.internal"
    gpu = i % 5 < 2
    zone = "us-west-2" + "abc"[i % 3]
    labels = {
        "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux", "eks.amazonaws.com/capacityType": "ON_DEMAND",
        "eks.amazonaws.com/nodegroup-image": "ami-0c3d5e9b1a2f47d86", "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "topology.kubernetes.io/region": "us-west-2",
        "topology.kubernetes.io/zone": zone, "topology.k8s.aws/zone-id": f"usw2-az{i % 3 + 1}",
        "k8s.io/cloud-provider-aws": "8b1c2f3e4d5a6b7c8d9e0f1a2b3c4d5e",
    }
    taints: list[dict[str, Any]] = []
    capacity = {"cpu": "8", "ephemeral-storage": "104845292Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
                "memory": "64982732Ki", "pods": "58"}
    allocatable = {**capacity, "cpu": "7910m", "memory": "63715340Ki"}
    os_image = "Amazon Linux 2023.7.20250512"
    if gpu:
        pool, instance, gpus, os_image, extra = _POOLS[(i // 5) % len(_POOLS)]
        labels.update({"gpu-node-pools/pool": pool, "eks.amazonaws.com/nodegroup": f"{pool}-node-group-20250601",
                       "nvidia.com/gpu.present": "true", "workload": pool})
        taints = [dict(_GPU_TAINT), *copy.deepcopy(extra)]
        capacity["nvidia.com/gpu"] = str(gpus)
        allocatable["nvidia.com/gpu"] = "0" if i % 125 < 5 else str(gpus)  # every 25th GPU node starved
        if i % 200 < 5:
            taints.append({"key": "maintenance", "value": "true", "effect": "NoSchedule"})
        if i % 485 == 0:
            taints.append({"key": "example.com/drain", "value": "yes", "effect": "NO_SCHEDULE"})
    else:
        instance = "m7i.xlarge"
        labels["eks.amazonaws.com/nodegroup"] = "system-20250601"
    labels["node.kubernetes.io/instance-type"] = labels["beta.kubernetes.io/instance-type"] = instance
    spec: dict[str, Any] = {"providerID": f"aws:///{zone}/i-0{zlib.crc32(name.encode()) * 7919:016x}"}
    if taints:
        spec["taints"] = taints
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": labels, "uid": f"uid-node-{i}", "resourceVersion": str(1000 + i),
                     "creationTimestamp": "2025-06-01T08:00:00Z",
                     "annotations": {"alpha.kubernetes.io/provided-node-ip": f"10.0.{i // 250}.{i % 250}",
                                     "node.alpha.kubernetes.io/ttl": "0",
                                     "volumes.kubernetes.io/controller-managed-attach-detach": "true"},
                     "managedFields": _managed_fields("kubelet")},
        "spec": spec,
        "status": {
            "capacity": capacity, "allocatable": allocatable,
            "addresses": [{"type": "InternalIP", "address": f"10.0.{i // 250}.{i % 250}"}, {"type": "Hostname", "address": name}],
            "conditions": [{"type": t, "status": "False", "reason": f"Kubelet{t}", "lastHeartbeatTime": "2025-06-01T10:00:00Z",
                            "message": "kubelet has sufficient resources"} for t in ("MemoryPressure", "DiskPressure", "PIDPressure")]
            + [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status"}],
            "nodeInfo": {"architecture": "amd64", "containerRuntimeVersion": "containerd://1.7.27", "kernelVersion": "6.1.134",
                         "kubeletVersion": "v1.33.0-eks-802817d", "operatingSystem": "linux", "osImage": os_image},
            "images": [{"names": [f"602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/img-{k}:v1.{k}"], "sizeBytes": 10_000_000 + k}
                       for k in range(12)],
        },
    }


def _pod_status(ready: bool, containers: list[str], waiting: str = "CrashLoopBackOff") -> dict[str, Any]:
    return {
        "phase": "Running" if ready else "Pending", "hostIP": "10.0.0.1", "podIP": "10.0.0.2", "qosClass": "Burstable",
        "startTime": "2025-06-01T09:00:00Z",
        "conditions": [{"type": t, "status": "True" if ready or t == "PodScheduled" else "False",
                        "lastTransitionTime": "2025-06-01T09:00:00Z"}
                       for t in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")],
        "containerStatuses": [{"name": c, "ready": ready, "restartCount": 0 if ready else 7, "started": ready,
                               "image": f"example.com/{c}:1.0", "imageID": f"example.com/{c}@sha256:{'ab' * 32}",
                               "containerID": f"containerd://{'cd' * 32}",
                               "state": {"running": {"startedAt": "2025-06-01T09:00:01Z"}} if ready
                               else {"waiting": {"reason": waiting, "message": "back-off 5m0s restarting failed container"}}}
                              for c in containers],
    }


def _ds_pod(ds: dict[str, Any], node: str, ready: bool) -> dict[str, Any]:
    meta, spec = ds["metadata"], ds["spec"]["template"]["spec"]
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"{meta['name']}-{zlib.crc32(node.encode()) % 10**5:05d}", "namespace": meta["namespace"],
                     "uid": f"uid-{meta['name']}-{node}", "labels": dict((ds["spec"].get("selector") or {}).get("matchLabels") or {}),
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": meta["name"], "controller": True,
                                          "blockOwnerDeletion": True, "uid": f"uid-ds-{meta['name']}"}],
                     "managedFields": _managed_fields("kube-controller-manager")},
        "spec": {**copy.deepcopy(spec), "nodeName": node},
        "status": _pod_status(ready, [c.get("name", "c") for c in spec.get("containers") or []]),
    }


def _app_pod(node: str, k: int) -> dict[str, Any]:
    app = f"app-{k % 12}"
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"{app}-7d9f8b6c5d-{zlib.crc32(f'{node}/{k}'.encode()) % 10**5:05d}", "namespace": f"team-{k % 4}",
                     "labels": {"app": app, "pod-template-hash": "7d9f8b6c5d"},
                     "annotations": {"kubectl.kubernetes.io/restartedAt": "2025-06-01T08:30:00Z"},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"{app}-7d9f8b6c5d",
                                          "controller": True, "blockOwnerDeletion": True, "uid": f"uid-rs-{app}"}],
                     "managedFields": _managed_fields("kube-controller-manager")},
        "spec": {
            "nodeName": node, "serviceAccountName": "default", "restartPolicy": "Always", "dnsPolicy": "ClusterFirst",
            "containers": [{"name": "app", "image": f"example.com/{app}:1.4.2",
                            "env": [{"name": f"VAR_{e}", "value": f"value-{e}"} for e in range(8)],
                            "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                            "resources": {"requests": {"cpu": "100m", "memory": "256Mi"}, "limits": {"memory": "512Mi"}},
                            "volumeMounts": [{"name": "kube-api-access", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                                              "readOnly": True}],
                            "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10}}],
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
                             "tolerationSeconds": 300}],
            "volumes": [{"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}}]}}],
        },
        "status": _pod_status(True, ["app"]),
    }


def _pending(i: int, nodes: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    pool = _POOLS[i % len(_POOLS)][0]
    name = f"warmer-{i}"
    message = _PENDING_MESSAGE.format(n=nodes, g=nodes * 2 // 5, c=nodes - nodes * 2 // 5)
    pod = {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ml", "labels": {"app": "warmer"}},
        "spec": {"nodeSelector": {"gpu-node-pools/pool": pool},
                 "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}],
                 "containers": [{"name": "warm", "image": "public.ecr.aws/docker/library/busybox:1.37",
                                 "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]},
        "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                                         "message": "(condition) " + message}]},
    }
    events = [{"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"{name}.{k}", "namespace": "ml"},
               "involvedObject": {"kind": "Pod", "name": name, "namespace": "ml"}, "reason": "FailedScheduling",
               "type": "Warning", "message": f"(event {k}) " + message, "lastTimestamp": f"2025-06-01T10:0{k}:00Z",
               "source": {"component": "default-scheduler"}} for k in (2, 1)]
    return pod, events


def objects(nodes: int, pods_per_node: int = 30, daemonsets: int = 20):
    """The cluster's objects, one at a time, in kubectl's order (nodes, DaemonSets, pods, events)."""
    dss = corpus_daemonsets(daemonsets)
    everywhere = [ds for ds in dss if any(t.get("operator") == "Exists" and not t.get("key")
                                          for t in ds["spec"]["template"]["spec"].get("tolerations") or [])]
    plugins = [ds for ds in dss if "device-plugin" in ds["metadata"]["name"]]
    names = []
    for i in range(nodes):
        node = _node(i, nodes)
        names.append((node["metadata"]["name"], "gpu-node-pools/pool" in node["metadata"]["labels"],
                      node["status"]["allocatable"].get("nvidia.com/gpu")))
        yield node
    yield from dss
    events = []
    for i, (name, gpu, alloc) in enumerate(names):
        run = list(everywhere)
        if gpu:
            starved = alloc == "0"
            if not (starved and i % 2):  # half the starved nodes have no plugin pod at all
                run += [ds for ds in plugins if ds not in run]
        count = 0
        for ds in run[:pods_per_node]:
            yield _ds_pod(ds, name, ready=not (gpu and alloc == "0" and ds in plugins))
            count += 1
        for k in range(pods_per_node - count):
            yield _app_pod(name, k)
        if i % 50 == 7:
            pod, evs = _pending(i, nodes)
            events += evs
            yield pod
    yield from events


def write_dump(path: str | Path, nodes: int, pods_per_node: int = 30, daemonsets: int = 20) -> Path:
    """Write the dump to ``path`` (JSON, kubectl's ``List``); returns the path."""
    path = Path(path)
    with path.open("w", encoding="utf-8") as f:
        f.write('{\n    "apiVersion": "v1",\n    "items": [\n')
        for k, obj in enumerate(objects(nodes, pods_per_node, daemonsets)):
            f.write((",\n" if k else "") + json.dumps(obj, indent=4))
        f.write('\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n')
    return path
