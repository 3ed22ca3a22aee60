"""A misspelt ``--policy-pack-config``: each line names the closest policy id, property or level, and the
first line names the file; the preview's pack (both layouts) refuses with the same lines."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main
from gpu_node_pool.policies.pack_config import check_engine_config

TYPOS = {
    "gpu-toleration-alowlist": "advisory",
    "gpu-toleration-allowlist": {"enforcementLevel": "mandatory", "allowedNamespace": ["ml"]},
    "noexecute-gpu-taint": "advisorry",
}


def plan_error_lines(capsys, tmp_path, config: dict) -> list[str]:
    path = tmp_path / "policy-config.json"
    path.write_text(json.dumps(config))
    code = main(["plan", "--stack", "dev", "--project-dir", str(ROOT), "--policy-pack-config", str(path)])
    assert code == 2
    return capsys.readouterr().err.strip().splitlines()


def test_plan_names_the_file_and_the_closest_id_property_and_level(capsys, tmp_path):
    lines = plan_error_lines(capsys, tmp_path, TYPOS)
    assert lines[0] == f"error: invalid policy pack config {tmp_path / 'policy-config.json'}:"
    assert "  gpu-toleration-alowlist: no such policy in pack gpu-node-pools; did you mean 'gpu-toleration-allowlist'?" in lines
    assert ("  gpu-toleration-allowlist.allowedNamespace: no such property of policy gpu-toleration-allowlist (it takes "
            "allowedNamespaces, extraTaints); did you mean 'allowedNamespaces'? write \"allowedNamespaces\": [\"ml\"]") in lines
    assert any(ln.startswith("  noexecute-gpu-taint: 'advisorry' is not an enforcement level") and
               ln.endswith("did you mean 'advisory'?") for ln in lines)


def test_a_name_close_to_nothing_still_lists_what_there_is(capsys, tmp_path):
    lines = plan_error_lines(capsys, tmp_path, {"zzz": "advisory", "gpu-toleration-allowlist": {"qqq": 1}})
    assert any(ln.startswith("  zzz: no such policy in pack gpu-node-pools (no-imperative-taints, ") for ln in lines)
    assert ("  gpu-toleration-allowlist.qqq: no such property of policy gpu-toleration-allowlist (it takes "
            "allowedNamespaces, extraTaints); remove it, or set one of those") in lines, lines


@pytest.mark.parametrize("layout", ["per-rule", "per-level"])
def test_the_preview_pack_gives_the_same_hints_in_both_layouts(layout):
    entries = {"gpu-toleration-alowlist": ("advisory", {}),
               "gpu-toleration-allowlist": ("mandatory", {"allowedNamespace": ["ml"]})}
    with pytest.raises(ValueError) as err:
        check_engine_config(entries, layout)
    assert "did you mean 'gpu-toleration-allowlist'?" in str(err.value)
    assert "did you mean 'allowedNamespaces'?" in str(err.value)


def test_a_misspelt_key_of_an_exemption_is_named_with_the_keys_it_takes_and_the_fix(capsys, tmp_path):
    config = {"daemonsets-tolerate-gpu-taints": {"enforcementLevel": "mandatory", "exemptions": [{"namespce": "logging"}]}}
    lines = plan_error_lines(capsys, tmp_path, config)
    assert lines[1:] == [
        "  daemonsets-tolerate-gpu-taints.exemptions[0].namespce: no such key of an item of exemptions (it takes "
        "namespace, name); did you mean 'namespace'? write \"namespace\": \"logging\""], lines
    assert not any("was unexpected" in ln or "is a required property" in ln for ln in lines)


@pytest.mark.parametrize(
    ("props", "line"),
    [
        ({"exemptions": [{"name": "agent"}]},
         "daemonsets-tolerate-gpu-taints.exemptions[0]: {\"name\": \"agent\"} has no 'namespace', which an item of "
         "exemptions needs (it takes namespace, name); add \"namespace\": <namespace>"),
        ({"exemptions": ["kube-system"]},
         "daemonsets-tolerate-gpu-taints.exemptions[0]: \"kube-system\" is not an object (DaemonSets not checked: "
         "{namespace, name}; without name (or '*') the whole namespace); give an object"),
        ({"extraTaints": ["a=b:NoScheduel"]},
         "daemonsets-tolerate-gpu-taints.extraTaints[0]: \"a=b:NoScheduel\" is not a taint in the kubelet form "
         "key=value:Effect (the value may be empty: key:Effect) (Taints of GPU pools outside this stack, kubelet form "
         "key=value:Effect); fix or remove it"),
        ({"allowedNamespaces": ["Not_A_NS"]},
         "daemonsets-tolerate-exactly.allowedNamespaces[0]: \"Not_A_NS\" is not a namespace name, which is a DNS-1123 "
         "label"),
    ],
    ids=["missing-key", "wrong-type", "wrong-form", "not-a-namespace"],
)
def test_each_schema_problem_names_its_path_value_and_fix(capsys, tmp_path, props, line):
    policy = line.split(".", 1)[0]  # the policy whose property the line names
    lines = plan_error_lines(capsys, tmp_path, {policy: props})
    assert any(said.startswith(f"  {line}") for said in lines), lines
