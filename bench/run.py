"""Benchmarks of gpu-node-pools: the offline plan against the Pulumi SDK floor, the stack
policies at scale, and the cold import. Prints one table; every figure comes from this run.

    venv/bin/python bench/run.py            # or: make bench   (a few minutes on 2 cores)
    venv/bin/python bench/run.py --quick    # fewer repeats, smaller policy stacks (a smoke run)

What is measured (details in BENCHMARKS.md):

* plan: ``gpu_node_pool.plan.plan_stack`` (the code behind ``gpupool plan``) on a synthetic
  project whose ``__main__.py`` runs the real program (``gpu_node_pool.program.main``: read
  and validate the stack config, ``build`` the pools and the device plugin) and declares 20
  DaemonSets from the corpus with ``pulumi_kubernetes``; the plan then summarises and
  evaluates all nine policies. 1, 10 and 100 pools, mixed AWS backends (eks-managed,
  karpenter, self-managed). Each size runs in a fresh subprocess: imports, one warm-up run,
  then the median of the timed repeats (imports are not in the figure: see ``import``), each
  with the renderers' and readers' memo caches emptied first. Peak memory is the tracemalloc
  peak of one extra run (tracemalloc slows Python down, so that run is not timed); the RSS
  column is the subprocess's ``ru_maxrss`` (imports included).
* floor: the same resources (types, names, camelCase inputs, custom/component, parents),
  captured from the plan's own run, registered with bare ``pulumi.CustomResource`` /
  ``pulumi.ComponentResource`` under the plan's mocks (``gpu_node_pool.plan.record``): no
  component, no validation, no policies. The physical limit of a Pulumi Python program here.
* policies: ``gpu_node_pool.policies.evaluate`` with the five stack policies only, over
  synthetic stacks of 1k, 10k and 50k resources (100, 1k and 5k DaemonSets; 10, 50 and 100
  pools recorded from the real program; Deployments, ConfigMaps, Services and IAM roles as
  filler). The whole pack (resource policies too) is shown beside it. One subprocess holds the
  three stacks and measures them in turn, round after round (medians per size), so that a slow
  minute of the machine weighs on every size alike.
* import: a cold ``import`` of the modules the program and the plan use
  (``gpu_node_pool.program``, ``.pool``, ``.device_plugin``, ``.policies``), timed inside a
  fresh interpreter (its own start-up excluded), against a cold import of the Pulumi SDK
  packages that import pulls in (``pulumi``, ``pulumi_policy``: the provider SDKs are imported
  lazily, when a pool of that backend is built); the median of several fresh interpreters
  each, the two taking turns. A third line adds pydantic and ``gpu_node_pool.config`` to the
  SDK, to show what the difference is made of.

No figure is asserted anywhere; tests do not time anything.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from gpu_node_pool.taints import Taint, TaintEffect  # effects are spelled by taints.py alone

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus" / "daemonsets"
PYTHON = sys.executable

PLAN_SIZES = (1, 10, 100)
POLICY_SIZES = ((1_000, 100, 10), (10_000, 1_000, 50), (50_000, 5_000, 100))  # resources, DaemonSets, pools
N_DAEMONSETS = 20
BACKENDS = ("eks-managed", "karpenter", "self-managed")

# --- synthetic stacks -------------------------------------------------------------------

CLUSTER = {
    "name": "ml-bench",
    "kubernetesVersion": "1.33",
    "apiServerEndpoint": "https://3F1A2B4C5D6E7F8091A2B3C4D5E6F708.gr7.us-east-1.eks.amazonaws.com",
    "certificateAuthority": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSURCVENDQWUyZ0F3SUJBZ0lJUGxhY2Vob2xkZXJNQTBH"
    "Q1NxR1NJYjNEUUVCQ3dVQU1CVXhFekFSQmdOVkJBTVRDbXQxWW1WeWJtVjBaWE13Ci0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K",
    "serviceCidr": "10.100.0.0/16",
    "nodeRoleArn": "arn:aws:iam::444455556666:role/ml-bench-gpu-node",
    "subnetIds": ["subnet-07a1c2e3f4a5b6c7d", "subnet-0b8c9d0e1f2a3b4c5"],
}
GPU_TAINT = str(Taint("nvidia.com/gpu", "present", TaintEffect.NO_SCHEDULE))
TEAMS = 4  # pools carry one of 4 team taints: 5 distinct taints however many pools


def pool_config(i: int) -> dict[str, Any]:
    """Pool ``i`` of a synthetic stack: backends in turn, half of them scaling from zero."""
    backend = BACKENDS[i % len(BACKENDS)]
    team = f"t{i % TEAMS}"
    common = {
        "name": f"p{i:03d}-{backend.split('-')[0]}",
        "backend": backend,
        "taints": [GPU_TAINT, str(Taint("team", team, TaintEffect.NO_SCHEDULE))],
        "labels": {"workload": f"w{i}", "example.com/team": team},
    }
    if backend == "eks-managed":
        return {
            **common,
            "instanceTypes": ["g6.xlarge", "g6.2xlarge"],
            "amiType": "AL2023_x86_64_NVIDIA",
            "capacityType": "ON_DEMAND",
            "scaling": {"minSize": 0 if i % 2 == 0 else 1, "maxSize": 8},
            "updateConfig": {"maxUnavailable": 1},
            "tags": {"team": team, "env": "bench"},
        }
    if backend == "karpenter":
        return {
            **common,
            "instanceFamilies": ["g6e", "g6"],
            "gpuCounts": [1],
            "capacityTypes": ["spot", "on-demand"],
            "nodeClass": {"amiAlias": "al2023@latest", "role": "KarpenterNodeRole-ml-bench", "tags": {"team": team}},
            "limits": {"nvidia.com/gpu": 32},
            "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"},
        }
    return {
        **common,
        "format": "al2023",
        "provider": "aws",
        "instanceTypes": ["g6e.12xlarge"],
        "scaling": {"minSize": 0 if i % 2 == 0 else 1, "maxSize": 6},
        "securityGroupIds": ["sg-0a1b2c3d4e5f60718"],
        "tags": {"team": team, "env": "bench"},
    }


def stack_config(pools: int) -> dict[str, Any]:
    return {
        "gpu-node-pools:cluster": CLUSTER,
        "gpu-node-pools:pools": [pool_config(i) for i in range(pools)],
        "gpu-node-pools:devicePlugin": {"namespace": "nvidia-device-plugin"},
    }


def corpus_daemonsets(count: int) -> list[dict[str, Any]]:
    """``count`` DaemonSet manifests: the corpus, then renamed copies of it."""
    import yaml

    base = [yaml.safe_load(p.read_text()) for p in sorted(CORPUS.glob("*.yaml"))]
    out = []
    for i in range(count):
        ds = copy.deepcopy(base[i % len(base)])
        if i >= len(base):
            ds["metadata"]["name"] = f"{ds['metadata']['name']}-{i // len(base)}"
        out.append(ds)
    return out


PROGRAM = '''\
"""Benchmark program: the real gpu-node-pools program plus DaemonSets from the corpus."""
import json
from pathlib import Path

import pulumi_kubernetes as k8s

from gpu_node_pool.program import main

main()
for ds in json.loads((Path(__file__).parent / "daemonsets.json").read_text()):
    name = f"{ds['metadata']['namespace']}-{ds['metadata']['name']}"
    k8s.apps.v1.DaemonSet(name, metadata=ds["metadata"], spec=ds["spec"])
'''


def write_project(where: Path, pools: int) -> Path:
    """A Pulumi project in ``where`` with stack ``bench``: ``pools`` pools and 20 DaemonSets."""
    import yaml

    (where / "stacks").mkdir(parents=True, exist_ok=True)
    (where / "Pulumi.yaml").write_text("name: gpu-node-pools\nruntime: python\nstackConfigDir: stacks\n")
    (where / "stacks" / "Pulumi.bench.yaml").write_text(yaml.safe_dump({"config": stack_config(pools)}, sort_keys=False))
    (where / "daemonsets.json").write_text(json.dumps(corpus_daemonsets(N_DAEMONSETS)))
    (where / "__main__.py").write_text(PROGRAM)
    return where


# --- measuring helpers --------------------------------------------------------------------


def _median_time(fn: Any, repeats: int, before: Any = None) -> float:
    times = []
    for _ in range(repeats):
        if before is not None:
            before()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _peak(fn: Any, before: Any = None) -> int:
    """Peak bytes allocated by Python while ``fn`` runs (tracemalloc; that run is not timed)."""
    import tracemalloc

    if before is not None:
        before()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _maxrss_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cold_caches() -> None:
    """Forget what the renderers and readers memoise, so that every timed plan starts cold."""
    from gpu_node_pool.render import kubelet

    kubelet._found_in_text.cache_clear()
    kubelet._RENDERED.clear()


def _worker(*args: str) -> dict[str, Any]:
    out = subprocess.run([PYTHON, __file__, "--worker", *args], capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        raise SystemExit(f"worker {' '.join(args)} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- workers (each runs in a fresh interpreter) ---------------------------------------------


def work_plan(project: str, repeats: int, capture: str) -> dict[str, Any]:
    """Time ``plan_stack`` on ``project``; write what it registered to ``capture`` for the floor."""
    from gpu_node_pool import plan

    def run() -> Any:
        result = plan.plan_stack("bench", project)
        assert not result.config_issues, result.config_issues
        return result

    result = run()  # warm-up: the provider SDKs import their modules on first use
    seconds = _median_time(run, repeats, _cold_caches)
    peak = _peak(run, _cold_caches)
    captured = [
        {"type": r.type, "name": r.name, "custom": r.custom, "urn": r.urn, "parent": r.parent, "inputs": r.inputs}
        for r in result.resources
        if not r.synthesized  # the plan's mocks make the chart's DaemonSet up again in the floor
    ]
    Path(capture).write_text(json.dumps(captured))
    return {
        "seconds": seconds,
        "peak": peak,
        "rss_mib": _maxrss_mib(),
        "resources": len(result.resources),
        "findings": len(result.violations),
    }


def work_floor(capture: str, repeats: int) -> dict[str, Any]:
    """Register the captured resources with bare SDK resource classes under the plan's mocks."""
    import pulumi

    from gpu_node_pool.plan import record

    captured = json.loads(Path(capture).read_text())

    def program() -> None:
        by_urn: dict[str, pulumi.Resource] = {}
        for r in captured:
            parent = by_urn.get(r["parent"])
            opts = pulumi.ResourceOptions(parent=parent) if parent is not None else None
            if r["custom"]:
                res: pulumi.Resource = pulumi.CustomResource(r["type"], r["name"], dict(r["inputs"]), opts)
            else:
                # The components (GpuNodePool, NvidiaDevicePlugin) and the remote helm.v4.Chart
                # register with custom=False, as here.
                res = pulumi.ComponentResource(
                    r["type"], r["name"], dict(r["inputs"]), opts, remote=r["type"].startswith("kubernetes:")
                )
            by_urn[r["urn"]] = res

    def run() -> list[Any]:
        return record(program, {})[0]

    resources = run()
    seconds = _median_time(run, repeats)
    peak = _peak(run)
    return {"seconds": seconds, "peak": peak, "rss_mib": _maxrss_mib(), "resources": len(resources)}


