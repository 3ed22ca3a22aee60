"""The text report of ``gpupool plan``/``check`` wraps a long finding: its message on indented lines below its
heading, at most :data:`~gpu_node_pool.text.wrap.WIDTH` columns each, never broken inside a URN, a path, a quoted
value or a YAML snippet, and with nothing lost (joining the lines with one space gives the message back);
``--json`` and SARIF keep the message on one line."""

from __future__ import annotations

import itertools
import json
import re

from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_node_pool.cli.commands import main
from gpu_node_pool.plan.report import violation_lines
from gpu_node_pool.text.wrap import WIDTH, wrap_text

URN = "urn:pulumi:dev::gpu-node-pools::gpu-node-pools:index:GpuNodePool$aws:eks/nodeGroup:NodeGroup::" + "x" * 120
PATH = "/home/ci/builds/" + "a" * 8 + "/charts/nvidia-device-plugin/templates/daemonset.yml"
SNIPPET = "{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}"
QUOTED = "'bad value with spaces!'"
LONG = (f"DaemonSet monitoring/node-agent of {URN} (rendered from {PATH}) will not run on GPU nodes: "
        f"nodeSelector['gpu'] {QUOTED} is refused. Tolerate the GPU pools' taints exactly instead, one item "
        f"each: {SNIPPET}, and select GPU nodes (e.g. nvidia.com/gpu.present: \"true\"). " + "More words here. " * 30
        ).strip()
FINDING = {"policy": "daemonsets-tolerate-gpu-taints", "enforcement": "mandatory",
           "resource": "kubernetes:apps/v1:DaemonSet node-agent", "urn": URN, "message": LONG}
INDENT = "      "


def _message(lines: list[str]) -> str:
    return " ".join(line.removeprefix(INDENT) for line in lines)


def test_a_long_message_is_wrapped_with_nothing_lost_and_nothing_broken_apart():
    lines = wrap_text(LONG, WIDTH, INDENT)
    assert len(lines) > 5 and all(line.startswith(INDENT) for line in lines)
    assert _message(lines) == LONG
    over = [line for line in lines if len(line) > WIDTH]
    assert [line.strip() for line in over] == [URN]  # the URN alone is wider than a line: alone on its own
    for whole in (URN, PATH, SNIPPET, QUOTED, 'nvidia.com/gpu.present: "true"'):
        assert any(whole in line for line in lines), whole


def test_the_finding_heading_then_the_wrapped_message_then_its_urn():
    lines = violation_lines([FINDING], ())
    assert lines[0] == "  [mandatory] daemonsets-tolerate-gpu-taints kubernetes:apps/v1:DaemonSet node-agent:"
    assert lines[-1] == f"{INDENT}urn: {URN}"
    assert _message(lines[1:-1]) == LONG
    assert all(len(line) <= WIDTH or line.strip() == URN for line in lines[:-1])


def test_a_short_finding_stays_on_one_line():
    short = {**FINDING, "message": "tolerate it", "urn": ""}
    assert violation_lines([short], ()) == [
        "  [mandatory] daemonsets-tolerate-gpu-taints kubernetes:apps/v1:DaemonSet node-agent: "
        "tolerate it"]


def test_a_control_character_is_escaped_before_the_message_is_wrapped():
    lines = violation_lines([{**FINDING, "message": LONG + "\nexit 0: clean", "urn": ""}], ())
    assert _message(lines[1:]) == LONG + "\\nexit 0: clean"


_TEXT = st.text(st.sampled_from(list("ab:/-'\"`{}[],. ") + ["\t", "\u00a0", "é"]), max_size=300)


@settings(max_examples=300, deadline=None)
@given(text=_TEXT, width=st.integers(min_value=1, max_value=40))
def test_wrapping_any_text_loses_nothing(text, width):
    lines = wrap_text(text, width, "  ")
    assert " ".join(line[2:] for line in lines) == text
    assert all(line.startswith("  ") for line in lines)


