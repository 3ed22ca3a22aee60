"""Benchmarks of gpu-node-pools against floors a user would recognise. Prints one table; every
figure comes from this run, and only ratios measured in it count (the machine is noisy).

    venv/bin/python bench/run.py            # or: make bench   (6-7 minutes on 2 cores at low load)
    venv/bin/python bench/run.py --quick    # fewer runs, 1000 pools and 100k resources left out

Rows (details and what dominates: BENCHMARKS.md):

* plan, whole process: ``gpupool plan --stack S`` as a user runs it (interpreter start, imports,
  read, validate, the program under mocks, every policy of the pack, the report) against the typed
  floor as a process, at the shipped ``dev`` stack and synthetic stacks of 100 and 1000 pools;
  the median of 5 runs each, plan and floor taking turns, with the spread (min-max) and the
  peak RSS of each process (``os.wait4``'s ``ru_maxrss``, the child's own).
* typed floor: ``typed_floor.py`` generates, from what the plan recorded, a program registering
  the same resources with the same inputs through the typed ``pulumi_aws`` /
  ``pulumi_kubernetes`` / ``pulumi_gcp`` classes under the same mocks; the bench checks that it
  registers exactly the plan's resources and inputs before timing it.
* in-process: the same plan and typed floor inside one warmed-up interpreter.
* engine-free floor: our own read + validate + render + evaluate with no Pulumi engine
  (``adapter.read_and_validate``, ``adapter.render_all``, ``adapter.evaluate`` over the plan's
  resources): the lower bound of the product's own work.
* whole pack: all policies at 10k/50k/100k resources through our runner and through
  pulumi_policy's analyzer servicer (``analyzer.py``), and the ratio.
* audit, whole process: ``gpupool audit --cluster-dump D --json`` on synthetic dumps of 100, 1000
  and 5000 nodes (30 pods each, 20 DaemonSets, ``clusters.py``): time and peak RSS (the child's
  own ``ru_maxrss`` from ``os.wait4``, the ``getrusage`` figures of that process), and whether
  Pulumi was imported. ``--audit`` runs only these rows.
* import: a cold import of the CLI and what ``gpupool plan`` imports before the program runs
  against a cold import of the Pulumi SDK packages it pulls in.

No figure is asserted anywhere; tests do not time anything.
"""

from __future__ import annotations

import argparse
import compileall
import dataclasses
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import adapter  # noqa: E402
import clusters  # noqa: E402
import typed_floor  # noqa: E402

import stacks  # noqa: E402

ROOT = stacks.ROOT
PYTHON = sys.executable
GPUPOOL = str(Path(PYTHON).with_name("gpupool"))
PACK_SIZES = ((10_000, 1_000, 50), (50_000, 5_000, 100), (100_000, 10_000, 100))  # resources, DaemonSets, pools
DEV = "dev"
#: The floor process: collector settings first, then the precompiled program (typed_floor.py's __main__).
TYPED_FLOOR = str(Path(__file__).resolve().with_name("typed_floor.py"))

# Targets of issue 18.
PLAN_TARGET, RSS_TARGET, IMPORT_TARGET = 1.25, 1.2, 1.3
RUNNER_TARGET, SDK_TARGET, GROWTH_TARGET, OWN_TARGET = 1.5, 3.0, 10.5, 1.0
#: Issue 30: the pack through the SDK's analyzer at most 2x one no-op stack policy (10k and 50k).
LEVEL_TARGET = 2.0
#: peak RSS of gpupool audit on 5000 nodes x 30 pods, 20 DaemonSets (MiB).
AUDIT_NODES, AUDIT_RSS_TARGET = (100, 1000, 5000), 400


