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
    assert ("  gpu-toleration-allowlist: Additional properties are not allowed ('allowedNamespace' was unexpected); "
            "did you mean 'allowedNamespaces'?") in lines
    assert any(ln.startswith("  noexecute-gpu-taint: 'advisorry' is not an enforcement level") and
               ln.endswith("did you mean 'advisory'?") for ln in lines)


def test_a_name_close_to_nothing_still_lists_what_there_is(capsys, tmp_path):
    lines = plan_error_lines(capsys, tmp_path, {"zzz": "advisory", "gpu-toleration-allowlist": {"qqq": 1}})
    assert any(ln.startswith("  zzz: no such policy in pack gpu-node-pools (no-imperative-taints, ") for ln in lines)
    assert any(ln.endswith("('qqq' was unexpected); it takes allowedNamespaces, extraTaints") for ln in lines), lines


@pytest.mark.parametrize("layout", ["per-rule", "per-level"])
def test_the_preview_pack_gives_the_same_hints_in_both_layouts(layout):
    entries = {"gpu-toleration-alowlist": ("advisory", {}),
               "gpu-toleration-allowlist": ("mandatory", {"allowedNamespace": ["ml"]})}
    with pytest.raises(ValueError) as err:
        check_engine_config(entries, layout)
    assert "did you mean 'gpu-toleration-allowlist'?" in str(err.value)
    assert "did you mean 'allowedNamespaces'?" in str(err.value)
