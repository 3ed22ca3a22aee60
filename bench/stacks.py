"""Synthetic stacks the benchmarks measure: stack configs of N pools, a Pulumi project that runs
the real program plus corpus DaemonSets, and policy stacks of N resources.

Everything is generated here; nothing is read from the network or a cloud. Names of the
package come through ``adapter.py`` only.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import adapter

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus" / "daemonsets"
N_DAEMONSETS = 20
BACKENDS = ("eks-managed", "karpenter", "self-managed")
TEAMS = 4  # pools carry one of 4 team taints: 5 distinct taints however many pools
GPU_TAINT, TEAM_TAINTS = adapter.taint_strings(TEAMS)
NO_SCHEDULE = adapter.no_schedule()

CLUSTER = {
    "name": "ml-bench",
    "kubernetesVersion": "1.33",
    "apiServerEndpoint": "https://3F1A2B4C5D6E7F8091A2B3C4D5E6F708.gr7.us-east-1.eks.amazonaws.com",
    "certificateAuthority": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSURCVENDQWUyZ0F3SUJBZ0lJUGxhY2Vob2xkZXJNQTBH"
    "Q1NxR1NJYjNEUUVCQ3dVQU1CVXhFekFSQmdOVkJBTVRDbXQxWW1WeWJtVjBaWE13Ci0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K",
    "serviceCidr": "10.100.0.0/16",
    "nodeRoleArn": "arn:aws:iam::444455556666:role/ml-bench-gpu-node",
    "subnetIds": ["subnet-07a1c2e3f4a5b6c7d", "subnet-0b8c9d0e1f2a3b4c5"],
}


def pool_config(i: int) -> dict[str, Any]:
    """Pool ``i`` of a synthetic stack: backends in turn, half of them scaling from zero."""
    backend = BACKENDS[i % len(BACKENDS)]
    team = f"t{i % TEAMS}"
    common = {
        "name": f"p{i:03d}-{backend.split('-')[0]}",
        "backend": backend,
        "taints": [GPU_TAINT, TEAM_TAINTS[i % TEAMS]],
        "labels": {"workload": f"w{i}", "example.com/team": team},
    }
    if backend == "eks-managed":
        return {
            **common,
            "instanceTypes": ["g6.xlarge", "g6.2xlarge"],
            "amiType": "AL2023_x86_64_NVIDIA",
            "capacityType": "ON_DEMAND",
            "scaling": {"minSize": 0 if i % 2 == 0 else 1, "maxSize": 8},
            "updateConfig": {"maxUnavailable": 1},
            "tags": {"team": team, "env": "bench"},
        }
    if backend == "karpenter":
        return {
            **common,
            "instanceFamilies": ["g6e", "g6"],
            "gpuCounts": [1],
            "capacityTypes": ["spot", "on-demand"],
            "nodeClass": {"amiAlias": "al2023@latest", "role": "KarpenterNodeRole-ml-bench", "tags": {"team": team}},
            "limits": {"nvidia.com/gpu": 32},
            "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"},
        }
    return {
        **common,
        "format": "al2023",
        "provider": "aws",
        "instanceTypes": ["g6e.12xlarge"],
        "scaling": {"minSize": 0 if i % 2 == 0 else 1, "maxSize": 6},
        "securityGroupIds": ["sg-0a1b2c3d4e5f60718"],
        "tags": {"team": team, "env": "bench"},
    }


def stack_config(pools: int) -> dict[str, Any]:
    return {
        "gpu-node-pools:cluster": CLUSTER,
        "gpu-node-pools:pools": [pool_config(i) for i in range(pools)],
        "gpu-node-pools:devicePlugin": {"namespace": "nvidia-device-plugin"},
    }


def corpus_daemonsets(count: int) -> list[dict[str, Any]]:
    """``count`` DaemonSet manifests: the corpus, then renamed copies of it."""
    import yaml

    base = [yaml.safe_load(p.read_text()) for p in sorted(CORPUS.glob("*.yaml"))]
    out = []
    for i in range(count):
        ds = copy.deepcopy(base[i % len(base)])
        if i >= len(base):
            ds["metadata"]["name"] = f"{ds['metadata']['name']}-{i // len(base)}"
        out.append(ds)
    return out


PROGRAM = '''\
"""Benchmark program: the real gpu-node-pools program plus DaemonSets from the corpus."""
import json
from pathlib import Path

import pulumi_kubernetes as k8s

from gpu_node_pool.program import main

main()
for ds in json.loads((Path(__file__).parent / "daemonsets.json").read_text()):
    name = f"{ds['metadata']['namespace']}-{ds['metadata']['name']}"
    k8s.apps.v1.DaemonSet(name, metadata=ds["metadata"], spec=ds["spec"])
'''


def write_project(where: Path, pools: int) -> Path:
    """A Pulumi project in ``where`` with stack ``bench``: ``pools`` pools and 20 DaemonSets."""
    import yaml

    (where / "stacks").mkdir(parents=True, exist_ok=True)
    (where / "Pulumi.yaml").write_text("name: gpu-node-pools\nruntime: python\nstackConfigDir: stacks\n")
    (where / "stacks" / "Pulumi.bench.yaml").write_text(yaml.safe_dump({"config": stack_config(pools)}, sort_keys=False))
    (where / "daemonsets.json").write_text(json.dumps(corpus_daemonsets(N_DAEMONSETS)))
    (where / "__main__.py").write_text(PROGRAM)
    return where


FILLER_KINDS = ("Deployment", "ConfigMap", "Service", "Role", "Bucket")


def filler(i: int) -> dict[str, Any]:
    """Filler resource ``i`` of a policy stack: ordinary workloads and non-workload resources."""
    kind = FILLER_KINDS[i % len(FILLER_KINDS)]
    meta = {"name": f"filler-{i}", "namespace": "ml" if i % 2 else "apps"}
    if kind == "Deployment":
        pod: dict[str, Any] = {"containers": [{"name": "app", "image": "registry.example.com/app:1.0"}]}
        variant = (i // len(FILLER_KINDS)) % 4
        if variant == 0:  # a GPU workload done right: toleration, selector, limits
            pod["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": NO_SCHEDULE}]
            pod["nodeSelector"] = {"nvidia.com/gpu.present": "true"}
            pod["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": 1}}
        elif variant == 1:  # tolerates a GPU taint but neither selects GPU nodes nor requests GPUs
            pod["tolerations"] = [
                {"key": "team", "operator": "Equal", "value": f"t{i % TEAMS}", "effect": NO_SCHEDULE}
            ]
        elif variant == 2:  # an ordinary workload pinned to CPU nodes
            pod["nodeSelector"] = {"node.kubernetes.io/instance-type": "m7i.xlarge"}
        return {"type": "kubernetes:apps/v1:Deployment", "inputs": {
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta,
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": meta["name"]}},
                     "template": {"metadata": {"labels": {"app": meta["name"]}}, "spec": pod}}}}
    if kind == "ConfigMap":
        return {"type": "kubernetes:core/v1:ConfigMap", "inputs": {"metadata": meta, "data": {"key": f"value-{i}"}}}
    if kind == "Service":
        return {"type": "kubernetes:core/v1:Service", "inputs": {
            "metadata": meta, "spec": {"selector": {"app": meta["name"]}, "ports": [{"port": 80, "targetPort": 8080}]}}}
    if kind == "Role":
        return {"type": "aws:iam/role:Role", "inputs": {"name": f"filler-{i}", "assumeRolePolicy": "{}"}}
    return {"type": "aws:s3/bucketV2:BucketV2", "inputs": {"bucket": f"filler-{i}", "tags": {"team": "ml"}}}


def policy_stack(resources: int, daemonsets: int, pools: int) -> list[Any]:
    """A stack of ``resources`` resources: ``pools`` pools recorded from the real program (with the
    device plugin), ``daemonsets`` DaemonSets from the corpus, filler for the rest."""
    # Sorted: the SDK registers asynchronously, so the order varies from run to run (and with it the
    # order of pools in the findings); sorted, two runs and two versions of the policies compare.
    out: list[Any] = sorted(adapter.record_pools(stack_config(pools), "bench"), key=lambda r: r.urn)
    for ds in corpus_daemonsets(daemonsets):
        name = f"{ds['metadata']['namespace']}-{ds['metadata']['name']}"
        out.append(adapter.stack_resource("kubernetes:apps/v1:DaemonSet", name, ds))
    i = 0
    while len(out) < resources:
        f = filler(i)
        out.append(adapter.stack_resource(f["type"], f"filler-{i}", f["inputs"]))
        i += 1
    return out
