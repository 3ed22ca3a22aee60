"""A policy pack config of an odd shape is invalid input (exit 2) naming the entry and the fix, never a crash."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main

EXAMPLE = ROOT / "examples" / "violating"


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"no-imperative-taints": {"enforcementLevel": ["mandatory"]}},
         'no-imperative-taints.enforcementLevel: ["mandatory"] is not an enforcement level: give one of'),
        ({"no-imperative-taints": {"enforcementLevel": {"level": "mandatory"}}},
         'no-imperative-taints.enforcementLevel: {"level": "mandatory"} is not an enforcement level'),
        ({"no-imperative-taints": {"enforcementLevel": None}},
         "no-imperative-taints.enforcementLevel: null is not an enforcement level"),
        ({"no-imperative-taints": 3}, "no-imperative-taints: 3 is neither an enforcement level nor an object"),
        ({"no-imperative-taints": None}, "no-imperative-taints: null is neither an enforcement level nor an object"),
        ({"no-imperative-taints": ["mandatory"]},
         'no-imperative-taints: ["mandatory"] is neither an enforcement level nor an object'),
        ({"no-imperative-taints": True}, "no-imperative-taints: true is neither an enforcement level nor an object"),
        ({"all": ["mandatory"]}, 'all: ["mandatory"] is not an enforcement level'),
        ({"all": {"enforcementLevel": ["mandatory"]}}, 'all: {"enforcementLevel": ["mandatory"]} is not an'),
        ([{"no-imperative-taints": "mandatory"}], "must be a JSON object keyed by policy name or 'all'"),
        (7, "must be a JSON object keyed by policy name or 'all'"),
    ],
)
def test_an_odd_shape_is_a_clear_config_error(capsys, tmp_path, config, expected):
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(config))
    code = main(["plan", "--stack", "demo", "--project-dir", str(EXAMPLE), "--policy-pack-config", str(path)])
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert "internal error" not in out + err and "Traceback" not in out + err
    assert expected in out + err
    assert str(path) in out + err
