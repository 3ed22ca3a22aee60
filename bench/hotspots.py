"""What dominates: cProfile of the 100-pool plan and of the whole pack on 50k resources.

    venv/bin/python bench/hotspots.py plan 100      # plan_stack of a synthetic 100-pool project
    venv/bin/python bench/hotspots.py pack 50000    # every policy over a 50k-resource stack (our runner)
    venv/bin/python bench/hotspots.py sdk 10000     # the same through pulumi_policy's analyzer
    venv/bin/python bench/hotspots.py level 10000   # the per-level pack through the analyzer (default levels)
    venv/bin/python bench/hotspots.py level1 10000  # ... with every rule mandatory (one level in use)
    venv/bin/python bench/hotspots.py noop 10000    # one no-op stack policy through the analyzer: the floor
    venv/bin/python bench/hotspots.py traces 1000   # the SDK's stack trace per registration: plan and typed floor

Prints the self time grouped by where the code lives (our modules one by one, the Pulumi SDK,
PyYAML, pydantic, protobuf, asyncio, the rest), then the functions with the most cumulative and
self time. Not part of ``make bench``: a profile slows the code down, so its figures are shares.
"""

from __future__ import annotations

import cProfile
import pstats
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import adapter  # noqa: E402

import stacks  # noqa: E402

_SITE = re.compile(r"site-packages/([^/]+)")


def where(filename: str) -> str:
    """A profile entry's file -> the group it is counted in."""
    if "gpu_node_pool/" in filename:
        return "ours: " + filename.split("gpu_node_pool/", 1)[1]
    m = _SITE.search(filename)
    if m:
        pkg = m.group(1).split(".")[0]
        return {"google": "protobuf", "_yaml": "yaml", "pydantic_core": "pydantic"}.get(pkg, pkg)
    if "asyncio" in filename:
        return "asyncio"
    if filename in ("~", "") or filename.startswith("<"):
        return "builtins"
    return "stdlib: " + Path(filename).name


def report(prof: cProfile.Profile, top: int = 25) -> None:
    stats = pstats.Stats(prof)
    total = stats.total_tt  # type: ignore[attr-defined]
    groups: Counter[str] = Counter()
    for (filename, _, _), (_, _, tottime, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        groups[where(filename)] += tottime
    print(f"total {total:.2f} s (profiled); self time by where the code lives:")
    for name, seconds in groups.most_common(20):
        print(f"  {seconds / total:6.1%}  {seconds:6.2f} s  {name}")
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)


def main() -> None:
    kind, size = sys.argv[1], int(sys.argv[2])
    prof = cProfile.Profile()
    if kind == "plan":
        with tempfile.TemporaryDirectory() as tmp:
            project = stacks.write_project(Path(tmp) / "p", size)
            adapter.plan_stack("bench", project)  # warm-up: provider modules
            adapter.cold_caches()
            prof.runcall(adapter.plan_stack, "bench", project)
    elif kind == "pack":
        stack = stacks.policy_stack(size, size // 10, 100)
        adapter.evaluate(stack, "bench")
        prof.runcall(adapter.evaluate, stack, "bench")
    elif kind == "sdk":
        import analyzer

        analyzer.check_version()
        stack = stacks.policy_stack(size, size // 10, 50)
        configure, single, many = analyzer.requests(stack, [adapter.to_policy_props(r.inputs) for r in stack],
                                                    "bench", adapter.PROJECT)
        prof.runcall(analyzer.analyze, analyzer.servicer(configure), single, many)
    elif kind in ("level", "level1", "noop"):
        import analyzer

        analyzer.check_version()
        stack = stacks.policy_stack(size, size // 10, 50)
        configure, single, many = analyzer.requests(stack, [adapter.to_policy_props(r.inputs) for r in stack],
                                                    "bench", adapter.PROJECT)
        if kind == "noop":
            servicer = analyzer.servicer(configure, analyzer.one_noop_stack_policy())
        else:
            servicer, _ = analyzer.level_pack({"all": "mandatory"} if kind == "level1" else None)
        analyzer.analyze(servicer, single[:200], many)  # warm-up: first-use imports and caches
        prof.runcall(analyzer.analyze, servicer, single, many)
    elif kind == "traces":
        stack_traces(size)
        return
    else:
        raise SystemExit("usage: hotspots.py plan|pack|sdk|level|level1|noop|traces SIZE")
    report(prof)


def stack_traces(pools: int) -> None:
    """What the SDK's stack trace of each registration (``pulumi.runtime.resource._get_stack_trace``,
    which the plan and the floor leave out under their mocks) costs the plan of a ``pools``-pool
    project and its typed floor, with the capture on: time per registration and frames captured.
    Not profiled: the capture is timed around each call."""
    import dataclasses
    import time

    import pulumi.runtime.resource as runtime_resource
    import typed_floor

    adapter.tune_gc()
    with tempfile.TemporaryDirectory() as tmp:
        project = stacks.write_project(Path(tmp) / "p", pools)
        result = adapter.plan_stack("bench", project)
        captured = [dataclasses.asdict(r) for r in result.resources if not r.synthesized]
        program = Path(tmp) / "typed.py"
        program.write_text(typed_floor.generate(captured, adapter.unknown_marker(), adapter.fake_ami()))
        typed_floor.precompile(program)
        floor = typed_floor.load(program)
        original = runtime_resource._get_stack_trace
        seen = {"s": 0.0, "calls": 0, "frames": 0}

        def timed():  # noqa: ANN202 - the SDK's own signature
            start = time.perf_counter()
            trace = original()
            seen["s"] += time.perf_counter() - start
            seen["calls"] += 1
            seen["frames"] += len(trace.frames)
            return trace

        runtime_resource._get_stack_trace = timed
        try:
            for _ in range(2):  # the first round warms both up
                for side, run in (("plan", lambda: adapter.plan_stack("bench", project)),
                                  ("typed floor", lambda: typed_floor.run(floor, stack_traces=True))):
                    seen.update(s=0.0, calls=0, frames=0)
                    adapter.cold_caches()
                    start = time.perf_counter()
                    with adapter.with_stack_traces():
                        run()
                    total = time.perf_counter() - start
                    calls = max(seen["calls"], 1)
                    print(f"{side:12s} {pools} pools: {total:.3f} s with the capture, of which the capture {seen['s']:.3f} s: "
                          f"{seen['calls']} registrations, {seen['frames'] / calls:.1f} frames and "
                          f"{seen['s'] / calls * 1e6:.0f} us each")
        finally:
            runtime_resource._get_stack_trace = original


if __name__ == "__main__":
    main()
