"""A dump's values are shown as JSON (never a Python repr), and a dump that is no JSON or YAML a kubectl could write
is refused at its file:line:column in plain words: NaN, an empty file, text after the document, a key written twice,
a tab; an item that is no object says what it is."""

from __future__ import annotations

import json

import pytest

from gpu_node_pool.cli.commands import main


def _run(capsys, path, *extra):
    code = main(["audit", "--cluster-dump", str(path), *extra])
    out, err = capsys.readouterr()
    return code, out, err


def _node(**spec):
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "labels": {"nvidia.com/gpu.present": "true"}},
            "spec": spec, "status": {"allocatable": {"nvidia.com/gpu": "1"}}}


def test_a_malformed_taint_is_shown_as_json_in_text_and_json(capsys, tmp_path):
    dump = tmp_path / "d.json"
    dump.write_text(json.dumps({"kind": "List", "items": [_node(taints=[
        {"key": "example.com/drain", "value": "yes", "effect": "NO_SCHEDULE"}])]}))
    code, out, _ = _run(capsys, dump)
    shown = 'spec.taints[0] {"key": "example.com/drain", "value": "yes", "effect": "NO_SCHEDULE"}'
    assert shown in out and "{'key'" not in out
    code, out, _ = _run(capsys, dump, "--json")
    assert shown in out.replace('\\"', '"') and "{'key'" not in out


def test_fields_of_the_wrong_shape_are_shown_as_json(capsys, tmp_path):
    dump = tmp_path / "d.json"
    node = _node(taints={"key": "x"})
    node["metadata"]["labels"] = ["a"]
    dump.write_text(json.dumps({"kind": "List", "items": [node]}))
    _, out, _ = _run(capsys, dump)
    assert 'metadata.labels is an array of 1 item(s) ["a"], where' in out
    assert 'spec.taints is an object {"key": "x"}, where' in out
    assert "['a']" not in out and "{'key'" not in out


@pytest.mark.parametrize(("text", "said"), [
    ('{"kind":"List","items":[{"kind":"Node","status":{"allocatable":{"nvidia.com/gpu":NaN}}}]}',
     "d.json:1:82: not valid JSON: NaN is not a JSON number (JSON has no NaN or Infinity: RFC 8259 section 6)"),
    ('{"kind":"List","items":[{"a":"NaN", "b": [-Infinity]}]}', "d.json:1:43: not valid JSON: -Infinity is not a JSON"),
    ("", "d.json: the file holds no JSON document (it is empty or only white space)"),
    ("\n  \n", "d.json: the file holds no JSON document (it is empty or only white space)"),
    ('{"kind":"List","items":[]} trailing', "d.json:1:28: not valid JSON: text after the end of the JSON document"),
    ('{"kind":"List",\n "items":[}', "d.json:2:11: not valid JSON: a JSON value was expected here"),
])
def test_a_dump_that_is_no_json_is_refused_at_its_place_in_plain_words(capsys, tmp_path, text, said):
    (tmp_path / "d.json").write_text(text)
    code, out, err = _run(capsys, tmp_path / "d.json")
    assert code == 2 and out == ""
    assert f"--cluster-dump {tmp_path / said}" in err, err
    assert "char " not in err and "Expecting" not in err


def test_a_yaml_dump_with_a_key_written_twice_is_refused_at_the_second(capsys, tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text("kind: List\nitems:\n- kind: Node\n  metadata:\n    name: g\n    name: h\n")
    code, _, err = _run(capsys, path)
    assert code == 2
    assert f'--cluster-dump {path}:6:5: not valid YAML (key "name" appears again (first on line 5)' in err
    assert "keep one of the two" in err


def test_a_tab_in_a_yaml_dump_is_named(capsys, tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text("kind: List\nitems:\n\t- a\n")
    code, _, err = _run(capsys, path)
    assert code == 2 and f"{path}:3:1: not valid YAML" in err
    assert "the character there is a tab: YAML indents with spaces only" in err


def test_an_item_that_is_no_object_says_what_it_is(capsys, tmp_path):
    path = tmp_path / "d.json"
    path.write_text('{"kind":"List","items":[1, "x", null, [2]]}')
    code, out, _ = _run(capsys, path)
    for i, what in enumerate(("a number 1", 'a string "x"', "null", "an array of 1 item(s)")):
        assert f"PARTIAL: {path} items[{i}]: {what}, not an object; skipped" in out
    assert code == 1
