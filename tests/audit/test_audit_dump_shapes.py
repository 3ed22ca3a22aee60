"""A dump document that is not a kubectl List is refused in the words of JSON and the Kubernetes API (null, an
array, an object of kind List without items), never a Python type name, with what is expected and the fix."""

from __future__ import annotations

import pytest

from gpu_node_pool.cli.commands import main

EXPECTED = ("a kubectl List is expected (the object kubectl get ... -o json writes: kind List, or a typed list such as "
            "NodeList, with an items array of objects), got ")
FIX = "; write it with kubectl get nodes,daemonsets,pods,events -A -o json"


@pytest.mark.parametrize(("suffix", "text", "got"), [
    (".json", "[]", "an empty array"),
    (".json", '[{"kind": "Node"}]', "an array of 1 item(s) (the items alone: put them in a List: apiVersion: v1, "
                                     "kind: List, items: [...])"),
    (".json", "null", "null"),
    (".json", '"nodes"', "a string \"nodes\""),
    (".json", "42", "a number 42"),
    (".json", '{"kind": "List"}', "an object of kind List without items"),
    (".json", '{"kind": "NodeList", "items": {}}', "an object of kind NodeList whose items is an object, not an array"),
    (".json", '{"items": []}', "an object without kind"),
    (".json", '{"kind": 7, "items": []}', "an object whose kind is a number 7"),
    (".yaml", "- kind: Node\n", "an array of 1 item(s) (the items alone"),
    (".yaml", "", "no document (an empty YAML file, or only null documents)"),
    (".yaml", "kind: List\n", "an object of kind List without items"),
])
def test_a_document_that_is_no_list_is_named_in_json_terms_with_the_fix(capsys, tmp_path, suffix, text, got):
    path = tmp_path / f"dump{suffix}"
    path.write_text(text)
    assert main(["audit", "--cluster-dump", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: --cluster-dump {path}: {EXPECTED}{got}") and FIX in err
    assert len(err.splitlines()) == 1
    for python_name in ("'list'", "NoneType", "'dict'", "'str'", "'int'"):
        assert python_name not in err
