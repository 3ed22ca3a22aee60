"""The benchmark's floors measure what they claim (bench/): the typed floor registers exactly the
plan's resources and inputs, and the SDK analyzer path reports what our runner reports.

Nothing here is timed.
"""

from __future__ import annotations

import collections
import dataclasses
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import adapter  # noqa: E402
import analyzer  # noqa: E402
import run  # noqa: E402
import typed_floor  # noqa: E402

import stacks  # noqa: E402


@pytest.fixture(scope="module")
def plan_of_three_pools(tmp_path_factory: pytest.TempPathFactory):
    project = stacks.write_project(tmp_path_factory.mktemp("bench"), 3)  # one pool of each AWS backend
    return adapter.plan_stack("bench", project)


def test_typed_floor_registers_the_plans_resources_with_the_same_inputs(plan_of_three_pools, tmp_path):
    captured = [dataclasses.asdict(r) for r in plan_of_three_pools.resources if not r.synthesized]
    program = tmp_path / "typed.py"
    program.write_text(typed_floor.generate(captured, adapter.unknown_marker(), adapter.fake_ami()))
    source = program.read_text()
    assert "pulumi_aws.eks.NodeGroup(" in source and "pulumi_kubernetes.apps.v1.DaemonSet(" in source
    assert "image_id=_ami_lookup(" in source  # the self-managed pool: the same SSM lookup as the plan
    registered: list = []
    typed_floor.run(typed_floor.load(program), registered)
    run._same_resources(captured, registered)  # raises SystemExit naming what differs


def test_typed_floor_keeps_each_function_the_size_of_a_pool(plan_of_three_pools):
    """No frame of the floor sits in a code object that grows with the stack: the SDK's stack trace
    of each registration works out every frame's line number, in time proportional to how far into
    its code object the frame is."""
    import ast

    captured = [dataclasses.asdict(r) for r in plan_of_three_pools.resources if not r.synthesized]
    tree = ast.parse(typed_floor.generate(captured, adapter.unknown_marker(), adapter.fake_ami()))
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    parts = [f for name, f in functions.items() if name.startswith("_part")]
    assert sum(len(f.body) for f in parts) == len(captured)
    assert all(len(f.body) <= typed_floor.STATEMENTS_PER_FUNCTION for f in parts)
    assert len(functions["main"].body) == len(parts) < len(captured)


def test_typed_floor_check_fails_when_an_input_differs(plan_of_three_pools):
    captured = [dataclasses.asdict(r) for r in plan_of_three_pools.resources if not r.synthesized]
    registered = [(r["type"], r["name"], dict(r["inputs"])) for r in captured]
    registered[0][2]["extra"] = 1
    with pytest.raises(SystemExit, match="does not register what the plan did"):
        run._same_resources(captured, registered)


def test_sdk_analyzer_path_reports_what_our_runner_reports():
    analyzer.check_version()
    stack = stacks.policy_stack(300, 40, 6)
    ours = collections.Counter(f["policy"] for f in adapter.evaluate(stack, "bench"))
    configure, single, many = analyzer.requests(stack, [adapter.to_policy_props(r.inputs) for r in stack],
                                                "bench", adapter.PROJECT)
    s = analyzer.servicer(configure)
    diagnostics = [d for r in single for d in s.Analyze(r, None).diagnostics]
    diagnostics += list(s.AnalyzeStack(many, None).diagnostics)
    assert sum(ours.values()) > 0
    assert collections.Counter(d.policyName for d in diagnostics) == ours


@pytest.mark.parametrize("levels", [None, run.ALL_MANDATORY])
def test_the_per_level_pack_the_bench_times_reports_what_our_runner_reports(levels):
    """The per-level rows time the shipped pack configured as the engine configures it, with its findings."""
    stack = stacks.policy_stack(300, 40, 6)
    ours = adapter.evaluate(stack, "bench") if levels is None else adapter.evaluate_with(stack, "bench", levels)
    configure, single, many = analyzer.requests(stack, [adapter.to_policy_props(r.inputs) for r in stack],
                                                "bench", adapter.PROJECT)
    s, _ = analyzer.level_pack(levels)
    got = collections.Counter(d.message.split("\n", 1)[1] for d in s.AnalyzeStack(many, None).diagnostics)
    assert not [d for r in single for d in s.Analyze(r, None).diagnostics]
    assert sum(got.values()) > 0
    assert got == collections.Counter(f"[{f['policy']}] {f['message']}" for f in ours)


def test_the_floor_process_gets_the_collector_settings_of_gpupool(monkeypatch):
    import gc

    monkeypatch.setenv(typed_floor.GC_ENV, ",".join(map(str, adapter.gc_thresholds())))
    before = gc.get_threshold()
    try:
        typed_floor.run(lambda: None)
        assert gc.get_threshold() == adapter.gc_thresholds()
    finally:
        gc.set_threshold(*before)


def test_the_audit_rows_time_a_real_audit_and_see_its_imports(tmp_path: Path):
    """The audit rows' process runs the audit to its report and then says what it imported (a probe that
    fails to start, or ends before saying it, must not pass as a fast audit without Pulumi)."""
    import json
    import subprocess

    import clusters

    dump = clusters.write_dump(tmp_path / "probe.json", 4, pods_per_node=3, daemonsets=2)
    out = subprocess.run([sys.executable, "-c", run.AUDIT_PROBE, "audit", "--cluster-dump", str(dump), "--json"],
                         capture_output=True, text=True, cwd=ROOT)
    report = json.loads(out.stdout)
    assert report["command"] == "audit" and report["exitCode"] == out.returncode
    assert out.stderr.strip().splitlines()[-1] == "pulumi imported: False"
    rows, peaks = run.audit_rows(tmp_path, (4,), 1)
    assert set(peaks) == {4} and rows[0][-1].endswith("Pulumi imported: False")
    assert not list(tmp_path.glob("cluster-*.json"))  # the rows remove their dumps
