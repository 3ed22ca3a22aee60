"""The 17 real DaemonSets of the corpus against GPU pools carrying each reference taint.

The corpus (tests/data/corpus/daemonsets/, an unchanged copy of shared/corpus/daemonsets/)
comes with the verdicts in expected.json: per file and taint, ``tolerates``,
``keeps_off_gpu_present_true`` and ``flag``. ``daemonsets-tolerate-gpu-taints`` must report
exactly the flagged ones, whatever backend declares the pool.
"""

from __future__ import annotations

import copy
import json

import pytest
import yaml
from conftest import DATA  # noqa: E402

from gpu_node_pool.gpu_agents.device_plugin.chart import chart_daemonset
from gpu_node_pool.k8s.taints import Taint
from gpu_node_pool.policies import StackResource, evaluate
from gpu_node_pool.policies.rules.daemonsets_tolerate_gpu_taints import POLICY as daemonsets_tolerate_gpu_taints
from gpu_node_pool.policies.workloads import keeps_off, read_tolerations, stay_on

CORPUS = DATA / "corpus" / "daemonsets"
EXPECTED = json.loads((CORPUS / "expected.json").read_text())["daemonsets"]
TAINTS = ["nvidia.com/gpu=present:NoSchedule", "dedicated=gpu:NoSchedule", "nvidia.com/gpu=present:NoExecute"]
GPU_LABELS = {"nvidia.com/gpu.present": "true"}


def load(name: str) -> dict:
    return yaml.safe_load((CORPUS / name).read_text())


def pool(backend: str, taint: str) -> StackResource:
    t = Taint.parse(taint)
    if backend == "eks-managed":
        return StackResource(
            "aws:eks/nodeGroup:NodeGroup",
            "gpu-node-group",
            {"amiType": "AL2023_x86_64_NVIDIA", "instanceTypes": ["g6.xlarge"], "taints": [t.to_provider()],
             "labels": GPU_LABELS, "scalingConfig": {"minSize": 1, "maxSize": 2}},
        )
    if backend == "gke":
        return StackResource(
            "gcp:container/nodePool:NodePool",
            "gpu-node-pool",
            {"nodeConfig": {"machineType": "g2-standard-8", "guestAccelerators": [{"type": "nvidia-l4", "count": 1}],
                            "taints": [t.to_provider()], "labels": GPU_LABELS}},
        )
    return StackResource(
        "kubernetes:karpenter.sh/v1:NodePool",
        "gpu-nodepool",
        {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "gpu"},
         "spec": {"template": {"metadata": {"labels": GPU_LABELS}, "spec": {
             "requirements": [{"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]}],
             "taints": [t.to_k8s()]}}}},
    )


def flagged(ds: dict, taint: str, backend: str = "eks-managed") -> list[dict]:
    resources = [pool(backend, taint), StackResource("kubernetes:apps/v1:DaemonSet", "ds", ds)]
    return [f for f in evaluate(resources, policies=[daemonsets_tolerate_gpu_taints]) if f["enforcement"] == "mandatory"]


def test_the_corpus_copy_is_complete():
    assert sorted(p.name for p in CORPUS.glob("*.yaml")) == sorted(EXPECTED)


@pytest.mark.parametrize("backend", ["eks-managed", "gke", "karpenter"])
@pytest.mark.parametrize("taint", TAINTS)
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_daemonset_is_flagged_exactly_as_expected(name, taint, backend):
    found = flagged(load(name), taint, backend)
    assert bool(found) is EXPECTED[name]["flag"][taint], found
    if found:
        assert f"{EXPECTED[name]['namespace']}/" in found[0]["message"] and taint in found[0]["message"]


@pytest.mark.parametrize("taint", TAINTS)
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_tolerates_and_keeps_off_columns(name, taint):
    pod_spec = load(name)["spec"]["template"]["spec"]
    tolerations, problems = read_tolerations(pod_spec)
    assert problems == []
    assert stay_on(tolerations, Taint.parse(taint)).ok is EXPECTED[name]["tolerates"][taint]
    assert keeps_off(pod_spec, GPU_LABELS) is EXPECTED[name]["keeps_off_gpu_present_true"]


def test_a_flagged_daemonset_passes_once_it_keeps_off_gpu_nodes():
    ds = copy.deepcopy(load("fluent-bit.yaml"))
    ds["spec"]["template"]["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "nvidia.com/gpu.present", "operator": "NotIn", "values": ["true"]}]}]
    }}}
    assert all(not flagged(ds, t) for t in TAINTS)


def test_a_nodeselector_with_another_gpu_label_value_keeps_off():
    ds = copy.deepcopy(load("datadog-agent.yaml"))
    ds["spec"]["template"]["spec"]["nodeSelector"] = {"kubernetes.io/os": "linux", "nvidia.com/gpu.present": "false"}
    assert all(not flagged(ds, t) for t in TAINTS)


def test_requiring_gpu_nodes_is_not_keeping_off():
    # rows 10 and 11 point the other way: they *require* GPU nodes
    for name in ("nvidia-device-plugin-helm.yaml", "gke-nvidia-gpu-device-plugin.yaml"):
        assert keeps_off(load(name)["spec"]["template"]["spec"], GPU_LABELS) is False


def test_chart_daemonset_renders_the_corpus_helm_daemonset_from_default_values():
    corpus = load("nvidia-device-plugin-helm.yaml")
    ours = chart_daemonset({}, "nvidia-device-plugin", "nvidia-device-plugin")
    assert ours["metadata"] == corpus["metadata"]
    assert ours["spec"]["selector"] == corpus["spec"]["selector"]
    assert ours["spec"]["template"]["metadata"] == corpus["spec"]["template"]["metadata"]
    for key in ("tolerations", "affinity", "priorityClassName"):
        assert ours["spec"]["template"]["spec"][key] == corpus["spec"]["template"]["spec"][key], key
    assert "nodeSelector" not in ours["spec"]["template"]["spec"]
    assert ours["spec"]["template"]["spec"]["containers"] == corpus["spec"]["template"]["spec"]["containers"]
