"""Which files of a ``--cluster-dump`` directory are read, and what a YAML file may hold: ``.JSON``/``.YAML``/``.YML``
are read as their lower-case spellings are, every other entry is named in one note (never skipped without a word),
and a YAML file of several documents (``---``) is read a document at a time, each a List."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from gpu_node_pool.cli.commands import main

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "gpu-1", "labels": {"nvidia.com/gpu.present": "true"}},
        "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
        "status": {"capacity": {"nvidia.com/gpu": "1"}, "allocatable": {"nvidia.com/gpu": "1"}}}
PLUGIN = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "nvdp", "namespace": "kube-system"},
          "spec": {"selector": {"matchLabels": {"app": "nvdp"}}, "template": {"metadata": {"labels": {"app": "nvdp"}}, "spec": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
                                         "containers": [{"name": "p", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}]}}},
          "status": {"desiredNumberScheduled": 1}}
#: The plugin's pod on gpu-1, Ready: a dump holds the pods (without them the verdict is partial).
POD = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "nvdp-x1", "namespace": "kube-system", "ownerReferences": [{"kind": "DaemonSet", "name": "nvdp"}]},
       "spec": {"nodeName": "gpu-1", "containers": [{"name": "p", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}]},
       "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}


def as_list(*objects: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": list(objects)}


def audit(capsys, path: Path, *extra: str) -> tuple[int, str, str]:
    code = main(["audit", "--cluster-dump", str(path), *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_upper_case_suffixes_are_read_and_the_other_entries_are_named_in_one_note(capsys, tmp_path):
    d = tmp_path / "dump"
    d.mkdir()
    (d / "nodes.Yml").write_text(yaml.safe_dump(as_list(NODE, POD)))
    (d / "ds.JSON").write_text(json.dumps(as_list(PLUGIN)))
    (d / "README.txt").write_text("dumped on Monday\n")
    (d / "old").mkdir()
    code, text, _ = audit(capsys, d)
    assert "  kube-system/nvdp\n    node gpu-1: runs on all 1 node(s)\n" in text
    assert "the dump holds no DaemonSets" not in text
    assert (f"\nNotes:\n  not read in {d}: README.txt, old/ (the audit reads the directory's .json, .yaml and .yml "
            "files, not its other files or its subdirectories)\n") in text
    assert code == 0
    _, out, _ = audit(capsys, d, "--json")
    report = json.loads(out)
    assert report["summary"]["daemonSets"] == 1 and report["partial"] is False
    assert report["notes"][0].startswith(f"not read in {d}: README.txt, old/ ")


def test_a_directory_with_no_dump_file_names_what_it_holds(capsys, tmp_path):
    (tmp_path / "README.txt").write_text("x")
    code, _, err = audit(capsys, tmp_path)
    assert code == 2
    assert (f"--cluster-dump {tmp_path}: the directory has no .json/.yaml/.yml files (it holds README.txt); put the "
            "output of kubectl get ... -o json there") in err


def test_a_yaml_file_of_several_lists_is_read_whole(capsys, tmp_path):
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump(as_list(NODE, POD)) + "---\n" + yaml.safe_dump(as_list(PLUGIN, "not an object"))
                    + "---\n")
    code, text, err = audit(capsys, path)
    assert err == "" and "  kube-system/nvdp\n    node gpu-1: runs on all 1 node(s)\n" in text
    assert f"  dump: {path} document 2 items[1]: a string \"not an object\", not an object; skipped\n" in text  # each document's items named apart
    assert f"PARTIAL: {path} document 2 items[1]: a string \"not an object\", not an object; skipped\n" in text  # an item not read is never clean
    assert code == 1


def test_a_yaml_document_that_is_one_object_is_refused_with_the_list_to_put_it_in(capsys, tmp_path):
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump(as_list(NODE)) + "---\n" + yaml.safe_dump(PLUGIN))
    code, _, err = audit(capsys, path)
    assert code == 2
    assert (f"--cluster-dump {path} document 2: a kubectl List is expected (the object kubectl get ... -o json writes: "
            "kind List, or a typed list such as NodeList, with an items array of objects), got an object of kind "
            "'DaemonSet' "
            "(one object: put it, with the others, in the items of a List: apiVersion: v1, kind: List, items: [...]);"
            ) in err
    single = tmp_path / "node.yaml"
    single.write_text(yaml.safe_dump(NODE))
    code, _, err = audit(capsys, single)
    assert code == 2 and "array of objects), got an object of kind 'Node' (one " in err and f"--cluster-dump {single}: " in err
