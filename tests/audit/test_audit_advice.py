"""The audit's advice: a pending pod that requests no GPU is told to stay off GPU nodes, never to add a GPU
toleration (the allow-list forbids one); one that requests a GPU is told which toleration to add; a dump with
nodes but no DaemonSets reports DaemonSet coverage as not judged, not as a missing device plugin."""

from __future__ import annotations

import copy
import json

from audit_cluster import acceptance_objects, as_list

from gpu_node_pool.audit.report import run_audit
from gpu_node_pool.audit.sources import load_dump


def audit(tmp_path, objects):
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps(as_list(objects)))
    return run_audit(load_dump(dump))


def pending_finding(report, name):
    (found,) = [f for f in report.findings if f.code == "pending-gpu-taint" and f.subject == f"Pod ml/{name}"]
    return found


def test_a_pod_requesting_no_gpu_is_told_to_keep_off_gpu_nodes(tmp_path):
    report = audit(tmp_path, acceptance_objects())
    fix = pending_finding(report, "model-cache-warmer").fix
    assert fix.startswith("it requests no GPU: keep it off GPU nodes")
    assert "add {key: nvidia.com/gpu" not in fix and "do not add a GPU toleration" in fix
    (pod,) = [p for p in report.to_json()["pendingPods"] if p["name"] == "model-cache-warmer"]
    assert pod["requestsGpu"] is False and pod["missingTolerations"] == []


def test_a_pod_requesting_a_gpu_is_told_which_toleration_to_add(tmp_path):
    objects = acceptance_objects()
    helper = next(o for o in objects if o["kind"] == "Pod" and o["metadata"]["name"] == "model-cache-warmer")
    gpu = copy.deepcopy(helper)
    gpu["metadata"]["name"] = "trainer"
    gpu["spec"]["nodeSelector"] = {"gpu-node-pools/pool": "training"}
    gpu["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": 1}}
    fix = pending_finding(audit(tmp_path, objects + [gpu]), "trainer").fix
    # the GPU taint is tolerated for it by EKS's ExtendedResourceToleration; the pool's own taint is not
    assert "add {key: workload, operator: Equal, value: training, effect: NoSchedule}" in fix
    assert "keep it off GPU nodes" not in fix


def test_a_dump_without_daemonsets_reports_coverage_as_not_judged(tmp_path):
    nodes = [o for o in acceptance_objects() if o["kind"] == "Node"]
    report = audit(tmp_path, nodes)
    assert not [f for f in report.findings if "device plugin" in f.message]
    assert not [f for f in report.findings if f.code == "gpu-node-starved"]
    reasons = {n.subject: n.reason for n in report.not_judged}
    assert reasons["GET /apis/apps/v1/daemonsets"].startswith("the dump holds no DaemonSets")
    assert report.partial and report.exit_code == 1  # what was not read is never clean
    assert "why is not judged: the dump holds no DaemonSets" in reasons["Node gpu-inf-2"]
