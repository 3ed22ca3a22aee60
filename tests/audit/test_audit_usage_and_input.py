"""What a user sees when ``gpupool audit`` is given a bad option value or a dump it cannot use: a usage
error (exit 64) or an input error (exit 2) of one line naming the option, the path or value and the fix;
never an internal error, never a silent pass."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from audit_cluster import acceptance_objects, as_list
from conftest import ROOT

from gpu_node_pool.audit.declared import Declared, DeclaredPool
from gpu_node_pool.audit.report import run_audit
from gpu_node_pool.audit.snapshot import Snapshot
from gpu_node_pool.cli.commands import main
from gpu_node_pool.k8s.taints import Taint

EXAMPLE = ROOT / "examples" / "audit" / "cluster.json"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if "error" in line]


# --- --timeout: a number of seconds above 0 and at most one day, whatever the source ----------------


@pytest.mark.parametrize("value", ["-1", "0", "nan", "inf", "-inf", "soon"])
@pytest.mark.parametrize("source", [["--kubeconfig", "kc.yaml"], ["--cluster-dump", str(EXAMPLE)]])
def test_a_timeout_that_is_not_seconds_above_0_is_a_usage_error_of_one_line(capsys, value, source):
    code, out, err = run(capsys, "audit", *source, f"--timeout={value}")
    assert code == 64, out + err
    assert out == ""
    [line] = error_lines(err)
    assert line.startswith("gpupool audit: error: argument --timeout:")
    assert repr(value) in line
    assert "internal error" not in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [
    ["audit", "--cluster-dump", str(EXAMPLE), "--timeout"],
    ["check", "--stack", "s", "--program-timeout"],
    ["check", "--stack", "s", "--render-timeout"],
    ["plan", "--stack", "s", "--render-timeout"],
])
def test_every_timeout_option_refuses_with_the_same_rule(capsys, argv):
    code, _, err = run(capsys, *argv, "nan")
    assert code == 64
    [line] = error_lines(err)
    assert line.endswith(f"argument {argv[-1]}: 'nan' must be a number of seconds above 0 and at most 86400 (one day), e.g. 30")


def kubeconfig(tmp_path) -> str:
    """A kubeconfig whose server nothing answers (nothing may reach it: the option is refused first)."""
    path = tmp_path / "kc.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "x",
        "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:9"}}],
        "users": [{"name": "u", "user": {"token": "not-a-real-token"}}],
        "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}]}))
    return str(path)


@pytest.mark.parametrize("value", ["9999999999", "1e20", "1e308", "86400.5"])
@pytest.mark.parametrize("argv", [
    ["audit", "--kubeconfig", "KC", "--timeout"],
    ["audit", "--cluster-dump", str(EXAMPLE), "--timeout"],
    ["check", "--stack", "s", "--program-timeout"],
    ["plan", "--stack", "s", "--render-timeout"],
])
def test_a_timeout_past_one_day_is_a_usage_error_naming_the_option_the_value_and_the_bound(capsys, tmp_path, argv, value):
    argv = [kubeconfig(tmp_path) if a == "KC" else a for a in argv]
    code, out, err = run(capsys, *argv, value)
    assert code == 64, out + err
    [line] = error_lines(err)
    assert line.endswith(f"argument {argv[-1]}: '{value}' must be a number of seconds above 0 and at most 86400 "
                         "(one day), e.g. 30")
    assert "internal error" not in err and "Traceback" not in err and "OverflowError" not in err


def test_a_timeout_above_0_is_accepted(capsys):
    code, _, err = run(capsys, "audit", "--cluster-dump", str(EXAMPLE), "--timeout", "0.5")
    assert code == 1, err  # the example's findings


def test_a_timeout_of_one_day_is_accepted(capsys):
    code, _, err = run(capsys, "audit", "--cluster-dump", str(EXAMPLE), "--timeout", "86400")
    assert code == 1, err


# --- a dump that is not UTF-8, a directory that cannot be listed ---------------------------------


def dump_bytes(suffix: str) -> bytes:
    objects = as_list(acceptance_objects())
    text = json.dumps(objects) if suffix == ".json" else yaml.safe_dump(objects)
    return text.encode().replace(b"gpu-inf-2", b"gpu-inf-\xff2", 1)


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_a_dump_that_is_not_utf8_is_refused_naming_the_file_and_the_byte_offset(capsys, tmp_path, suffix):
    dump = tmp_path / f"cluster{suffix}"
    data = dump_bytes(suffix)
    dump.write_bytes(data)
    offset = data.index(b"\xff")
    code, out, err = run(capsys, "audit", "--cluster-dump", str(dump))
    assert code == 2 and out == ""
    assert err == (f"error: --cluster-dump {dump}: not UTF-8 (byte 0xff at offset {offset}); kubectl "
                   "writes UTF-8: write the dump again with kubectl get nodes,daemonsets,pods,events -A -o json, or "
                   "convert it (iconv -t UTF-8)\n")


def test_a_dump_not_utf8_past_the_first_megabyte_gets_its_offset_in_the_file(capsys, tmp_path):
    objects = acceptance_objects()
    filler = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big", "namespace": "ops"},
              "data": {"x": "é" * (700 << 10)}}  # two bytes a character: the bad byte is past 1 MiB
    data = json.dumps(as_list([filler, *objects]), ensure_ascii=False).encode()
    data = data.replace(b"gpu-inf-2", b"gpu-inf-\xc32", 1)
    dump = tmp_path / "cluster.json"
    dump.write_bytes(data)
    offset = data.index(b"\xc32")
    assert offset > 1 << 20
    code, _, err = run(capsys, "audit", "--cluster-dump", str(dump))
    assert code == 2
    assert f"not UTF-8 (byte 0xc3 at offset {offset})" in err


def test_a_dump_directory_that_cannot_be_listed_names_the_option_and_the_path(capsys, tmp_path, monkeypatch):
    udir = tmp_path / "udir"
    udir.mkdir()

    def refused(self):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "iterdir", refused)  # the tests may run as root, whom chmod 000 does not stop
    code, out, err = run(capsys, "audit", "--cluster-dump", str(udir))
    assert code == 2 and out == ""
    assert err == (f"error: --cluster-dump {udir}: cannot list the directory (Permission denied); give a directory "
                   "you can read (ls -ld it), or the dump file itself\n")


# --- an object without a name, objects of kinds the audit does not read -----------------------


@pytest.mark.parametrize("metadata", [None, {}, {"labels": {"a": "b"}}, {"name": ""}])
def test_a_node_without_a_name_is_skipped_and_the_verdict_partial_not_a_pool_named_empty(capsys, tmp_path, metadata):
    objects = acceptance_objects()
    node = next(o for o in objects if o["kind"] == "Node" and o["metadata"]["name"] == "gpu-inf-1")
    index = objects.index(node)
    if metadata is None:
        del node["metadata"]
    else:
        node["metadata"] = metadata
    dump = tmp_path / "cluster.json"
    dump.write_text(json.dumps(as_list(objects)))
    code, out, _ = run(capsys, "audit", "--cluster-dump", str(dump), "--json", "--fail-on", "none")
    report = json.loads(out)
    assert code == 0 and report["partial"] is True
    [line] = report["objectsSkipped"]
    assert line.startswith(f"Node at {dump} items[{index}]: ")
    assert line.endswith("(every Kubernetes object has a name; a hand-made dump?); skipped")
    assert all(p["name"] for p in report["gpuPools"])
    assert report["summary"]["nodes"] == 3


def test_objects_of_kinds_the_audit_does_not_read_are_counted_by_kind_in_one_note(capsys, tmp_path):
    others = [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": f"web-{i}", "namespace": "ops"}}
              for i in range(3)]
    others += [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "ops"}},
               {"apiVersion": "v1", "metadata": {"name": "no-kind"}}]
    dump = tmp_path / "cluster.json"
    dump.write_text(json.dumps(as_list([*acceptance_objects(), *others])))
    _, out, _ = run(capsys, "audit", "--cluster-dump", str(dump), "--json")
    [note] = [n for n in json.loads(out)["notes"] if "left out" in n]
    assert note == ("left out, not judged: 1 item(s) without a kind, 3 Deployment, 1 Service; the audit reads Node, "
                    "DaemonSet, Pod and Event objects and the admission policies, no other kind")
    _, text, _ = run(capsys, "audit", "--cluster-dump", str(dump))
    assert "\nNotes:\n" in text and f"\n  {note}\n" in text


# --- the what-if cells ---------------------------------------------------------------------------


def ops_daemonset(name: str, pod_spec: dict) -> dict:
    """A DaemonSet of namespace ``ops`` with ``pod_spec`` and the selector and container the API server requires."""
    return {"kind": "DaemonSet", "metadata": {"name": name, "namespace": "ops"},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {**pod_spec, "containers": [{"name": name, "image": "busybox:1.37"}]}}}}


def test_a_what_if_cell_not_judged_says_not_judged_once():
    snapshot = Snapshot("dump")
    snapshot.add("Node", {"kind": "Node", "metadata": {"name": "cpu-1", "labels": {"kubernetes.io/os": "linux"}}})
    snapshot.add("DaemonSet", ops_daemonset("agent", {"nodeSelector": {"example.com/rack": "a"},
                                                      "tolerations": [{"operator": "Exists"}]}))
    pool = DeclaredPool(0, "gpu", "eks-managed", [Taint.parse("nvidia.com/gpu=true:NoSchedule")], {"gpu-node-pools/pool": "gpu"})
    report = run_audit(snapshot, declared=Declared("s", [pool], []))
    [cell] = report.to_json()["daemonSets"][0]["whatIf"].values()
    assert cell["status"] == "notJudged"
    assert cell["summary"].startswith("not judged: its node selection reads example.com/rack")
    assert all("not judged: not judged" not in d for d in cell["details"])
    assert "what-if pool gpu as declared: not judged: its node selection reads example.com/rack" in report.to_text()
    assert "not judged: not judged" not in report.to_text()


def test_a_what_if_cell_of_a_pool_with_no_node_yet_speaks_of_its_new_nodes_and_keeps_its_status():
    snapshot = Snapshot("dump")
    snapshot.add("Node", {"kind": "Node", "metadata": {"name": "gpu-1", "labels": {"gpu-node-pools/pool": "live"}}})
    everywhere = {"tolerations": [{"operator": "Exists"}]}
    snapshot.add("DaemonSet", ops_daemonset("agent", everywhere))
    snapshot.add("DaemonSet", ops_daemonset("logs", {}))
    taint = [Taint.parse("nvidia.com/gpu=true:NoSchedule")]
    pools = [DeclaredPool(0, "gpu", "eks-managed", taint, {"gpu-node-pools/pool": "gpu"}),  # no node yet
             DeclaredPool(1, "live", "eks-managed", taint, {"gpu-node-pools/pool": "live"})]
    stack_ds = {"kind": "DaemonSet", "metadata": {"name": "plugin", "namespace": "kube-system"},
                "spec": {"template": {"spec": {}}}}
    report = run_audit(snapshot, declared=Declared("s", pools, [stack_ds]))
    cells = {(d["name"], pool): cell for d in report.to_json()["daemonSets"] for pool, cell in d["whatIf"].items()}
    agent, logs = cells[("agent", "pool gpu as declared")], cells[("logs", "pool gpu as declared")]
    assert (agent["status"], agent["summary"]) == ("runs", "would run on its new nodes")
    assert (logs["status"], logs["summary"]) == (
        "doesNotRun", "would not run on its new nodes: nvidia.com/gpu=true:NoSchedule not tolerated")
    assert cells[("agent", "pool live as declared")]["summary"] == "runs on all 1 node(s)"  # a live node: counted
    text = report.to_text()
    assert "what-if pool gpu as declared: would run on its new nodes" in text
    assert "what-if pool gpu as declared: runs on all" not in text
    [stack] = [f for f in report.findings if f.code == "whatif-stack-daemonset" and f.pool == "gpu"]
    assert stack.message == ("as the stack would deploy it, it would not run on pool gpu's new nodes: "
                             "nvidia.com/gpu=true:NoSchedule not tolerated")
    jsonschema.validate(report.to_json(), json.loads((ROOT / "components" / "gpu_node_pool" / "audit"
                                                      / "report.schema.json").read_text()))


def test_a_yaml_dump_with_a_syntax_error_names_its_file_line_and_column(capsys, tmp_path):
    dump = tmp_path / "cluster.yaml"
    dump.write_text("apiVersion: v1\nkind: List\nitems:\n\t- a\n")  # a tab where YAML takes spaces only
    code, out, err = run(capsys, "audit", "--cluster-dump", str(dump))
    assert code == 2 and out == ""
    assert err.startswith(f"error: --cluster-dump {dump}:4:1: not valid YAML (found character that cannot start any "
                          "token) (the character there is a tab: YAML indents with spaces only, "
                          "https://yaml.org/spec/1.2.2/#61-indentation-spaces); write it with kubectl get"), err


def test_a_fifo_dump_is_refused_at_once_not_waited_on(capsys, tmp_path):
    import os

    fifo = tmp_path / "cluster.json"
    os.mkfifo(fifo)  # nothing will ever write to it: opening it to read would block
    code, out, err = run(capsys, "audit", "--cluster-dump", str(fifo))
    assert code == 2 and out == ""
    assert err.startswith(f"error: --cluster-dump {fifo}: is a FIFO (named pipe), not a regular file: reading one "
                          "waits until something writes to it"), err
    assert "> cluster.json" in err
