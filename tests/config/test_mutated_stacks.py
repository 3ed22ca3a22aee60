"""A property over 1,000 mutated stack files: every run exits 0, 1 or 2, never with a traceback.

Each case is a shipped stack (``stacks/Pulumi.*.yaml``) with 1-3 mutations at random paths: a
value of the wrong JSON type, random unicode (controls, bidi, surrogates' neighbours, NUL), a
huge value (a megabyte string, a 400-digit integer, a deep list), a key removed or renamed, or
YAML text damage (a tab, an unclosed bracket, an anchor and alias). :data:`IN_PROCESS_CASES`
go through ``gpupool validate --file`` in-process (the config check ``plan`` runs first, with
the same exit-code contract); :data:`PLAN_CASES` of them also through ``gpupool plan``
in-process, and :data:`SUBPROCESS_CASES` through the real ``gpupool`` console entry in a child
Python (``main_exit``: the process exit status and stderr as a shell sees them), each within
:data:`SUBPROCESS_TIMEOUT` seconds.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys

import yaml
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_node_pool.cli import commands as cli

#: Generated cases per CI run (RELIABILITY.md quotes these numbers).
IN_PROCESS_CASES = int(os.environ.get("GPUPOOL_MUTATED_CASES", "1000"))
PLAN_CASES = 40
SUBPROCESS_CASES = 12
#: Seconds one child ``gpupool`` run may take (the issue's bound).
SUBPROCESS_TIMEOUT = 10

STACKS = sorted((ROOT / "stacks").glob("Pulumi.*.yaml"))
BASES = {p.name: yaml.safe_load(p.read_text()) for p in STACKS}
ALLOWED = {0, 1, 2}

weird_text = st.text(st.characters(codec="utf-8", categories=("Cc", "Cf", "Zl", "Zp", "Lo", "Nd", "So", "Zs")),
                     max_size=12)
wrong = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.floats(allow_nan=True, allow_infinity=True),
    st.just({}), st.just([]), st.just({"a": [1, {"b": None}]}), st.just([None, "x", 3]),
    weird_text, st.just("a" * (1 << 20)), st.just(int("9" * 400)), st.just("nvidia.com/gpu\n"),
    st.just("present\x00"), st.just("\x1b[2J\nexit 0: clean"), st.just(" leading"),
)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


def _mutate(value, path, how, new):
    if not path:
        return new if how == "set" else value
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        if not rest and how == "drop":
            return {k: v for k, v in value.items() if k != head}
        if not rest and how == "rename":
            return {(f"{k}x" if k == head else k): v for k, v in value.items()}
        return {k: (_mutate(v, rest, how, new) if k == head else v) for k, v in value.items()}
    if isinstance(value, list):
        if not rest and how == "drop":
            return [v for i, v in enumerate(value) if i != head]
        return [(_mutate(v, rest, how, new) if i == head else v) for i, v in enumerate(value)]
    return value


def _deep(depth):
    out = "x"
    for _ in range(depth):
        out = [out]
    return out


@st.composite
def mutated_stack_texts(draw):
    name = draw(st.sampled_from(sorted(BASES)))
    doc = BASES[name]
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(list(_paths(doc))[1:] or [()]))
        how = draw(st.sampled_from(["set", "set", "set", "drop", "rename"]))
        new = draw(st.one_of(wrong, st.just(_deep(200))))
        doc = _mutate(doc, path, how, new)
    text = yaml.safe_dump(doc, allow_unicode=True, width=1 << 30)
    damage = draw(st.sampled_from(["", "", "", "tab", "bracket", "alias", "bom", "bytes"]))
    if damage == "tab":
        text = text.replace("  ", "\t", 1)
    elif damage == "bracket":
        text += "extra: [unclosed\n"
    elif damage == "alias":
        text = "x-anchor: &a [1, 2]\n" + text.replace("config:\n", "config:\n  gpu-node-pools:anchor: *a\n", 1)
    elif damage == "bom":
        text = "\ufeff" + text
    return name, text, damage == "bytes"


def _write(tmp_path, name, text, raw_bytes):
    path = tmp_path / name
    data = text.encode("utf-8", "surrogatepass")
    path.write_bytes(data.replace(b"config", b"conf\xffig", 1) if raw_bytes else data)
    return path


def _run_in_process(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue() + err.getvalue()


_SETTINGS = dict(derandomize=True, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                        HealthCheck.function_scoped_fixture, HealthCheck.large_base_example])


@settings(max_examples=IN_PROCESS_CASES, **_SETTINGS)
@given(case=mutated_stack_texts())
def test_validate_exits_0_1_or_2_on_every_mutated_stack(tmp_path_factory, case):
    path = _write(tmp_path_factory.mktemp("s"), *case)
    code, output = _run_in_process(["validate", "--file", str(path)])
    assert code in ALLOWED, output[-2000:]
    assert "Traceback" not in output and "internal error" not in output


@settings(max_examples=PLAN_CASES, **_SETTINGS)
@given(case=mutated_stack_texts())
def test_plan_exits_0_1_or_2_on_mutated_stacks(tmp_path_factory, case):
    project = tmp_path_factory.mktemp("p")
    (project / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    (project / "__main__.py").write_text((ROOT / "__main__.py").read_text())
    (project / "stacks").mkdir()
    name, text, raw = case
    _write(project / "stacks", name, text, raw)
    stack = name[len("Pulumi."):-len(".yaml")]
    code, output = _run_in_process(["plan", "--stack", stack, "--project-dir", str(project)])
    assert code in ALLOWED, output[-2000:]
    assert "Traceback" not in output and "internal error" not in output


@settings(max_examples=SUBPROCESS_CASES, **_SETTINGS)
@given(case=mutated_stack_texts())
def test_the_console_entry_exits_0_1_or_2_within_the_bound(tmp_path_factory, case):
    path = _write(tmp_path_factory.mktemp("c"), *case)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "components"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(  # noqa: S603
        [sys.executable, "-c", "from gpu_node_pool.cli import main_exit; main_exit()", "validate", "--file", str(path)],
        capture_output=True, text=True, errors="replace", timeout=SUBPROCESS_TIMEOUT, env=env, check=False)
    assert done.returncode in ALLOWED, done.stderr[-2000:]
    assert "Traceback" not in done.stdout + done.stderr
