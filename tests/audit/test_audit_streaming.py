"""The audit streams: the incremental List reader decodes what ``json.load`` decodes, the
reduced snapshot gives the report the whole-object audit gave, and no Pulumi is imported."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import sys

import pytest
from audit_cluster import ACCEPTANCE_STACK, acceptance_objects, as_list
from conftest import ROOT
from streaming_cases import CASES, golden, normalised

from gpu_node_pool.audit.jsonstream import ListStream
from gpu_node_pool.cli.commands import main


@pytest.mark.parametrize("name", list(CASES))
def test_the_streaming_audit_reports_what_the_whole_file_audit_reported(name, tmp_path):
    dump = CASES[name](tmp_path)
    argv = ["audit", "--cluster-dump", str(dump), "--json"]
    if name.endswith("+stack"):
        shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
        shutil.copy(ROOT / "__main__.py", tmp_path / "__main__.py")
        (tmp_path / "stacks").mkdir()
        (tmp_path / "stacks" / "Pulumi.acc.yaml").write_text(ACCEPTANCE_STACK)
        argv += ["--stack", "acc", "--project-dir", str(tmp_path)]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    report = normalised(json.loads(out.getvalue()), tmp_path)
    before = golden()[name]
    assert code == before["exitCode"]
    for key in before:  # key by key, so that a failure names the part of the report that changed
        assert report[key] == before[key], key
    assert report == before


@pytest.mark.parametrize("chunk", [1, 7, 4096, 1 << 20])
def test_the_list_reader_decodes_each_item_as_json_load_does(tmp_path, chunk):
    objs = acceptance_objects() + [1.5e3, -0.0, 12345678901234567890, "ünï\u00e9 \" \n", None, True, [], {}]
    path = tmp_path / "dump.json"
    path.write_text(json.dumps({**as_list(objs), "kind": "List"}, indent=1, ensure_ascii=chunk % 2 == 0))
    stream = ListStream(path, chunk=chunk)
    assert list(stream.items()) == json.loads(path.read_text())["items"]
    assert stream.header == {**json.loads(path.read_text()), "items": []}


@pytest.mark.parametrize("text", ['{"items": [1, 2,, 3]}', '{"a": 1}\n x', '{"items": [{"a": "b\n"}]}', "{not json",
                                  '{"items": [1', '{"items": [{"k": "unterminated'])
def test_the_list_reader_fails_where_json_load_fails_with_the_same_place(tmp_path, text):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(json.JSONDecodeError) as want:
        json.loads(text)
    for chunk in (2, 1 << 20):
        with pytest.raises(json.JSONDecodeError) as got:
            list(ListStream(path, chunk=chunk).items())
        assert (got.value.lineno, got.value.colno, got.value.pos) == (want.value.lineno, want.value.colno, want.value.pos)


def test_a_dump_audit_imports_no_pulumi(tmp_path):
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps(as_list(acceptance_objects())))
    probe = ("import sys\nfrom gpu_node_pool.cli.commands import main\n"
             f"code = main(['audit', '--cluster-dump', {str(dump)!r}, '--json'])\n"
             "print(code, sorted(m for m in sys.modules if m.split('.')[0] in ('pulumi', 'pulumi_policy')))")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT / "components"), "PATH": "/usr/bin:/bin"})
    code, _, loaded = run.stdout.strip().splitlines()[-1].partition(" ")
    assert code == "1" and loaded == "[]", run.stdout[-500:]


def test_a_yaml_dump_reports_what_the_same_json_dump_reported(tmp_path):
    import yaml

    dump = tmp_path / "dump.yaml"
    dump.write_text(yaml.safe_dump(as_list(acceptance_objects())))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["audit", "--cluster-dump", str(dump), "--json"])
    report = normalised(json.loads(out.getvalue()), tmp_path)
    assert report == {**golden()["acceptance"], "source": "dump <dir>/dump.yaml"}
