"""A dump directory holding the same objects twice: each object is judged once and the report says which
file repeated which object; two copies that differ make the verdict partial and say where they differ.
A Node is known by its name, a namespaced object by its namespace/name and uid; only the objects the
snapshot keeps are remembered, compactly, and nothing a live list serves."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import shutil
import tracemalloc

from audit_cluster import acceptance_objects, as_list
from conftest import ROOT

from gpu_node_pool.audit.identity import Repeats
from gpu_node_pool.audit.snapshot import Snapshot
from gpu_node_pool.cli.commands import main

EXAMPLE = ROOT / "examples" / "audit" / "cluster.json"


def audit(path, *extra):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["audit", "--cluster-dump", str(path), *extra])
    return code, out.getvalue()


def audit_json(path, *extra):
    code, out = audit(path, "--json", *extra)
    return code, json.loads(out)


def test_a_directory_holding_one_dump_twice_judges_each_object_once_and_says_so(tmp_path):
    shutil.copy(EXAMPLE, tmp_path / "a.json")
    shutil.copy(EXAMPLE, tmp_path / "b.json")
    once_code, once = audit_json(EXAMPLE)
    code, twice = audit_json(tmp_path)
    assert code == once_code == 1
    assert twice["summary"] == once["summary"]  # 3 nodes, 5 DaemonSets, not 6 and 10
    assert twice["findings"] == once["findings"]
    assert twice["gpuPools"] == once["gpuPools"] and twice["daemonSets"] == once["daemonSets"]
    assert twice["partial"] is False  # the copies agree: nothing is in doubt
    [note] = [n for n in twice["notes"] if "repeats" in n]
    assert note.startswith(f"{tmp_path / 'b.json'} repeats 3 Node, 5 DaemonSet, 6 Pod already read from {tmp_path / 'a.json'}")
    assert "Node ip-10-0-0-0.us-west-2.compute.internal" in note
    _, text = audit(tmp_path)
    assert "GpuNodePool inference: 2 node(s)" in text
    assert text.count("  datadog/datadog\n") == 1
    assert f"Notes:\n  {note}" in text


def test_two_copies_that_differ_make_the_verdict_partial_naming_both_files_and_the_field(tmp_path):
    objects = acceptance_objects()
    (tmp_path / "a.json").write_text(json.dumps(as_list(objects)))
    changed = copy.deepcopy(objects)
    node = next(o for o in changed if o["kind"] == "Node" and o["metadata"]["name"] == "gpu-inf-2")
    node["spec"]["taints"] = node["spec"]["taints"][:1]  # maintenance=true:NoSchedule removed since
    (tmp_path / "b.json").write_text(json.dumps(as_list(changed)))
    code, report = audit_json(tmp_path, "--fail-on", "none")
    assert code == 0 and report["partial"] is True
    [line] = report["objectsSkipped"]
    assert line.startswith(f"Node gpu-inf-2: {tmp_path / 'a.json'} and {tmp_path / 'b.json'} hold copies that differ in spec.taints;")
    assert f"the verdict is about the first copy ({tmp_path / 'a.json'})" in line
    assert report["summary"]["nodes"] == 4  # each node once
    code, text = audit(tmp_path)
    assert code == 1
    assert f"PARTIAL: {line}" in text
    assert "PARTIAL verdict: 1 object(s) not read" in text


def test_an_object_held_twice_in_one_file_is_judged_once_and_noted(tmp_path):
    objects = acceptance_objects()
    plugin = next(o for o in objects if o["kind"] == "DaemonSet" and o["metadata"]["name"] == "nvidia-device-plugin-daemonset")
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps(as_list([*objects, copy.deepcopy(plugin)])))
    _, report = audit_json(dump)
    names = [(d["namespace"], d["name"]) for d in report["daemonSets"]]
    assert names.count(("kube-system", "nvidia-device-plugin-daemonset")) == 1
    assert f"{dump} holds 1 DaemonSet twice" in "\n".join(report["notes"])


def test_an_object_of_a_kept_ones_name_with_another_uid_is_judged_as_another_object_and_noted(tmp_path):
    objects = acceptance_objects()
    plugin = next(o for o in objects if o["kind"] == "DaemonSet" and o["metadata"]["name"] == "nvidia-device-plugin-daemonset")
    plugin["metadata"]["uid"] = "6f1c0b8e-0000-4000-8000-000000000001"
    again = copy.deepcopy(plugin)
    again["metadata"]["uid"] = "6f1c0b8e-0000-4000-8000-000000000002"
    (tmp_path / "a.json").write_text(json.dumps(as_list(objects)))
    (tmp_path / "b.json").write_text(json.dumps(as_list([again])))
    _, report = audit_json(tmp_path)
    [note] = [n for n in report["notes"] if "another metadata.uid" in n]
    assert note.startswith(f"{tmp_path / 'b.json'} holds 1 DaemonSet named as objects of {tmp_path / 'a.json'}")
    assert note.endswith("DaemonSet kube-system/nvidia-device-plugin-daemonset")


# --- a Node's name is its identity ---------------------------------------------------------------


def two_dumps_of_one_node(tmp_path, change=None):
    objects = acceptance_objects()
    node = next(o for o in objects if o["kind"] == "Node" and o["metadata"]["name"] == "gpu-inf-2")
    node["metadata"]["uid"] = "0b7c6a52-0000-4000-8000-000000000001"
    (tmp_path / "a.json").write_text(json.dumps(as_list(objects)))
    again = copy.deepcopy(node)
    again["metadata"]["uid"] = "0b7c6a52-0000-4000-8000-000000000002"  # deleted and created again since
    if change:
        change(again)
    (tmp_path / "b.json").write_text(json.dumps(as_list([again])))


def test_a_node_of_one_name_with_two_uids_is_one_node_at_two_times_and_the_verdict_partial(tmp_path):
    two_dumps_of_one_node(tmp_path)
    code, report = audit_json(tmp_path, "--fail-on", "none")
    assert code == 0 and report["summary"]["nodes"] == 4  # each node once, not gpu-inf-2 twice
    assert report["partial"] is True
    [line] = report["objectsSkipped"]
    assert line.startswith(f"Node gpu-inf-2: {tmp_path / 'a.json'} and {tmp_path / 'b.json'} hold copies that differ in "
                           "metadata.uid (one Node name, two uids: it was deleted and created again between the two copies);")
    assert f"the verdict is about the first copy ({tmp_path / 'a.json'})" in line
    assert not [n for n in report["notes"] if "another metadata.uid" in n]
    names = [n["name"] for p in report["gpuPools"] for n in p["nodes"]]
    assert names.count("gpu-inf-2") == 1


def test_a_node_with_two_uids_that_differ_in_what_is_read_names_the_uid_and_the_fields(tmp_path):
    two_dumps_of_one_node(tmp_path, change=lambda node: node["spec"].update(taints=node["spec"]["taints"][:1]))
    _, report = audit_json(tmp_path, "--fail-on", "none")
    [line] = report["objectsSkipped"]
    assert "hold copies that differ in metadata.uid, spec.taints (one Node name, two uids:" in line
    assert report["summary"]["nodes"] == 4


def test_a_namespaced_object_of_one_name_with_two_uids_is_still_two_objects(tmp_path):
    repeats = Repeats()
    meta = {"namespace": "ml", "name": "agent", "uid": "1"}
    assert repeats.see("DaemonSet", meta, "a.json", {"spec": 1}) == (True, "")
    assert repeats.see("DaemonSet", {**meta, "uid": "2"}, "b.json", {"spec": 1}) == (True, "")
    assert repeats.see("DaemonSet", {**meta, "uid": "2"}, "c.json", {"spec": 1}) == (False, "")
    first, conflict = repeats.see("DaemonSet", meta, "c.json", {"spec": 2})
    assert not first and conflict.startswith("DaemonSet ml/agent: a.json and c.json hold copies that differ in spec;")
    assert len(repeats) == 2


# --- what is remembered ---------------------------------------------------------------------------


def app_pod(i):
    return {"kind": "Pod", "metadata": {"name": f"web-{i}", "namespace": "shop", "uid": f"uid-{i:08d}"},
            "spec": {"nodeName": f"node-{i % 50}", "containers": [{"name": "web", "image": "nginx"}]},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}


def event(i):
    return {"kind": "Event", "metadata": {"name": f"web-{i}.17a", "namespace": "shop", "uid": f"ev-{i:08d}"},
            "involvedObject": {"kind": "Pod", "name": f"web-{i}", "namespace": "shop"}, "reason": "Pulled",
            "message": "Successfully pulled image"}


def test_only_the_objects_a_dump_snapshot_keeps_are_remembered():
    snapshot = Snapshot("dump")
    for obj in acceptance_objects():
        snapshot.add(obj["kind"], obj, "a.json")
    kept = len(snapshot.nodes) + len(snapshot.daemonsets) + len(snapshot.pending) + len(snapshot.pod_states)
    assert snapshot.remembered == kept == 4 + 6 + 1 + 12
    for i in range(20):  # pods no verdict reads, and events: dropped, so not remembered either
        snapshot.add("Pod", app_pod(i), "a.json")
        snapshot.add("Event", event(i), "a.json")
    assert snapshot.remembered == kept


def test_dropped_pods_and_events_cost_no_memory():
    snapshot = Snapshot("dump")
    pods, events = [app_pod(i) for i in range(5000)], [event(i) for i in range(5000)]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for pod, ev in zip(pods, events, strict=True):
            snapshot.add("Pod", pod, "a.json")
            snapshot.add("Event", ev, "a.json")
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 64 * 1024, f"{grown} bytes kept for 10,000 objects the snapshot drops"


def test_an_object_remembered_costs_about_a_hundred_bytes_not_a_dict():
    repeats = Repeats()
    metas = [{"namespace": "kube-system", "name": f"aws-node-{i:05d}", "uid": f"6f1c0b8e-0000-4000-8000-{i:012d}"}
             for i in range(20_000)]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for meta in metas:
            repeats.see("Pod", meta, "a.json", {"spec.nodeName, metadata.ownerReferences and status": [["x", ""]]})
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown / len(metas) < 120, f"{grown / len(metas):.0f} bytes per object remembered"
    assert len(repeats) == len(metas)


def test_a_live_snapshot_remembers_nothing():
    snapshot = Snapshot("API", live=True)
    for obj in acceptance_objects():
        snapshot.add(obj["kind"], obj, "GET /api/v1/things")
    assert snapshot.remembered == 0 and len(snapshot.nodes) == 4 and snapshot.notes == []