def _worker(*args: str) -> dict[str, Any]:
    out = subprocess.run([PYTHON, __file__, "--worker", *args], capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        raise SystemExit(f"worker {' '.join(args)} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _median(fn: Any, repeats: int, before: Any = None) -> float:
    times = []
    for _ in range(repeats):
        if before is not None:
            before()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# --- workers (each in a fresh interpreter) -----------------------------------------------------


def work_capture(project: str, stack: str, repeats: int, warm: str, program_out: str) -> dict[str, Any]:
    """In-process figures for one stack: the plan, the typed floor generated from it (written to
    ``program_out``), and the engine-free floor. ``warm``: a small project run first, so that the
    provider SDKs' modules are loaded before anything is timed."""
    import typed_floor

    adapter.plan_stack("bench", warm)
    adapter.cold_caches()
    start = time.perf_counter()
    result = adapter.plan_stack(stack, project)
    first = time.perf_counter() - start  # warm already: ``warm`` loaded the provider SDKs' modules
    if result.config_issues:
        raise SystemExit(f"stack {stack} of {project} is invalid: {result.config_issues}")
    plan_s = _median(lambda: adapter.plan_stack(stack, project), repeats, adapter.cold_caches) if repeats > 1 else first
    captured = [dataclasses.asdict(r) for r in result.resources if not r.synthesized]  # made up by the plan itself
    Path(program_out).write_text(typed_floor.generate(captured, adapter.unknown_marker(), adapter.fake_ami()))
    typed_floor.precompile(program_out)  # as an installed program would be; the floor process reads the bytecode
    main = typed_floor.load(program_out)
    registered: list[tuple[str, str, dict[str, Any]]] = []
    start = time.perf_counter()
    typed_floor.run(main, registered)
    first = time.perf_counter() - start
    _same_resources(captured, registered)
    floor_s = _median(lambda: typed_floor.run(main), repeats) if repeats > 1 else first

    def own() -> None:  # the product's own work, no engine: read, validate, render, evaluate
        spec = adapter.read_and_validate(Path(project), stack)
        adapter.render_all(spec)
        adapter.evaluate(result.resources, stack)

    own()  # warm-up (first use of the renderers' modules), as the plan and the floor were warm
    own_s = _median(own, max(repeats, 1), adapter.cold_caches)
    return {"plan": plan_s, "floor": floor_s, "own": own_s, "resources": len(result.resources),
            "pools": len(result.pools), "findings": len(result.violations)}


def _same_resources(captured: list[dict[str, Any]], registered: list[tuple[str, str, dict[str, Any]]]) -> None:
    """Stops the bench unless the typed floor registered exactly the plan's resources and inputs."""
    from pulumi.output import Unknown

    unknown = adapter.unknown_marker()

    def plain(v: Any) -> Any:
        if isinstance(v, Unknown):
            return unknown
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        return int(v) if isinstance(v, float) and v.is_integer() else v

    want = {(r["type"], r["name"]): r["inputs"] for r in captured}
    got = {(t, n): plain(i) for t, n, i in registered}
    differ = [k for k in want if want[k] != got.get(k)] + [k for k in got if k not in want]
    if differ:
        raise SystemExit(f"the typed floor does not register what the plan did: {differ[:5]}")


#: The per-level pack with every rule mandatory: one level in use (one level policy called).
ALL_MANDATORY = {"all": "mandatory"}


def work_pack(sizes: str, rounds: int, sdk_rounds: int, sdk_max: int, level_rounds: int = 3) -> dict[str, Any]:
    """The whole pack over stacks of every size in ``sizes`` (``resources:daemonsets:pools,...``):
    our runner (``rounds`` rounds, the sizes in turn) and the SDK's analyzer (``sdk_rounds``, on the
    stacks of at most ``sdk_max`` resources)."""
    import gc

    import analyzer

    analyzer.check_version()
    built = {}
    for size in sizes.split(","):
        resources, daemonsets, pools = map(int, size.split(":"))
        built[size] = stacks.policy_stack(resources, daemonsets, pools)
    findings = {size: len(adapter.evaluate(stack, "bench")) for size, stack in built.items()}  # also the warm-up
    ours: dict[str, list[float]] = {size: [] for size in built}
    for _ in range(rounds):
        for size, stack in built.items():
            start = time.perf_counter()
            adapter.evaluate(stack, "bench")
            ours[size].append(time.perf_counter() - start)
    sdk: dict[str, list[float]] = {size: [] for size in built}
    diagnostics, noop, one = {}, {}, {}
    one_runs: dict[str, list[float]] = {}
    two_runs: dict[str, list[float]] = {}
    level_runs: dict[tuple[str, str], list[float]] = {}
    level_found: dict[tuple[str, str], int] = {}
    for size, stack in built.items():  # one size at a time: the request messages are large
        if len(stack) > sdk_max:
            continue
        props = [adapter.to_policy_props(r.inputs) for r in stack]
        configure, single, many = analyzer.requests(stack, props, "bench", adapter.PROJECT)
        del props
        servicer = analyzer.servicer(configure)
        diagnostics[size] = analyzer.analyze(servicer, single[:200], many)  # warm-up (a slice)
        for _ in range(sdk_rounds):
            start = time.perf_counter()
            diagnostics[size] = analyzer.analyze(servicer, single, many)
            sdk[size].append(time.perf_counter() - start)
        if size == next(iter(built)):  # the SDK's own cost, with policies that judge nothing (smallest size)
            start = time.perf_counter()
            analyzer.analyze(analyzer.servicer(configure, analyzer.noop_policies()), single, many)
            noop[size] = time.perf_counter() - start
        # the shipped per-level pack (--layout per-level), paired round by round with one and two no-op
        # stack policies: the ratio's spread decides the verdict
        for _ in range(level_rounds):
            start = time.perf_counter()
            analyzer.analyze(analyzer.servicer(configure, analyzer.one_noop_stack_policy()), single, many)
            one_runs.setdefault(size, []).append(time.perf_counter() - start)
            start = time.perf_counter()
            analyzer.analyze(analyzer.servicer(configure, analyzer.two_noop_stack_policies()), single, many)
            two_runs.setdefault(size, []).append(time.perf_counter() - start)
            for key, levels in (("level", None), ("level_one", ALL_MANDATORY)):
                servicer_l, _ = analyzer.level_pack(levels)
                start = time.perf_counter()
                level_found[(key, size)] = analyzer.analyze(servicer_l, single, many)
                level_runs.setdefault((key, size), []).append(time.perf_counter() - start)
        one[size] = statistics.median(one_runs[size])
        del single, many, servicer
        gc.collect()
    return {size: {"ours": statistics.median(ours[size]), "sdk": statistics.median(sdk[size]) if sdk[size] else None,
                   "resources": len(built[size]), "findings": findings[size], "diagnostics": diagnostics.get(size),
                   "noop": noop.get(size), "one": one.get(size), "policies": len(adapter.policies()),
                   "one_runs": one_runs.get(size), "two_runs": two_runs.get(size),
                   "level_runs": level_runs.get(("level", size)), "level_found": level_found.get(("level", size)),
                   "level_one_runs": level_runs.get(("level_one", size)),
                   "level_one_found": level_found.get(("level_one", size))}
            for size in built}


#: Run in a fresh interpreter (``python -c``): import the modules in ``sys.argv[1]``, report the
#: time and which Pulumi packages came in.
IMPORT_PROBE = """
import importlib, json, sys, time
start = time.perf_counter()
for name in sys.argv[1].split(","):
    importlib.import_module(name)
seconds = time.perf_counter() - start
packages = sorted({m.split(".")[0] for m in sys.modules if m.split(".")[0].startswith("pulumi")})
print(json.dumps({"seconds": seconds, "pulumi_packages": packages}))
"""


def _import_once(modules: list[str]) -> dict[str, Any]:
    out = subprocess.run([PYTHON, "-c", IMPORT_PROBE, ",".join(modules)], capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        raise SystemExit(f"importing {modules} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- whole processes ---------------------------------------------------------------------------


def _process(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (MiB) and CPU seconds (user + system) of one process: its own, from
    ``wait4`` (``getrusage(RUSAGE_CHILDREN)`` would give the largest child's so far)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=None if env is None else {**os.environ, **env})
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode not in (0, 1):  # 1: the plan found a mandatory violation (the bench stacks have some)
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}:\n{err}")
    return seconds, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def _spread(times: list[float]) -> str:
    return f"{min(times):.2f}-{max(times):.2f}"


#: Runs gpupool audit in this process as the console script does (its collector settings, ``main``), then reports
#: whether Pulumi came in (the audit must not import it). Not through ``main_exit``: that ends the process with
#: ``os._exit`` before anything after it could run.
AUDIT_PROBE = f"""
import importlib, sys
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
import adapter
adapter.tune_gc()
code = importlib.import_module(adapter.CLI_MODULE).main()
sys.stdout.flush()
sys.stderr.write("pulumi imported: %s\\n" % any(m.split(".")[0] in ("pulumi", "pulumi_policy") for m in sys.modules))
sys.exit(code)
"""


def _audit_report_code(report: Path) -> int | None:
    """The ``exitCode`` of the JSON report ``gpupool audit --json`` wrote to ``report``, or None when it wrote none."""
    try:
        return json.loads(report.read_text()).get("exitCode")
    except (OSError, ValueError, AttributeError):
        return None


def audit_rows(tmp: Path, sizes: tuple[int, ...], runs: int) -> tuple[list[tuple[str, ...]], dict[int, float]]:
    """Rows of ``gpupool audit --cluster-dump`` at ``sizes`` nodes, and the peak RSS (MiB) per size."""
    rows, peaks = [], {}
    for nodes in sizes:
        dump = clusters.write_dump(tmp / f"cluster-{nodes}.json", nodes, pods_per_node=30, daemonsets=20)
        measured, pulumi = [], set()
        for _ in range(1 if nodes >= 5000 else runs):
            argv = [PYTHON, "-c", AUDIT_PROBE, "audit", "--cluster-dump", str(dump), "--json"]
            start = time.perf_counter()
            report = tmp / "audit.json"
            with report.open("wb") as out:
                proc = subprocess.Popen(argv, cwd=ROOT, stdout=out, stderr=subprocess.PIPE)
                _, status, usage = os.wait4(proc.pid, 0)
            seconds = time.perf_counter() - start
            err = proc.stderr.read().decode() if proc.stderr else ""
            code = os.waitstatus_to_exitcode(status)
            if code not in (0, 1) or _audit_report_code(report) != code:  # 1: findings; not a crash that exits 1
                raise SystemExit(f"gpupool audit on {nodes} nodes failed (exit {code}):\n{err}")
            pulumi.add("pulumi imported: True" in err)
            measured.append((seconds, usage.ru_maxrss / 1024))
        times = [t for t, _ in measured]
        peaks[nodes] = max(m for _, m in measured)
        size_mib = dump.stat().st_size / 2**20
        rows.append(("audit, whole process", f"{nodes} nodes x 30 pods, 20 DS ({size_mib:.0f} MiB dump)",
                     f"{statistics.median(times):.2f} s", _spread(times), f"{peaks[nodes]:.0f} MiB",
                     f"gpupool audit --cluster-dump --json; {len(times)} run(s); Pulumi imported: {any(pulumi)}"))
        dump.unlink()
    return rows, peaks


def plan_rows(projects: dict[Any, tuple[Path, str]], inproc: dict[Any, dict[str, Any]],
              whole: dict[Any, dict[str, list[tuple[float, float, float]]]]) -> tuple[list[tuple[str, ...]], list[str]]:
    """The plan's rows (whole process, in-process, engine-free floor, memory per pool) and their verdicts."""
    rows: list[tuple[str, ...]] = []
    plan_ratio, rss_ratio, plan_pairs, rss_pairs = {}, {}, {}, {}
    for n in projects:
        ip, w = inproc[n], whole[n]
        p_t, f_t = [t for t, _, _ in w["plan"]], [t for t, _, _ in w["floor"]]
        p_rss, f_rss = max(m for _, m, _ in w["plan"]), max(m for _, m, _ in w["floor"])
        p_cpu, f_cpu = statistics.median(c for _, _, c in w["plan"]), statistics.median(c for _, _, c in w["floor"])
        plan_ratio[n] = statistics.median(p_t) / statistics.median(f_t)
        rss_ratio[n] = p_rss / f_rss
        plan_pairs[n] = [p / f for p, f in zip(p_t, f_t, strict=True)]  # plan and floor ran in turn: pairs
        rss_pairs[n] = [p / f for (_, p, _), (_, f, _) in zip(w["plan"], w["floor"], strict=True)]
        label = "dev stack" if n == DEV else f"{n} pools"
        size = f"{label}: {ip['pools']} pool{'s' * (ip['pools'] != 1)}, {ip['resources']} res"
        rows.append(("plan, whole process", size, f"{statistics.median(p_t):.2f} s", _spread(p_t), f"{p_rss:.0f} MiB",
                     f"{plan_ratio[n]:.2f}x time, {rss_ratio[n]:.2f}x RSS of the typed floor; CPU {p_cpu:.2f} s "
                     f"({p_cpu / f_cpu:.2f}x); {ip['findings']} findings"))
        rows.append(("typed floor, whole process", size, f"{statistics.median(f_t):.2f} s", _spread(f_t),
                     f"{f_rss:.0f} MiB", f"same resources and inputs, typed provider classes; CPU {f_cpu:.2f} s"))
        rows.append(("plan / typed floor, in-process", size, f"{ip['plan']:.3f} / {ip['floor']:.3f} s", "", "",
                     f"{ip['plan'] / ip['floor']:.2f}x ({'1 run' if n == 1000 else 'median of 3'}, warm)"))
        rows.append(("engine-free floor (our work)", size, f"{ip['own']:.3f} s", "", "",
                     f"read+validate+render+evaluate, no engine; {ip['own'] / ip['plan']:.0%} of the in-process plan"))
    if 1000 in projects and 100 in projects:
        for side, key in (("plan", "plan"), ("typed floor", "floor")):
            d_rss = max(m for _, m, _ in whole[1000][key]) - max(m for _, m, _ in whole[100][key])
            d_res = inproc[1000]["resources"] - inproc[100]["resources"]
            rows.append((f"memory per pool, {side}", "100 -> 1000 pools", "", "", f"{d_rss / 900:.2f} MiB",
                         f"{d_rss * 1024 / d_res:.0f} KiB per resource (RSS growth / {d_res} resources)"))
    verdict = [f"plan/typed floor at {n} {plan_ratio[n]:.2f}x " + judged(plan_pairs[n], PLAN_TARGET, "time")
               + f", RSS {rss_ratio[n]:.2f}x " + judged(rss_pairs[n], RSS_TARGET, "RSS") for n in projects]
    largest = max(n for n in projects if n != DEV)
    verdict.append(f"engine-free floor {inproc[largest]['own']:.2f} s at {largest} pools "
                   + met(inproc[largest]["own"] < OWN_TARGET, f"< {OWN_TARGET:.0f} s at 1000"
                         + ("" if largest == 1000 else f"; --quick measured {largest} only")))
    return rows, verdict


# --- the table ---------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="fewer runs; no 1000 pools, no 100k resources")
    parser.add_argument("--audit", action="store_true", help="only the gpupool audit rows")
    parser.add_argument("--plan", action="store_true",
                        help="only the plan rows (whole process, in-process, engine-free floor) and their verdicts")
    parser.add_argument("--full", action="store_true",
                        help="also the SDK analyzer at 100k resources (about 2 more minutes)")
    args = parser.parse_args()
    if args.worker:
        kind, *rest = args.worker
        # The worker stands for the processes the product owns (gpupool, the pack's analyzer process):
        # their collector settings (gpu_node_pool.sdk.process); in-process floors share the interpreter.
        adapter.tune_gc()
        if kind == "capture":
            out = work_capture(rest[0], rest[1], int(rest[2]), rest[3], rest[4])
        elif kind == "pack":
            out = work_pack(rest[0], int(rest[1]), int(rest[2]), int(rest[3]), int(rest[4]))
        else:
            raise SystemExit(f"unknown worker {kind}")
        print(json.dumps(out))
        return

    # An installed package has its bytecode compiled (pip does it); here PYTHONDONTWRITEBYTECODE may be
    # set, and a stale cache would make every import of ours compile from source: compile it first.
    compileall.compile_dir(str(ROOT / "components"), quiet=1)
    runs = 3 if args.quick else 5
    plan_sizes: tuple[str | int, ...] = (DEV, 100) if args.quick else (DEV, 100, 1000)
    pack_sizes = PACK_SIZES[:2] if args.quick else PACK_SIZES
    import_runs = 7  # the noisiest row: 7 interpreters each even with --quick
    print(
        f"gpu-node-pools benchmarks: {os.cpu_count()} CPUs, Python {platform.python_version()}, pulumi {version('pulumi')}, "
        f"pulumi_policy {version('pulumi_policy')}; processes: median of {runs} runs, plan and floor in turn (spread min-max)"
    )
    rows: list[tuple[str, ...]] = []
    audit_sizes = AUDIT_NODES[:2] if args.quick else AUDIT_NODES
    if args.audit:
        with tempfile.TemporaryDirectory(prefix="gpupool-bench-") as tmp:
            rows, peaks = audit_rows(Path(tmp), audit_sizes, runs)
        _table(rows)
        print("summary: " + _audit_verdict(peaks))
        return
    with tempfile.TemporaryDirectory(prefix="gpupool-bench-") as tmp:
        audit, peaks = audit_rows(Path(tmp), audit_sizes, runs) if not args.plan else ([], {})
        warm = stacks.write_project(Path(tmp) / "warm", 3)  # one pool of each backend
        projects: dict[str | int, tuple[Path, str]] = {DEV: (ROOT, DEV)}
        for n in plan_sizes:
            if n != DEV:
                projects[n] = (stacks.write_project(Path(tmp) / f"p{n}", int(n)), "bench")
        inproc, programs = {}, {}
        for n, (project, stack) in projects.items():
            programs[n] = Path(tmp) / f"typed_{n}.py"
            repeats = 1 if n == 1000 else 3
            inproc[n] = _worker("capture", str(project), stack, str(repeats), str(warm), str(programs[n]))
        whole: dict[Any, dict[str, list[tuple[float, float]]]] = {n: {"plan": [], "floor": []} for n in projects}
        # the gpupool process tunes its collector (gpu_node_pool.sdk.process): the floor process gets the same
        floor_env = {typed_floor.GC_ENV: ",".join(map(str, adapter.gc_thresholds()))}
        for _ in range(runs):  # every size, plan then floor, round after round
            for n, (project, stack) in projects.items():
                whole[n]["plan"].append(_process([GPUPOOL, "plan", "--stack", stack, "--project-dir", str(project)], ROOT))
                whole[n]["floor"].append(_process([PYTHON, TYPED_FLOOR, str(programs[n])], ROOT, floor_env))
        sizes = {f"{r}:{d}:{p}": (r, d, p) for r, d, p in pack_sizes}
        sdk_max = max(r for r, _, _ in pack_sizes) if args.full else 50_000
        if args.plan:
            plan_table, plan_verdict = plan_rows(projects, inproc, whole)
            _table(plan_table)
            print("summary: " + "; ".join(plan_verdict))
            return
        pack = _worker("pack", ",".join(sizes), "2" if args.quick else "3", "1", str(sdk_max), "3" if args.quick else "5")

    plan_table, plan_verdict = plan_rows(projects, inproc, whole)
    rows += plan_table
    pack_ours, pack_sdk, one_noop = {}, {}, {}
    level_ratio: dict[str, dict[int, list[float]]] = {}
    noop_share = 0.0
    for size, (resources, daemonsets, pools) in sizes.items():
        r = pack[size]
        pack_ours[resources], pack_sdk[resources] = r["ours"], r["sdk"]
        noop_share = r["noop"] / r["sdk"] if r["noop"] else noop_share
        label = f"{r['resources'] // 1000}k res ({daemonsets} DS, {pools} pools)"
        whole_pack = f"whole pack ({r['policies']})"
        rows.append((f"{whole_pack}, our runner", label, f"{r['ours']:.3f} s", "", "", f"{r['findings']} findings"))
        if r["sdk"] is None:
            rows.append((f"{whole_pack}, SDK analyzer", label, "-", "", "", "not run (make bench ARGS=--full)"))
            continue
        rows.append((f"{whole_pack}, SDK analyzer", label, f"{r['sdk']:.3f} s", "", "",
                     f"{r['sdk'] / r['ours']:.2f}x our runner; {r['diagnostics']} diagnostics"))
        if r["noop"] is not None:
            rows.append((f"SDK analyzer, {r['policies']} no-op policies", label, f"{r['noop']:.3f} s", "", "",
                         f"the SDK's own decoding: {r['noop'] / r['sdk']:.0%} of the SDK path"))
        one_noop[resources] = r["one"]
        rows.append(("SDK analyzer, 1 no-op stack policy", label, f"{r['one']:.3f} s", "", "",
                     "one decoding of the stack: the least any pack pays on this path"))
        two = statistics.median(r["two_runs"])
        rows.append(("SDK analyzer, 2 no-op stack policies", label, f"{two:.3f} s", _spread(r["two_runs"]), "",
                     f"two decodings of the stack; {two / r['one']:.2f}x one"))
        for key, what in (("level", "per-level pack, default levels (2 in use)"),
                          ("level_one", "per-level pack, all rules mandatory (1 in use)")):
            runs_l = r[f"{key}_runs"]
            ratios = [t / o for t, o in zip(runs_l, r["one_runs"], strict=True)]
            level_ratio.setdefault(key, {})[resources] = ratios
            rows.append((f"SDK analyzer, {what}", label, f"{statistics.median(runs_l):.3f} s", _spread(runs_l), "",
                         f"{statistics.median(ratios):.2f}x one no-op stack policy (paired {min(ratios):.2f}-"
                         f"{max(ratios):.2f}); {r[f'{key}_found']} diagnostics"))

    cli = [adapter.CLI_MODULE, *adapter.PROGRAM_MODULES]
    sdk_packages = _import_once(cli)["pulumi_packages"]
    libraries = [*sdk_packages, "pydantic", "yaml"]  # the libraries the CLI validates and reads with
    times: list[list[float]] = [[], [], []]
    for _ in range(import_runs):  # the three take turns
        for i, modules in enumerate((cli, sdk_packages, libraries)):
            times[i].append(_import_once(modules)["seconds"])
    ours_imp, sdk_imp, lib_imp = (statistics.median(t) for t in times)
    import_pairs = [o / k for o, k in zip(times[0], times[1], strict=True)]
    import_ratio = ours_imp / sdk_imp
    rows.append(("import, cold", "gpupool CLI + program, pool, policies", f"{ours_imp:.3f} s", _spread(times[0]), "",
                 f"{import_ratio:.2f}x the SDK import it needs (median of {import_runs} interpreters)"))
    rows.append(("import, cold", " + ".join(sdk_packages), f"{sdk_imp:.3f} s", _spread(times[1]), "", "the SDK import"))
    rows.append(("import, cold", "the SDK + pydantic + yaml", f"{lib_imp:.3f} s", _spread(times[2]), "",
                 f"{lib_imp / sdk_imp:.2f}x the SDK (pulumi imports yaml; `import pydantic` is lazy)"))

    rows += audit
    _table(rows)

    big = max(pack_ours)
    mid = sorted(pack_ours)[1] if len(pack_ours) > 2 else big
    small = min(pack_ours)
    growth = pack_ours[big] / pack_ours[small]
    verdict = [
        *plan_verdict[:-1],
        f"import {import_ratio:.2f}x the SDK " + judged(import_pairs, IMPORT_TARGET, "import"),
        *(f"per-level pack at {size // 1000}k {statistics.median(ratios):.2f}x one no-op stack policy ({label}) "
          + judged(ratios, LEVEL_TARGET, "SDK path")
          for key, label in (("level", "default levels"), ("level_one", "one level")) if key in level_ratio
          for size, ratios in sorted(level_ratio[key].items())),
        f"whole pack at {mid // 1000}k {pack_ours[mid]:.2f} s ours "
        + met(pack_ours[mid] < RUNNER_TARGET, f"< {RUNNER_TARGET} s")
        + f", {pack_sdk[mid]:.2f} s SDK analyzer " + met(pack_sdk[mid] < SDK_TARGET, f"< {SDK_TARGET} s")
        + f" ({noop_share:.0%} of it the SDK's own decoding; one no-op stack policy alone {one_noop[mid]:.2f} s)",
        f"growth {small // 1000}k->{big // 1000}k {growth:.2f}x "
        + met(growth <= GROWTH_TARGET * big / small / 10, f"<= {GROWTH_TARGET * big / small / 10:.1f}x"),
        plan_verdict[-1],  # the engine-free floor
    ]
    verdict.append(_audit_verdict(peaks))
    print("summary: " + "; ".join(verdict))


def met(ok: bool, target: str) -> str:
    return f"({'met' if ok else 'NOT met'}: {target})"


def judged(ratios: list[float], target: float, what: str) -> str:
    """The verdict of an at-most target from paired ratios: ``met`` when even the largest ratio is
    within it, ``NOT met`` when even the smallest exceeds it, ``within noise`` when min-max straddle it."""
    low, high = min(ratios), max(ratios)
    word = "met" if high <= target else "NOT met" if low > target else "within noise"
    return f"({word}: {what} <= {target}x; paired {low:.2f}-{high:.2f}, {len(ratios)} pairs)"


def _table(rows: list[tuple[str, ...]]) -> None:
    header = ("measure", "size", "time", "spread", "peak RSS", "notes")
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    line = "  ".join(f"{{:<{w}}}" for w in widths)
    print(line.format(*header))
    print(line.format(*("-" * w for w in widths)))
    for row in rows:
        print(line.format(*row))


def _audit_verdict(peaks: dict[int, float]) -> str:
    largest = max(peaks)
    return (f"audit peak RSS {' / '.join(f'{peaks[n]:.0f}' for n in sorted(peaks))} MiB at "
            f"{'/'.join(map(str, sorted(peaks)))} nodes "
            + met(largest < 5000 or peaks[largest] < AUDIT_RSS_TARGET, f"< {AUDIT_RSS_TARGET} MiB at 5000 nodes"
                  + ("" if largest >= 5000 else f"; --quick measured {largest} only")))


if __name__ == "__main__":
    main()
