"""Taints a controller puts on a node it drains, disrupts or deletes (Karpenter's karpenter.sh/disrupted, Cluster
Autoscaler's ToBeDeletedByClusterAutoscaler) are said as transient, never advised to be tolerated, leave the node
alike its pool, and explain a desiredNumberScheduled the taint rules would not give; matchFields on metadata.name
are judged against each live node's name on every pool."""

from __future__ import annotations

import contextlib
import io
import json

from gpu_node_pool.cli.commands import main


def _node(name, labels, taints, gpus="1"):
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "spec": {"taints": taints}, "status": {"allocatable": {"nvidia.com/gpu": gpus}}}


def _ds(name, spec, desired=None):
    obj = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": "kube-system"},
           "spec": {"selector": {"matchLabels": {"a": name}},
                    "template": {"metadata": {"labels": {"a": name}},
                                 "spec": {"containers": [{"name": "p", "image": "busybox"}], **spec}}}}
    if desired is not None:
        obj["status"] = {"desiredNumberScheduled": desired}
    return obj


GPU = {"key": "nvidia.com/gpu", "effect": "NoSchedule"}
KARPENTER = {"karpenter.sh/nodepool": "gpu", "node.kubernetes.io/instance-type": "g6.xlarge"}
TOLERATES_GPU = {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]}
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
       "spec": {"containers": [{"name": "c", "image": "x"}]}, "status": {"phase": "Running"}}


def _draining(desired):
    return [
        _node("k-1", KARPENTER, [GPU, {"key": "karpenter.sh/disrupted", "effect": "NoSchedule"}]),
        _node("k-2", KARPENTER, [GPU, {"key": "ToBeDeletedByClusterAutoscaler", "value": "1700000000",
                                       "effect": "NoSchedule"}]),
        _node("k-3", KARPENTER, [GPU]),
        _ds("dp", TOLERATES_GPU, desired),
        POD,
    ]


def _audit(tmp_path, items, *extra):
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["audit", "--cluster-dump", str(dump), *extra])
    return code, out.getvalue()


def test_nodes_being_drained_are_noted_as_transient_and_not_advised_to_be_tolerated(tmp_path):
    code, text = _audit(tmp_path, _draining(3))
    assert code == 0, text
    assert "Karpenter NodePool gpu: 3 node(s), all alike: taints [nvidia.com/gpu:NoSchedule]" in text
    assert "Karpenter NodePool gpu: runs on all 3 node(s)" in text
    assert "tolerate karpenter.sh/disrupted" not in text and "tolerate ToBeDeletedByClusterAutoscaler" not in text
    assert "a rule the audit does not model" not in text
    assert ("Node k-1: transient taint karpenter.sh/disrupted:NoSchedule (set and removed by a controller), not drift: "
            "Karpenter adds it to a node it is disrupting") in text
    assert "Node k-2: transient taint ToBeDeletedByClusterAutoscaler=1700000000:NoSchedule" in text
    assert "only NoExecute removes it: NodeShouldRunDaemonPod" in text
    assert "transient on k-1: karpenter.sh/disrupted:NoSchedule" in text


def test_the_json_report_has_no_finding_and_the_notes_name_each_transient_taint(tmp_path):
    code, out = _audit(tmp_path, _draining(3), "--json")
    report = json.loads(out)
    assert code == 0 and report["findings"] == []
    assert sum("transient taint" in n for n in report["notes"]) == 2
    assert report["daemonSets"][0]["nodesByRules"] == 3


def test_a_count_taken_after_the_taints_is_explained_by_the_draining_nodes(tmp_path):
    code, text = _audit(tmp_path, _draining(1))
    assert code == 0, text
    assert "does not model" not in text
    assert ("DaemonSet kube-system/dp: status.desiredNumberScheduled is 1; the taint and selection rules say 3 node(s) "
            "without the transient taints and 1 with them") in text


def test_a_count_no_transient_taint_explains_is_still_told(tmp_path):
    code, text = _audit(tmp_path, _draining(5))
    assert ("status.desiredNumberScheduled is 5 but the taint and selection rules say 3 node(s): a rule the audit does "
            "not model is at work (a node changing state, a stale status)") in text


def test_a_pool_taint_that_is_not_transient_is_still_advised(tmp_path):
    items = [_node("k-1", KARPENTER, [GPU, {"key": "example.com/maintenance", "effect": "NoSchedule"}]),
             _node("k-2", KARPENTER, [GPU]), _ds("dp", TOLERATES_GPU), POD]
    code, text = _audit(tmp_path, items)
    assert code == 1
    assert "runs on 1 of 2 node(s); stopped by example.com/maintenance:NoSchedule" in text


def _match_fields(name):
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [name]}]}]}}}}


def test_match_fields_on_the_node_name_are_judged_on_every_pool(tmp_path):
    items = [
        _node("k-1", {**KARPENTER, "karpenter.k8s.aws/instance-gpu-manufacturer": "nvidia"}, [GPU]),
        _node("gke-1", {"cloud.google.com/gke-nodepool": "l4", "cloud.google.com/gke-accelerator": "nvidia-l4"},
              [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]),
        _ds("pinned", {**TOLERATES_GPU, **_match_fields("k-1")}, 1),
        _ds("elsewhere", {**TOLERATES_GPU, **_match_fields("nowhere")}, 0),
        POD,
    ]
    code, text = _audit(tmp_path, items)
    assert "matchFields" not in text and "an operator the API server rejects" not in text, text
    pinned = text.split("kube-system/pinned\n")[1]
    assert pinned.startswith("    GKE node pool l4: kept off by its own selection\n"
                             "    Karpenter NodePool gpu: runs on all 1 node(s)\n"), text
    elsewhere = text.split("kube-system/elsewhere\n")[1]
    assert elsewhere.startswith("    GKE node pool l4: kept off by its own selection\n"
                                "    Karpenter NodePool gpu: kept off by its own selection\n"), text
    assert code == 0, text
