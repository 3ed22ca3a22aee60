"""The dumps the streaming audit is compared on, and the reports the audit gave for them before it
streamed (``data/reports_before_streaming.json.gz``, written by the whole-file reader: ``json.load``
of each file, every object kept).

Each case writes its dump into a directory and returns the ``--cluster-dump`` path; a case named
``*+stack`` is audited with ``--stack acc`` (``ACCEPTANCE_STACK``).
"""

from __future__ import annotations

import copy
import gzip
import json
import re
import sys
from pathlib import Path
from typing import Any

from audit_cluster import acceptance_objects, as_list, corpus_ds, ds_pod, gke_l4_node
from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import clusters  # noqa: E402

GOLDEN = Path(__file__).parent / "data" / "reports_before_streaming.json.gz"


def _write(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc, indent=2))
    return path


def acceptance(d: Path) -> Path:
    return _write(d / "dump.json", as_list(acceptance_objects()))


def directory_typed_lists(d: Path) -> Path:
    """A directory: the nodes as the API's ``NodeList`` (items without ``kind``, ``kind`` after
    ``items``), the rest as a ``List`` without events."""
    objs = acceptance_objects()
    (d / "dump").mkdir()
    nodes = [{k: v for k, v in o.items() if k not in ("kind", "apiVersion")} for o in objs if o["kind"] == "Node"]
    (d / "dump" / "nodes.json").write_text(json.dumps({"apiVersion": "v1", "items": nodes, "kind": "NodeList",
                                                       "metadata": {"resourceVersion": "123"}}))
    _write(d / "dump" / "workloads.json", as_list([o for o in objs if o["kind"] in ("DaemonSet", "Pod")]))
    return d / "dump"


def gke(d: Path) -> Path:
    plugin = corpus_ds("gke-nvidia-gpu-device-plugin", 2)
    vllm = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "vllm-0", "namespace": "ml"},
            "spec": {"nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-l4"},
                     "containers": [{"name": "vllm", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
            "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                                             "message": "0/2 nodes are available: 2 Insufficient nvidia.com/gpu."}]}}
    not_ready = ds_pod(plugin, "gke-ml-l4-pool-3c4d", ready=False, waiting="CrashLoopBackOff")
    objs = [gke_l4_node("gke-ml-l4-pool-1a2b", "l4-pool"), gke_l4_node("gke-ml-l4-pool-3c4d", "l4-pool", gpus=0),
            gke_l4_node("gke-ml-l4-pool-5e6f", "l4-pool", driver=False, gpus=None),
            plugin, ds_pod(plugin, "gke-ml-l4-pool-1a2b"), not_ready, copy.deepcopy(not_ready), vllm, "not an object"]
    return _write(d / "dump.json", as_list(objs))


def synthetic_500(d: Path) -> Path:
    return clusters.write_dump(d / "dump.json", 500, pods_per_node=30, daemonsets=20)


CASES = {"acceptance": acceptance, "acceptance+stack": acceptance, "directory-typed-lists": directory_typed_lists,
         "gke": gke, "synthetic-500x30": synthetic_500}


#: Keys the report gained after the golden reports were written, with the value every golden case has.
ADDED_SINCE = {"partial": False, "listsNotRead": [], "objectsSkipped": []}
ADDED_PER_NODE = {"malformedResources": []}
#: Notes the report gained after the golden reports were written: objects a dump holds twice (the gke case
#: holds one pod twice, the synthetic one pods whose generated names collide), which the audit judges once.
NOTES_SINCE = ("(the same kind, namespace/name and uid, alike in what the audit reads)", "but with another metadata.uid")


def normalised(report: dict[str, Any], directory: Path) -> dict[str, Any]:
    """The report with the case's temporary ``directory`` spelled ``<dir>`` (in ``source`` and
    the skipped-item lines), and the keys added since the golden reports checked and removed
    (each must hold the value of :data:`ADDED_SINCE` / :data:`ADDED_PER_NODE`: none of these
    dumps has a malformed resource, and only an item that is no object, which the golden reports list under notJudged
    alone, makes one partial, listed in objectsSkipped), and the notes of :data:`NOTES_SINCE` removed."""
    report = _as_before(json.loads(json.dumps(report).replace(str(directory), "<dir>")))
    report["notes"] = [n for n in report["notes"] if not any(marker in n for marker in NOTES_SINCE)]
    items = [n["reason"] for n in report["notJudged"] if n["reason"].endswith(": not an object; skipped")]
    for key, value in {**ADDED_SINCE, "partial": bool(items), "objectsSkipped": items}.items():
        assert report.pop(key) == value, key
    for pool in report.get("gpuPools", []):
        for node in pool["nodes"]:
            for key, value in ADDED_PER_NODE.items():
                assert node.pop(key) == value, key
    return report


_SHOWN_TAINT = re.compile(r"spec\.taints\[\d+\] ")
_ITEM_SAID = re.compile(r"(items\[\d+\]|item \d+ of the list): .*, not an object; skipped$")


def _as_before(value: Any) -> Any:
    """``value`` with each string as the golden reports wrote it: a dump's taint value shown as Python's repr (the
    report now writes it as JSON), an item that is no object without what it is (the report now says it), and the
    count check's list of what the audit does not model with matchFields in it."""
    if isinstance(value, dict):
        return {k: _as_before(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_before(v) for v in value]
    if not isinstance(value, str):
        return value
    value = _ITEM_SAID.sub(r"\1: not an object; skipped", value)
    # the count check no longer lists matchFields among what the audit does not model (it judges them now)
    value = value.replace("does not model is at work (a node", "does not model is at work (matchFields, a node")
    out, at = [], 0
    for m in _SHOWN_TAINT.finditer(value):
        if m.start() < at:
            continue
        try:
            raw, end = json.JSONDecoder().raw_decode(value, m.end())
        except json.JSONDecodeError:
            continue
        out += [value[at:m.end()], repr(raw)]
        at = end
    return "".join(out) + value[at:]


def golden() -> dict[str, Any]:
    return json.loads(gzip.decompress(GOLDEN.read_bytes()))