#: A word, with no quote, bracket or backquote and no ':' at its end: a line may end after it.
_WORD = st.from_regex(r"[a-z0-9./$-]{1,8}(:[a-z0-9./$-]{1,8}){0,4}", fullmatch=True)
_INNER = st.lists(st.from_regex(r"[a-z0-9.!/-]{1,6}", fullmatch=True), min_size=2, max_size=5).map(" ".join)
_PAIRS = st.lists(st.tuples(_WORD, _INNER), min_size=1, max_size=3)
#: What a reader copies whole, each with spaces in it: quoted values (as repr writes one), a backquoted command, a
#: YAML flow mapping, a flow sequence of one, and a YAML key with its quoted or bracketed value.
_SPAN = st.one_of(
    _INNER.map(lambda inner: f"'{inner}'"),
    _INNER.map(lambda inner: f'"{inner}"'),
    _INNER.map(lambda inner: f"`helm pull {inner} --version 0.20.0`"),
    _PAIRS.map(lambda pairs: "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"),
    _PAIRS.map(lambda pairs: "[" + ", ".join(f"{k}: '{v}'" for k, v in pairs) + "]"),
    st.tuples(_WORD, _INNER).map(lambda kv: f'{kv[0]}: "{kv[1]}"'),
    st.tuples(_WORD, _PAIRS).map(lambda kv: f"{kv[0]}: [" + ", ".join(f"{k}: {v}" for k, v in kv[1]) + "]"),
)
#: A list of plain words in brackets is no YAML: each item is a part of its own, which a line may end after.
_WORD_LIST = st.lists(st.from_regex(r"[a-z0-9]{1,6}", fullmatch=True), min_size=2, max_size=4).map(
    lambda items: [f"[{items[0]},", *(f"{item}," for item in items[1:-1]), f"{items[-1]}]"])
_PARTS = st.lists(st.one_of(_WORD.map(lambda w: [w]), _SPAN.map(lambda span: [span]), _WORD_LIST),
                  min_size=1, max_size=30).map(lambda groups: [part for group in groups for part in group])


def _parts_per_line(lines: list[str], parts: list[str]) -> list[list[str]]:
    """The parts each line holds, whole and in order; fails when a line ends inside a part."""
    held, at = [], 0
    for line in lines:
        end = at + 1
        while end < len(parts) and len(" ".join(parts[at:end])) < len(line):
            end += 1
        assert " ".join(parts[at:end]) == line, f"{line!r} ends inside a part: {parts[at:end]}"
        held.append(parts[at:end])
        at = end
    assert at == len(parts)
    return held


@settings(max_examples=300, deadline=None)
@given(parts=_PARTS, width=st.integers(min_value=1, max_value=60))
def test_lines_end_between_parts_a_reader_copies_whole_and_are_as_full_as_they_can_be(parts, width):
    text = " ".join(parts)
    lines = [line.removeprefix("  ") for line in wrap_text(text, width, "  ")]
    held = _parts_per_line(lines, parts)  # never inside a quoted value, a command, a YAML snippet or a word
    for line, mine in zip(lines, held, strict=True):
        if len(line) + 2 > width:  # wider than the width: one part alone, which no line could hold
            assert len(mine) == 1, line
    for line, following in itertools.pairwise(held):  # the next part did not fit on this line
        assert 2 + len(" ".join(line)) + 1 + len(following[0]) > width


#: What a reader copies whole in a report line: a quoted, backquoted or bracketed part (one level of nesting).
_WHOLE = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|\{(?:[^{}]|\{[^{}]*\})*\}|\[(?:[^\[\]]|\[[^\[\]]*\])*\]")


def _spaces_a_line_could_end_at(line: str) -> str:
    """``line`` with each part a reader copies whole, and the space between a YAML key and such a part, taken out:
    a space left is one a line could end at."""
    return _WHOLE.sub("X", line.strip()).replace(": X", ":X")


