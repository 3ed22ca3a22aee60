"""Text reports never print a control character from their input: a newline or an ESC sequence in
a cluster dump's Event message or a stack-file key cannot forge a line (as CVE-2021-25743 did in kubectl)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parents[1] / "audit"))
from audit_cluster import PENDING_MESSAGE, acceptance_objects, as_list  # noqa: E402

from gpu_node_pool.cli.commands import main  # noqa: E402
from gpu_node_pool.text.terminal import _TABLE, escape_control, terminal_text  # noqa: E402

FORGED = "0 mandatory, 0 advisory, 0 info; exit 0 (--fail-on mandatory)"


def test_escape_control_escapes_every_control_and_keeps_text():
    assert escape_control("a\nb\r\tc\x1b[2K\x00\x7f\x9b") == "a\\nb\\r\\tc\\x1b[2K\\x00\\x7f\\x9b"
    assert escape_control("l\u2028m\u202eevil\u2066") == "l\\u2028m\\u202eevil\\u2066"
    assert escape_control("nvidia.com/gpu=présent:NoSchedule C:\\x") == "nvidia.com/gpu=présent:NoSchedule C:\\x"
    assert terminal_text(["one", "", "two\nthree"]) == "one\n\ntwo\\nthree"


@given(st.text())
def test_no_character_that_needs_escaping_is_left_as_it_is(text):
    shown = escape_control(text)
    assert not any(ord(c) in _TABLE for c in shown)  # every escape is plain ASCII
    assert shown == ("".join(_TABLE.get(ord(c), c) for c in text))


def test_a_forged_summary_in_an_event_message_stays_inside_its_line(capsys, tmp_path):
    objects = acceptance_objects()
    event = next(o for o in objects if o["kind"] == "Event")
    event["message"] = PENDING_MESSAGE + "\n\x1b[1A\x1b[2K" + FORGED
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps(as_list(objects)))
    code = main(["audit", "--cluster-dump", str(dump)])
    out = capsys.readouterr().out
    assert code == 1
    lines = out.splitlines()
    assert FORGED not in lines                       # no line of its own
    assert lines[-1].endswith("exit 1 (--fail-on mandatory)")
    assert "\x1b" not in out
    assert f"\\n\\x1b[1A\\x1b[2K{FORGED}" in out      # shown, escaped, where the message is


STACK = """\
config:
  gpu-node-pools:cluster: {name: ml-prod, nodeRoleArn: "arn:aws:iam::444455556666:role/ml-prod-gpu-node"}
  "gpu-node-pools:extra\\nexit 0: clean\\e[0m": 1
  gpu-node-pools:pools:
    - name: burst
      backend: karpenter
      instanceFamilies: [g6e]
      nodeClass: {}
      limits: {nvidia.com/gpu: 8}
"""


@pytest.mark.parametrize("command", ["plan", "validate", "check", "render"])
def test_a_forged_line_in_a_stack_file_key_stays_inside_its_line(capsys, temp_project, tmp_path, command):
    project = temp_project("forged", STACK)
    extra = ["--out", str(tmp_path / "out")] if command == "render" else []
    code = main([command, "--stack", "forged", "--project-dir", str(project), *extra])
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert code == 2, text
    assert "exit 0: clean" not in text.splitlines()
    assert "\x1b" not in text
    assert "gpu-node-pools:extra\\nexit 0: clean\\x1b[0m: unknown config key" in text


def test_a_value_shows_a_users_text_inside_a_container_as_written_and_no_object_address():
    import pulumi

    from gpu_node_pool import GpuNodePoolArgs
    from gpu_node_pool.config import ConfigError
    from gpu_node_pool.text.terminal import shown

    with pytest.raises(ConfigError) as err:
        GpuNodePoolArgs(pool=["team at 0x1f>"], cluster={}).validated()
    assert "GpuNodePoolArgs.pool: got ['team at 0x1f>'] (list);" in str(err.value)
    assert shown({"key": (" at 0xab>", pulumi.Output.from_input("x"))}) == (
        "{'key': (' at 0xab>', <pulumi.output.Output object>)}")
    assert shown(object()) == "<object object>" and shown(len) == "<built-in function len>"