FILLER_KINDS = ("Deployment", "ConfigMap", "Service", "Role", "Bucket")


def filler(i: int) -> dict[str, Any]:
    """Filler resource ``i`` of a policy stack: ordinary workloads and non-workload resources."""
    kind = FILLER_KINDS[i % len(FILLER_KINDS)]
    meta = {"name": f"filler-{i}", "namespace": "ml" if i % 2 else "apps"}
    if kind == "Deployment":
        pod: dict[str, Any] = {"containers": [{"name": "app", "image": "registry.example.com/app:1.0"}]}
        variant = (i // len(FILLER_KINDS)) % 4
        if variant == 0:  # a GPU workload done right: toleration, selector, limits
            pod["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": TaintEffect.NO_SCHEDULE.value}]
            pod["nodeSelector"] = {"nvidia.com/gpu.present": "true"}
            pod["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": 1}}
        elif variant == 1:  # tolerates a GPU taint but neither selects GPU nodes nor requests GPUs
            pod["tolerations"] = [
                {"key": "team", "operator": "Equal", "value": f"t{i % TEAMS}", "effect": TaintEffect.NO_SCHEDULE.value}
            ]
        elif variant == 2:  # an ordinary workload pinned to CPU nodes
            pod["nodeSelector"] = {"node.kubernetes.io/instance-type": "m7i.xlarge"}
        return {"type": "kubernetes:apps/v1:Deployment", "inputs": {
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta,
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": meta["name"]}},
                     "template": {"metadata": {"labels": {"app": meta["name"]}}, "spec": pod}}}}
    if kind == "ConfigMap":
        return {"type": "kubernetes:core/v1:ConfigMap", "inputs": {"metadata": meta, "data": {"key": f"value-{i}"}}}
    if kind == "Service":
        return {"type": "kubernetes:core/v1:Service", "inputs": {
            "metadata": meta, "spec": {"selector": {"app": meta["name"]}, "ports": [{"port": 80, "targetPort": 8080}]}}}
    if kind == "Role":
        return {"type": "aws:iam/role:Role", "inputs": {"name": f"filler-{i}", "assumeRolePolicy": "{}"}}
    return {"type": "aws:s3/bucketV2:BucketV2", "inputs": {"bucket": f"filler-{i}", "tags": {"team": "ml"}}}


