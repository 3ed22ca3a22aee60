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


@pytest.mark.parametrize(("text", "said"), [
    ("", "is empty;"),
    ("  \n", "is empty;"),
    ('{"all":', "is not valid JSON at {path}:1:8 (Expecting value);"),
])
def test_an_empty_or_broken_config_file_is_said_plainly_with_the_place_and_the_fix(tmp_path, text, said):
    from gpu_node_pool.policies.pack_config import PolicyConfigError, load_policy_pack_config

    path = tmp_path / "policy.json"
    path.write_text(text)
    with pytest.raises(PolicyConfigError) as caught:
        load_policy_pack_config(path)
    message = str(caught.value)
    assert said.format(path=path) in message, message
    assert message.endswith('e.g. {"all": "advisory"} (as for pulumi preview --policy-pack-config)')
    assert "char" not in message
