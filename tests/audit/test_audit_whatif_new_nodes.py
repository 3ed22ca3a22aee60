"""``gpupool audit --stack``: a DaemonSet of the cluster that would not run on a declared pool's nodes is a finding, in
the text, ``--json`` and the page alike, with the taint or the label it misses and the fix, and it moves the exit code.
A taint its pod already fails on the pool's live nodes is reported once; the device plugin kept off a pool's nodes by
its own selection is mandatory, another DaemonSet kept off advisory when it serves GPU nodes now, else nothing."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import jsonschema
from audit_cluster import as_list, eks_node, finished_pod
from conftest import ROOT

from gpu_node_pool.audit.declared import Declared, DeclaredPool
from gpu_node_pool.audit.report import run_audit
from gpu_node_pool.audit.snapshot import Snapshot
from gpu_node_pool.cli.commands import main
from gpu_node_pool.k8s.selection import NodeLabels
from gpu_node_pool.k8s.taints import Taint

SCHEMA = json.loads((ROOT / "components/gpu_node_pool/audit/report.schema.json").read_text())
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
PLUGIN_IMAGE = "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"
FIX = ("tolerate nvidia.com/gpu=present:NoSchedule with {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}, "
       "or keep it off GPU nodes explicitly (nodeSelector/required node affinity)")


def daemonset(name: str, *, namespace: str = "logging", tolerations: list | None = None, selector: dict | None = None,
              image: str = "fluent/fluent-bit:3.2") -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": name, "image": image}]}
    if tolerations is not None:
        spec["tolerations"] = tolerations
    if selector is not None:
        spec["nodeSelector"] = selector
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": namespace},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}


def cpu_node(name: str = "cpu-1") -> dict[str, Any]:
    return eks_node(name, pool=None, nodegroup="system", instance="m7i.xlarge", gpus=None, cpu="4", memory="15896988Ki")


def audit(capsys, tmp_path: Path, objects: list[dict[str, Any]], *args: str) -> tuple[int, str]:
    """``gpupool audit`` of a dump of ``objects`` against the repository's ``dev`` stack (pool ``inference``,
    g6.xlarge, ``nvidia.com/gpu=present:NoSchedule``, no node in the dump)."""
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps(as_list([*objects, finished_pod("cpu-1")])))  # a cluster's pods: the verdict is whole
    code = main(["audit", "--cluster-dump", str(path), "--stack", "dev", "--project-dir", str(ROOT), *args])
    return code, capsys.readouterr().out


def test_a_daemonset_that_would_not_run_on_a_new_pools_nodes_is_a_mandatory_finding_with_its_fix(capsys, tmp_path):
    objects = [cpu_node(), daemonset("fluent-bit")]
    message = ("it would not run on pool inference's new nodes: nvidia.com/gpu=present:NoSchedule not tolerated")
    code, text = audit(capsys, tmp_path, objects)
    assert "    what-if pool inference as declared: would not run on its new nodes: nvidia.com/gpu=present:NoSchedule" in text
    assert f"\nFindings:\n  [mandatory] DaemonSet logging/fluent-bit: {message} -> {FIX}\n" in text
    assert code == 1 and text.endswith("1 mandatory, 0 advisory, 0 info; exit 1 (--fail-on mandatory)\n")

    code, out = audit(capsys, tmp_path, objects, "--json")
    report = json.loads(out)
    jsonschema.validate(report, SCHEMA)
    assert code == 1 and report["exitCode"] == 1
    assert report["findings"] == [{"level": "mandatory", "code": "whatif-does-not-run", "subject": "DaemonSet logging/fluent-bit",
                                   "message": message, "fix": FIX, "pool": "inference"}]

    page = tmp_path / "audit.html"
    assert audit(capsys, tmp_path, objects, "--html", str(page))[0] == 1
    assert html.escape(f"[mandatory] DaemonSet logging/fluent-bit: {message} Fix: {FIX}") in page.read_text()

    assert audit(capsys, tmp_path, objects, "--fail-on", "none")[0] == 0


def test_a_daemonset_that_tolerates_the_new_pools_taint_gives_no_such_finding(capsys, tmp_path):
    tolerating = daemonset("fluent-bit", tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}])
    code, out = audit(capsys, tmp_path, [cpu_node(), tolerating], "--json")
    report = json.loads(out)
    [row] = [d for d in report["daemonSets"] if d["name"] == "fluent-bit"]
    assert row["whatIf"]["pool inference as declared"]["status"] == "runs"
    assert report["findings"] == [] and code == 0 and report["exitCode"] == 0


def _live_pool(taints: list[str], daemonsets: list[dict[str, Any]], *, node_taints: list[dict] | None = None,
               **pool: Any) -> Any:
    """The audit of a cluster whose pool ``gpu`` has one live node (with ``node_taints``, else the GPU taint), against
    a stack declaring pool ``gpu`` with ``taints``."""
    snapshot = Snapshot("dump")
    snapshot.add("Node", eks_node("gpu-1", pool="gpu", nodegroup="gpu", instance="g6.xlarge", gpus=1,
                                  taints=[GPU_TAINT] if node_taints is None else node_taints))
    for ds in daemonsets:
        snapshot.add("DaemonSet", ds)
    declared = DeclaredPool(0, "gpu", "eks-managed", [Taint.parse(t) for t in taints], {"gpu-node-pools/pool": "gpu"},
                            **pool)
    return run_audit(snapshot, declared=Declared("s", [declared], []))


def test_a_taint_the_live_nodes_already_stop_it_on_is_reported_once_and_a_declared_one_more_is_named_alone():
    report = _live_pool(["nvidia.com/gpu=present:NoSchedule"], [daemonset("fluent-bit")])
    assert [(f.code, f.pool) for f in report.findings] == [("daemonset-does-not-run", "GpuNodePool gpu")]
    assert report.rows[0].whatif["pool gpu as declared"].status == "doesNotRun"  # the cell still says so

    report = _live_pool(["nvidia.com/gpu=present:NoSchedule", "example.com/tier=gpu:NoSchedule"], [daemonset("fluent-bit")])
    [(live, *_), whatif] = [[f for f in report.findings if f.code == code]
                            for code in ("daemonset-does-not-run", "whatif-does-not-run")]
    assert "nvidia.com/gpu=present:NoSchedule" in live.message
    [new] = whatif
    assert new.message == ("it would not run on gpu-1 with the taints the stack declares for pool gpu: "
                           "example.com/tier=gpu:NoSchedule not tolerated")
    assert new.fix.startswith("tolerate example.com/tier=gpu:NoSchedule with {key: example.com/tier, operator: Exists, "
                              "effect: NoSchedule}, or keep it off")
    assert report.exit_code == 1


def _new_pool(daemonsets: list[dict[str, Any]], **pool: Any) -> Any:
    """The audit of a cluster with one GPU node of pool ``old``, against a stack declaring a pool ``new`` with no node
    yet (label ``example.com/team=ml``)."""
    snapshot = Snapshot("dump")
    snapshot.add("Node", eks_node("gpu-old-1", pool="old", nodegroup="old", instance="g6.xlarge", gpus=1, taints=[GPU_TAINT]))
    for ds in daemonsets:
        snapshot.add("DaemonSet", ds)
    snapshot.add("Pod", finished_pod("gpu-old-1"))
    declared = DeclaredPool(0, "new", "eks-managed", [Taint.parse("nvidia.com/gpu=present:NoSchedule")],
                            {"gpu-node-pools/pool": "new", "example.com/team": "ml"}, **pool)
    return run_audit(snapshot, declared=Declared("s", [declared], []))


EVERYTHING = [{"operator": "Exists"}]
OLD_ONLY = {"gpu-node-pools/pool": "old"}


def test_the_device_plugin_kept_off_a_new_pools_nodes_by_its_selection_is_mandatory():
    plugin = daemonset("nvidia-device-plugin-daemonset", namespace="kube-system", tolerations=EVERYTHING,
                       selector=OLD_ONLY, image=PLUGIN_IMAGE)
    report = _new_pool([plugin])
    [kept] = [f for f in report.findings if f.code == "whatif-kept-off"]
    assert (kept.level, kept.subject, kept.pool) == ("mandatory", "DaemonSet kube-system/nvidia-device-plugin-daemonset", "new")
    assert kept.message == ("its own selection would keep it off pool new's new nodes: nodeSelector gpu-node-pools/pool=old "
                            "(the nodes carry gpu-node-pools/pool=new); no device plugin would run there, so those nodes "
                            "would advertise no nvidia.com/gpu")
    assert kept.fix == ("widen its node selection (nodeSelector/required node affinity) to admit them: "
                        "gpu-node-pools/pool=new")
    assert report.exit_code == 1
    [row] = report.rows
    assert row.whatif["pool new as declared"].summary == (  # the cell names the label, as the finding does
        "would be kept off its new nodes by its own selection: nodeSelector gpu-node-pools/pool=old (the nodes carry "
        "gpu-node-pools/pool=new)")
    assert kept.to_json() in report.to_json()["findings"]
    assert f"[mandatory] DaemonSet kube-system/nvidia-device-plugin-daemonset: {kept.message} -> {kept.fix}" in report.to_text()


def test_the_device_plugin_kept_off_is_no_finding_where_another_plugin_runs_or_the_nodes_run_their_own():
    plugin = daemonset("nvidia-device-plugin-daemonset", namespace="kube-system", tolerations=EVERYTHING,
                       selector=OLD_ONLY, image=PLUGIN_IMAGE)
    everywhere = daemonset("nvidia-device-plugin-new", namespace="kube-system", tolerations=EVERYTHING, image=PLUGIN_IMAGE)
    assert not [f for f in _new_pool([plugin, everywhere]).findings if f.code == "whatif-kept-off"]
    own = _new_pool([plugin], device_plugin_source="image")  # Bottlerocket NVIDIA: the image runs its own plugin
    assert not [f for f in own.findings if f.code == "whatif-kept-off"] and own.exit_code == 0


def test_another_daemonset_kept_off_is_advisory_when_it_serves_gpu_nodes_now_and_nothing_when_it_keeps_off_them():
    exporter = daemonset("gpu-metrics", namespace="monitoring", tolerations=EVERYTHING, selector=OLD_ONLY, image="exporter")
    cpu_only = daemonset("cpu-agent", namespace="ops", selector={"example.com/team": "platform"}, image="agent")
    report = _new_pool([exporter, cpu_only])
    [kept] = [f for f in report.findings if f.code == "whatif-kept-off"]
    assert (kept.level, kept.subject) == ("advisory", "DaemonSet monitoring/gpu-metrics")
    assert kept.message.endswith("; it runs on the cluster's GPU nodes of GpuNodePool old now")
    assert kept.fix.endswith("gpu-node-pools/pool=new, or leave it so if it is not meant for pool new")
    rows = {r.ds.name: r for r in report.rows}
    assert rows["cpu-agent"].whatif["pool new as declared"].status == "keptOff"  # judged, and what the pack asks of it
    assert report.exit_code == 0
    report.fail_on = "advisory"
    assert report.exit_code == 1


def test_on_a_pool_of_two_kinds_of_node_the_kind_a_selection_refuses_is_named_in_the_cell_and_the_finding():
    decided = frozenset({"kubernetes.io/", "node.kubernetes.io/", "gpu-node-pools/"})
    kinds = [NodeLabels({"kubernetes.io/os": "linux", "gpu-node-pools/pool": "new", "node.kubernetes.io/instance-type": t},
                        name=f"instance type {t}", decided=decided) for t in ("g6.xlarge", "p5.48xlarge")]
    g6_only = {"node.kubernetes.io/instance-type": "g6.xlarge"}
    plugin = daemonset("nvidia-device-plugin-daemonset", namespace="kube-system", tolerations=EVERYTHING,
                       selector=g6_only, image=PLUGIN_IMAGE)
    logs = daemonset("logs", namespace="ops", selector=g6_only)  # it lands on g6 nodes, tolerates no GPU taint
    report = _new_pool([plugin, logs], kinds=kinds)
    cells = {r.ds.name: r.whatif["pool new as declared"] for r in report.rows}
    refused = ("nodeSelector node.kubernetes.io/instance-type=g6.xlarge (the nodes carry "
               "node.kubernetes.io/instance-type=p5.48xlarge)")
    assert cells["nvidia-device-plugin-daemonset"].summary == (
        f"would run on some of its new nodes (1 of 2 kinds of node); kept off by its own selection: {refused}")
    assert cells["logs"].summary == ("would run on none of its new nodes; stopped by nvidia.com/gpu=present:NoSchedule "
                                     f"not tolerated; kept off by its own selection: {refused}")
    found = {(f.code, f.subject): f for f in report.findings if f.code.startswith("whatif-")}
    kept = found[("whatif-kept-off", "DaemonSet kube-system/nvidia-device-plugin-daemonset")]
    assert kept.level == "mandatory" and kept.message.startswith(
        f"its own selection would keep it off 1 of the 2 kinds of node pool new would get (instance type p5.48xlarge): "
        f"{refused}; no device plugin would run there")
    stops = found[("whatif-does-not-run", "DaemonSet ops/logs")]
    assert stops.message == ("it would not run on 1 of the 2 kinds of node pool new would get (instance type g6.xlarge): "
                             "nvidia.com/gpu=present:NoSchedule not tolerated")
    assert len(found) == 2  # logs kept off p5 nodes serves no GPU node now: nothing more
