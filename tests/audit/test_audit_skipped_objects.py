"""An object the audit had to skip (a field of the wrong shape, as only a hand-made dump has) makes the
report partial: what was not read is never clean, and a DaemonSet's malformed node selection is not read
as "kept off"."""

from __future__ import annotations

import contextlib
import copy
import io
import json

import pytest
from audit_cluster import acceptance_objects, as_list

from gpu_node_pool.cli.commands import main


def audit(tmp_path, objects, *extra):
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps(as_list(objects)))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["audit", "--cluster-dump", str(dump), "--json", *extra])
    return code, json.loads(out.getvalue())


def with_daemonset_affinity(affinity):
    objects = acceptance_objects()
    ds = copy.deepcopy(next(o for o in objects if o["kind"] == "DaemonSet"))
    ds["metadata"]["name"] = "odd-selection"
    ds["spec"]["template"]["spec"]["affinity"] = affinity
    return [*objects, ds]


REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


@pytest.mark.parametrize(
    ("affinity", "field"),
    [
        ({"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": "x"}}}, "nodeSelectorTerms is a string \"x\", where the API server holds an array of objects"),
        ({"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": [{"matchExpressions": "y"}]}}},
         "nodeSelectorTerms[0].matchExpressions is a string \"y\", where the API server holds an array of objects"),
        ({"nodeAffinity": "z"}, "affinity.nodeAffinity is a string \"z\", where the API server holds an object"),
    ],
)
def test_a_daemonset_whose_node_selection_has_the_wrong_shape_is_skipped_and_the_report_partial(tmp_path, affinity, field):
    code, report = audit(tmp_path, with_daemonset_affinity(affinity), "--fail-on", "none")
    assert code == 0  # --fail-on none: never 1
    assert report["partial"] is True
    assert any("DaemonSet logging/odd-selection" in line and field in line for line in report["objectsSkipped"])
    assert all(row["name"] != "odd-selection" for row in report["daemonSets"])  # not judged "kept off"
    code, report = audit(tmp_path, with_daemonset_affinity(affinity))
    assert code == 1 and report["exitCode"] == 1


def test_a_gpu_node_with_labels_of_the_wrong_shape_makes_the_report_partial(tmp_path):
    objects = acceptance_objects()
    node = next(o for o in objects if o["kind"] == "Node" and o["metadata"]["name"] == "gpu-inf-1")
    node["metadata"]["labels"] = ["a"]
    code, report = audit(tmp_path, objects, "--fail-on", "none")
    assert report["partial"] is True and any("Node gpu-inf-1" in line for line in report["objectsSkipped"])
    assert audit(tmp_path, objects)[0] == 1


def test_an_item_that_is_no_object_makes_the_report_partial(tmp_path):
    code, report = audit(tmp_path, [*acceptance_objects(), "not an object"], "--fail-on", "none")
    at = len(acceptance_objects())
    assert report["partial"] is True and report["objectsSkipped"] == [f"{tmp_path / 'dump.json'} items[{at}]: a string "
                                                                     '"not an object", not an object; skipped']
    assert any("items[" in n["reason"] and "not an object" in n["reason"] for n in report["notJudged"])