def test_the_span_reader_of_these_tests_can_fail():
    assert " " in _spaces_a_line_could_end_at("run `helm pull x --version 1` now")
    assert " " not in _spaces_a_line_could_end_at("tags: 'Node group tags do not propagate',")
    assert " " not in _spaces_a_line_could_end_at("[key: 'a b', effect: {x: y z}]")


def _head(v: dict) -> str:
    where = v.get("location")
    at = f"{where['file']}:{where['line']}:{where['column']}: " if where else ""
    return f"  {at}[{v['enforcement']}] {v['policy']} {v['resource']}:"


def test_plan_text_wraps_what_json_and_sarif_keep_on_one_line(capsys):
    project = str(ROOT / "examples" / "violating")
    main(["plan", "--stack", "demo", "--project-dir", project, "--json"])
    violations = json.loads(capsys.readouterr().out)["violations"]
    main(["plan", "--stack", "demo", "--project-dir", project, "--format", "sarif"])
    sarif_texts = [r["message"]["text"] for r in json.loads(capsys.readouterr().out)["runs"][0]["results"]]
    main(["plan", "--stack", "demo", "--project-dir", project])
    text = capsys.readouterr().out.splitlines()
    assert sum(len(v["message"]) > WIDTH for v in violations) >= 10  # the example has long findings
    at = 0
    for v in violations:  # in the report's order
        # SARIF keeps the message on one line (a result with no place of its own adds where it was put)
        assert any(t == f"{v['resource']}: {v['message']}" or t.startswith(f"{v['resource']}: {v['message']} (approximate place:")
                   for t in sarif_texts)
        at = next(i for i in range(at, len(text)) if text[i].startswith(_head(v)))
        end = text.index(f"{INDENT}urn: {v['urn']}", at)
        if text[at] == _head(v):  # wrapped: the message below, each line within the width but an unbreakable one
            assert _message(text[at + 1:end]) == v["message"]
            over = [line for line in text[at + 1:end] if len(line) > WIDTH]
            assert [line for line in over if " " in _spaces_a_line_could_end_at(line)] == []
        else:
            assert text[at] == f"{_head(v)} {v['message']}" and len(text[at]) <= WIDTH
        at = end


#: A Pulumi secret with spaces, such as a command line: wrapping may split it across lines.
SECRET_COMMAND = "kubectl taint nodes gpu-7 hushkey=hunter2value:NoSchedule --overwrite --context prod-cluster"
SECRET_WORDS = [w for w in SECRET_COMMAND.split() if len(w) >= 8 and w not in ("NoSchedule", "--overwrite")]


def _with_a_secret_finding():
    from gpu_node_pool.plan.run import PlanResult
    from gpu_node_pool.sdk.record import Resource

    command = Resource("command:local:Command", "taint-gpu", {"create": "[secret]"}, urn=URN,
                       secret_inputs={"create": SECRET_COMMAND})
    message = (f"{'The program taints GPU nodes by hand, outside the pools it declares. ' * 2}"
               f"It runs {SECRET_COMMAND} when it is created; declare the taint on the pool instead.")
    finding = {**FINDING, "policy": "no-imperative-taints", "resource": "command:local:Command taint-gpu",
               "message": message}
    assert len(message) > 2 * WIDTH and SECRET_COMMAND in message
    return PlanResult(stack="dev", resources=[command], violations=[finding])


def test_a_secret_with_spaces_in_a_wrapped_finding_is_cut_from_the_text_report():
    from gpu_node_pool.plan.check import CheckResult
    from gpu_node_pool.plan.check import render_text as check_text
    from gpu_node_pool.plan.report import render_text

    result = _with_a_secret_finding()
    check = CheckResult(project="p", stack="dev", resources=result.resources, violations=result.violations)
    for text in (render_text(result), check_text(check)):
        lines = text.splitlines()
        head = next(i for i, line in enumerate(lines) if "no-imperative-taints" in line)
        assert lines[head].endswith("command:local:Command taint-gpu:")  # the message is wrapped below it
        assert "[secret]" in _message(lines[head + 1:head + 4]), lines[head:head + 4]
        assert not [w for w in SECRET_WORDS if w in text], text
