"""``gpupool audit --stack`` what-if on a declared pool with no node yet: its kinds of node are the plan's, found
by the key :func:`gpu_node_pool.policies.pools.pool_declared_as` formats for both sides, and they carry the labels
the kubelet sets on every node (``beta.kubernetes.io/os``/``arch``; ``kubernetes.io/hostname`` with a value
known only at launch), as a live node does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from audit_cluster import as_list, eks_node
from conftest import ROOT

from gpu_node_pool.audit.declared import read_declared
from gpu_node_pool.audit.report import run_audit
from gpu_node_pool.audit.sources import load_dump
from gpu_node_pool.policies import pools

WHATIF = "pool inference as declared"
GPU_TAINT = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]


def _selecting(name: str, selector: dict, tolerations: list | None = None) -> dict:
    spec = {"containers": [{"name": "c", "image": "busybox"}], "nodeSelector": selector}
    if tolerations:
        spec["tolerations"] = tolerations
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}


def _whatif(tmp_path: Path, daemonsets: list[dict]) -> dict:
    # the dev stack's pool "inference" is g6.xlarge (amd64, linux); the cluster has no node of it yet
    objects = [eks_node("gpu-1", pool=None, nodegroup="other", instance="g5.xlarge", gpus=1, taints=GPU_TAINT),
               *daemonsets]
    path = tmp_path / "dump.json"
    path.write_text(json.dumps(as_list(objects)))
    report = run_audit(load_dump(path), declared=read_declared("dev", ROOT))
    return {r.ds.display: r.whatif[WHATIF] for r in report.rows if r.ds.origin == "cluster"}


def test_a_new_nodes_kubelet_labels_are_judged_and_its_host_name_is_named(tmp_path):
    everything = [{"operator": "Exists"}]  # tolerates every taint: only the selection is left to judge
    cells = _whatif(tmp_path, [_selecting("beta-linux", {"beta.kubernetes.io/os": "linux"}, everything),
                               _selecting("beta-linux-untolerated", {"beta.kubernetes.io/os": "linux"}),
                               _selecting("beta-windows", {"beta.kubernetes.io/os": "windows"}),
                               _selecting("beta-arm", {"beta.kubernetes.io/arch": "arm64"}),
                               _selecting("one-host", {"kubernetes.io/hostname": "ip-10-0-0-1.ec2.internal"},
                                          everything)])
    assert cells["default/beta-linux"].status == "runs"
    assert cells["default/beta-linux-untolerated"].status == "doesNotRun"  # lands there, tolerates no taint of it
    assert cells["default/beta-windows"].status == "keptOff" and cells["default/beta-arm"].status == "keptOff"
    host = cells["default/one-host"]
    assert host.status == "notJudged"
    assert "kubernetes.io/hostname: the pool's nodes carry it with a value known only once they launch" in host.summary


def test_the_pool_key_has_one_format_for_the_plan_and_the_audit(monkeypatch):
    assert read_declared("dev", ROOT).pools[0].kinds  # the plan's kinds of node, found by the pool's key
    monkeypatch.setattr(pools, "pool_declared_as", lambda path, name: f"{name} at {path}")
    (pool, *_) = read_declared("dev", ROOT).pools
    assert pool.kinds and all(kind.labels.get("beta.kubernetes.io/os") == "linux" for kind in pool.kinds)


@pytest.mark.parametrize(("path", "name", "key"), [
    ("pools[1]", "inference", 'pools[1] "inference"'),
    (None, "inference", 'GpuNodePool "inference"'),
])
def test_pool_declared_as_formats_the_config_path_and_name(path, name, key):
    assert pools.pool_declared_as(path, name) == key