def policy_stack(resources: int, daemonsets: int, pools: int) -> list[Any]:
    """A stack of ``resources`` resources: ``pools`` pools recorded from the real program (with the
    device plugin), ``daemonsets`` DaemonSets from the corpus, filler for the rest."""
    from gpu_node_pool import program
    from gpu_node_pool.config import load_stack_config
    from gpu_node_pool.plan import record
    from gpu_node_pool.policies import StackResource

    config = stack_config(pools)
    stack = load_stack_config(config, "bench")
    out: list[Any] = list(record(lambda: program.build(stack), config, stack="bench")[0])
    for ds in corpus_daemonsets(daemonsets):
        name = f"{ds['metadata']['namespace']}-{ds['metadata']['name']}"
        out.append(StackResource("kubernetes:apps/v1:DaemonSet", name, ds))
    i = 0
    while len(out) < resources:
        f = filler(i)
        out.append(StackResource(f["type"], f"filler-{i}", f["inputs"]))
        i += 1
    return out


def work_policies(sizes: str, repeats: int) -> dict[str, Any]:
    """Time the stack policies (and, beside them, the whole pack) over synthetic stacks of every
    size in ``sizes`` (``resources:daemonsets:pools,...``), measured in turn, round after round, so
    that a slow minute of the machine weighs on every size alike (the growth is a ratio)."""
    from pulumi_policy import StackValidationPolicy

    from gpu_node_pool.policies import POLICIES, evaluate

    stack_policies = [p for p in POLICIES if isinstance(p, StackValidationPolicy)]
    stacks = {}
    for size in sizes.split(","):
        resources, daemonsets, pools = map(int, size.split(":"))
        stacks[size] = policy_stack(resources, daemonsets, pools)
    findings = {size: len(evaluate(stack, policies=stack_policies, stack="bench")) for size, stack in stacks.items()}
    times: dict[str, list[float]] = {size: [] for size in stacks}
    packs: dict[str, list[float]] = {size: [] for size in stacks}
    for round_ in range(repeats):
        for size, stack in stacks.items():
            start = time.perf_counter()
            evaluate(stack, policies=stack_policies, stack="bench")
            times[size].append(time.perf_counter() - start)
            if round_ < max(1, repeats // 2):
                start = time.perf_counter()
                evaluate(stack, stack="bench")
                packs[size].append(time.perf_counter() - start)
    return {
        size: {
            "seconds": statistics.median(times[size]),
            "pack": statistics.median(packs[size]),
            "resources": len(stacks[size]),
            "findings": findings[size],
        }
        for size in stacks
    }


#: What the program and the plan import from the package (``gpupool plan`` and ``__main__.py``).
OURS = ("gpu_node_pool.program", "gpu_node_pool.pool", "gpu_node_pool.device_plugin", "gpu_node_pool.policies")


#: Run in a fresh interpreter (``python -c``, nothing of the benchmark loaded): import the
#: modules in ``sys.argv[1]`` (comma-separated), report the time and which pulumi packages came in.
IMPORT_PROBE = """
import importlib, json, sys, time
names = sys.argv[1].split(",")
start = time.perf_counter()
for name in names:
    importlib.import_module(name)
seconds = time.perf_counter() - start
packages = sorted({m.split(".")[0] for m in sys.modules if m.split(".")[0].startswith("pulumi")})
print(json.dumps({"seconds": seconds, "pulumi_packages": packages, "modules": len(sys.modules)}))
"""


def _import_once(modules: list[str]) -> dict[str, Any]:
    out = subprocess.run([PYTHON, "-c", IMPORT_PROBE, ",".join(modules)], capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        raise SystemExit(f"importing {modules} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _import_medians(sets: list[list[str]], runs: int) -> list[float]:
    """Median cold-import time of each set of modules; the sets take turns, so that a slow minute
    of the machine weighs on each alike (the figure that matters is a ratio)."""
    times: list[list[float]] = [[] for _ in sets]
    for _ in range(runs):
        for i, modules in enumerate(sets):
            times[i].append(_import_once(modules)["seconds"])
    return [statistics.median(t) for t in times]


# --- the table ------------------------------------------------------------------------------


def _mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="fewer repeats and smaller policy stacks (a smoke run)")
    args = parser.parse_args()
    if args.worker:
        kind, *rest = args.worker
        if kind == "plan":
            out = work_plan(rest[0], int(rest[1]), rest[2])
        elif kind == "floor":
            out = work_floor(rest[0], int(rest[1]))
        elif kind == "policies":
            out = work_policies(rest[0], int(rest[1]))
        else:
            raise SystemExit(f"unknown worker {kind}")
        print(json.dumps(out))
        return

    repeats = 2 if args.quick else 5
    policy_repeats = 2 if args.quick else 7
    import_runs = 3 if args.quick else 9
    policy_sizes = tuple((r // 10, d // 10, p) for r, d, p in POLICY_SIZES) if args.quick else POLICY_SIZES
    import platform
    from importlib.metadata import version

    print(
        f"gpu-node-pools benchmarks: {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"pulumi {version('pulumi')}; times are medians of {repeats} runs "
        f"(stack policies: {policy_repeats}; imports: {import_runs} fresh interpreters)"
    )
    rows: list[tuple[str, str, str, str, str]] = []
    plan_ratio: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="gpupool-bench-") as tmp:
        for pools in PLAN_SIZES:
            project = write_project(Path(tmp) / f"p{pools}", pools)
            capture = str(Path(tmp) / f"p{pools}.json")
            p = _worker("plan", str(project), str(repeats), capture)
            f = _worker("floor", capture, str(repeats))
            plan_ratio[pools] = p["seconds"] / f["seconds"]
            size = f"{pools} pool{'s' if pools > 1 else ''} + {N_DAEMONSETS} DS = {p['resources']} res"
            rows.append(("plan (offline, 9 policies)", size, f"{p['seconds']:.3f} s",
                         f"{_mib(p['peak'])} / {p['rss_mib']:.0f} MiB", f"{p['findings']} findings"))
            rows.append(("floor (bare SDK, same mocks)", f"{f['resources']} res", f"{f['seconds']:.3f} s",
                         f"{_mib(f['peak'])} / {f['rss_mib']:.0f} MiB", f"plan/floor {plan_ratio[pools]:.2f}x"))
        policy_seconds: dict[int, float] = {}
        sizes = {f"{r}:{d}:{p}": (r, d, p) for r, d, p in policy_sizes}
        results = _worker("policies", ",".join(sizes), str(policy_repeats))
        for size, (resources, daemonsets, pools) in sizes.items():
            r = results[size]
            policy_seconds[resources] = r["seconds"]
            rows.append(("stack policies (5)", f"{r['resources']} res ({daemonsets} DS, {pools} pools)",
                         f"{r['seconds']:.3f} s", "", f"{r['findings']} findings; whole pack {r['pack']:.3f} s"))
    sdk_packages = _import_once(list(OURS))["pulumi_packages"]  # the Pulumi SDK packages our import pulls in
    ours, sdk, with_pydantic = _import_medians(
        [list(OURS), sdk_packages, [*sdk_packages, "pydantic", "gpu_node_pool.config"]], import_runs
    )
    import_ratio = ours / sdk
    rows.append(("import gpu_node_pool (cold)", "program, pool, device_plugin, policies", f"{ours:.3f} s", "",
                 f"{import_ratio:.2f}x the SDK"))
    rows.append(("import Pulumi SDK (cold)", ", ".join(sdk_packages), f"{sdk:.3f} s", "", "what it pulls in"))
    rows.append(("import SDK + config (cold)", "+ pydantic, gpu_node_pool.config", f"{with_pydantic:.3f} s", "",
                 f"{with_pydantic / sdk:.2f}x the SDK"))

    header = ("measure", "size", "time", "peak Python heap / RSS", "notes")
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    line = "  ".join(f"{{:<{w}}}" for w in widths)
    print(line.format(*header))
    print(line.format(*("-" * w for w in widths)))
    for row in rows:
        print(line.format(*row))
    sizes = sorted(policy_seconds)
    growth = policy_seconds[sizes[-1]] / policy_seconds[sizes[-2]]
    big = max(plan_ratio)
    verdicts = [
        f"plan/floor {' / '.join(f'{plan_ratio[n]:.2f}x' for n in PLAN_SIZES)} at {'/'.join(map(str, PLAN_SIZES))} pools "
        f"({'met' if plan_ratio[big] <= 1.5 else 'NOT met'}: <= 1.5x at {big})",
        f"stack policies {policy_seconds[sizes[-1]]:.2f} s at {sizes[-1] // 1000}k resources "
        f"({'met' if policy_seconds[sizes[-1]] < 2 else 'NOT met'}: < 2 s)",
        f"growth {sizes[-2] // 1000}k->{sizes[-1] // 1000}k {growth:.2f}x ({'met' if growth <= 5.5 else 'NOT met'}: <= 5.5x)",
        f"import {import_ratio:.2f}x the SDK ({'met' if import_ratio <= 1.2 else 'NOT met'}: <= 1.2x)",
    ]
    print("summary: " + "; ".join(verdicts))


if __name__ == "__main__":
    main()
