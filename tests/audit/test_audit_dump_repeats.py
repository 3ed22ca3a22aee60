"""A dump directory holding the same objects twice: each object is judged once and the report says which
file repeated which object; two copies that differ make the verdict partial and say where they differ."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import shutil

from audit_cluster import acceptance_objects, as_list
from conftest import ROOT

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
