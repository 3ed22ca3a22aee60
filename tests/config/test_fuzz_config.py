"""Config fuzzing: hundreds of generated invalid stack configs through the plan and the program.

Each case starts from a shipped stack (so every backend the stacks use is covered), applies
one mutation from a class of real mistakes, writes it as a YAML stack file, and runs it
through both entry points:

* the plan (``gpupool plan``): exit 2, every issue names a config path, no traceback;
* the program ``pulumi up`` runs (``__main__.py`` under mocks): a ``pulumi.RunError`` whose
  cause is a :class:`ConfigError`, and zero resources registered.

The per-class counts are in RELIABILITY.md; ``FUZZ_COUNTS`` below is what CI runs.
"""

from __future__ import annotations

import copy
import io
import json
import shutil
from collections import Counter
from pathlib import Path

import pulumi
import pytest
import yaml
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_node_pool.config import ConfigError
from gpu_node_pool.plan import load_stack_file, plan_stack, print_result, record_program

STACK_FILES = sorted((ROOT / "stacks").glob("Pulumi.*.yaml"))
BASES = {p.name: yaml.safe_load(p.read_text()) for p in STACK_FILES}

#: mutation class -> generated cases per CI run (RELIABILITY.md quotes these numbers).
FUZZ_COUNTS = {
    "wrong type": 60,
    "missing key": 40,
    "unknown key": 40,
    "bad taint": 80,
    "bad label for the backend": 60,
    "duplicate": 30,
    "limit exceeded": 30,
    "empty list": 20,
    "yaml oddity": 40,
}

BAD_LABEL_BY_BACKEND = {
    "eks-managed": ["node-role.kubernetes.io/gpu", "eks.amazonaws.com/nodegroup", "k8s.io/x"],
    "gke": ["node-role.kubernetes.io/gpu", "cloud.google.com/gke-nodepool", "k8s.io/x"],
    "karpenter": ["karpenter.sh/team", "kubernetes.io/hostname", "karpenter.k8s.aws/instance-foo"],
    "self-managed": ["node-role.kubernetes.io/gpu", "node-restriction.kubernetes.io/x", "k8s.io/x"],
    "eks-auto": ["karpenter.k8s.aws/instance-family", "eks.amazonaws.com/nodegroup", "node-role.kubernetes.io/gpu",
                 "karpenter.sh/team"],
}
BAD_TAINTS = [
    "nvidia.com/gpu=present:NO_SCHEDULE",
    "nvidia.com/gpu=present",
    "a/b/c=v:NoSchedule",
    "-x=v:NoSchedule",
    "k=bad value:NoSchedule",
    "k=" + "v" * 64 + ":NoSchedule",
    "=v:NoSchedule",
    "k=v:Evict",
    "Bad.Prefix/k=v:NoSchedule",
    {"key": "k", "value": "v"},
    {"key": "k", "value": "v", "effect": "NoSchedule", "operator": "Equal"},
    {"key": "k", "value": 1, "effect": "NoSchedule"},
]
WRONG_VALUES = [7, 3.5, True, ["x"], {"a": 1}, "Not A Number!"]


def _pools(doc):
    return doc["config"]["gpu-node-pools:pools"]


@st.composite
def mutation(draw, kind: str):
    """(stack yaml text, the class) for one invalid config of the given class."""
    name = draw(st.sampled_from(sorted(BASES)))
    doc = copy.deepcopy(BASES[name])
    pools = _pools(doc)
    i = draw(st.integers(0, len(pools) - 1))
    pool = pools[i]
    text = None
    if kind == "wrong type":
        field = draw(st.sampled_from(sorted(k for k in pool if k not in ("backend",))))
        value = draw(st.sampled_from([v for v in WRONG_VALUES if type(v) is not type(pool[field])]))
        if field == "labels" and value == {"a": 1}:
            value = 5
        pool[field] = value
    elif kind == "missing key":
        target = draw(st.sampled_from(["pool-name", "backend", "cluster", "pools", "cluster-name"]))
        if target == "pool-name":
            del pool["name"]
        elif target == "backend":
            del pool["backend"]
        elif target == "cluster":
            del doc["config"]["gpu-node-pools:cluster"]
        elif target == "pools":
            del doc["config"]["gpu-node-pools:pools"]
        else:
            del doc["config"]["gpu-node-pools:cluster"]["name"]
    elif kind == "unknown key":
        where = draw(st.sampled_from(["pool", "cluster", "project", "scaling-like"]))
        key = draw(st.sampled_from(["minsize", "taint", "lables", "instanceType", "foo", "nodeSelector"]))
        if where == "pool":
            pool[key] = "x"
        elif where == "cluster":
            doc["config"]["gpu-node-pools:cluster"][key] = "x"
        elif where == "project":
            doc["config"][f"gpu-node-pools:{key}"] = "x"
        else:
            nested = next((v for k2, v in pool.items() if isinstance(v, dict) and v and k2 not in ("labels", "tags")), None)
            target = nested if nested is not None else pool
            target[key] = 1
    elif kind == "bad taint":
        pool["taints"] = list(pool.get("taints") or []) + [draw(st.sampled_from(BAD_TAINTS))]
    elif kind == "bad label for the backend":
        key = draw(st.sampled_from(BAD_LABEL_BY_BACKEND[pool["backend"]]))
        pool["labels"] = dict(pool.get("labels") or {}) | {key: "x"}
    elif kind == "duplicate":
        which = draw(st.sampled_from(["taint", "pool-name"]))
        if which == "taint":
            taint = "nvidia.com/gpu=present:NoSchedule"
            pool["taints"] = [taint, "nvidia.com/gpu=other:NoSchedule"]
        else:
            pools.append(copy.deepcopy(pool))
    elif kind == "limit exceeded":
        which = draw(st.sampled_from(["51 taints", "long value", "long name", "min above max"]))
        if which == "51 taints":
            pool["taints"] = [f"k{n}=v:NoSchedule" for n in range(51)] if pool["backend"] == "eks-managed" else [
                "k" * 64 + "=v:NoSchedule"]
        elif which == "long value":
            pool["labels"] = {"example.com/x": "v" * 64}
        elif which == "long name":
            pool["name"] = "p" * 64
        else:
            scaling_key = next((k for k in ("scaling", "autoscaling") if k in pool), None)
            if scaling_key:
                pool[scaling_key] = {"minSize": 5, "maxSize": 2}
            else:
                pool["name"] = "Upper_Case"
    elif kind == "empty list":
        which = draw(st.sampled_from(["pools", "instance types or requirements"]))
        if which == "pools":
            doc["config"]["gpu-node-pools:pools"] = []
        else:
            key = next((k for k in ("instanceTypes", "instanceFamilies", "nodeLocations") if k in pool), None)
            if key:
                pool[key] = []
            else:
                doc["config"]["gpu-node-pools:pools"] = []
    elif kind == "yaml oddity":
        # Written as raw YAML so the parser, not Python, decides the type: each is no string as written to Pulumi's
        # YAML reader (yes/on are strings there, so they are valid label and taint values and pool names).
        odd = draw(st.sampled_from(["true", "FALSE", "1.30", "0x1F", "~", "010", ".inf", "1e3", "2026-01-01"]))
        where = draw(st.sampled_from(["label", "taint value", "pool name"]))
        base = yaml.safe_dump(doc, sort_keys=False)
        if where == "label":
            pool["labels"] = dict(pool.get("labels") or {}) | {"example.com/odd": "__ODD__"}
        elif where == "taint value":
            pool["taints"] = [{"key": "example.com/odd", "value": "__ODD__", "effect": "NoSchedule"}]
        else:
            pool["name"] = "__ODD__"
        text = yaml.safe_dump(doc, sort_keys=False).replace("'__ODD__'", odd).replace("__ODD__", odd)
        del base
    return (text if text is not None else yaml.safe_dump(doc, sort_keys=False)), kind


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("fuzz")
    shutil.copy(ROOT / "Pulumi.yaml", d / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", d / "__main__.py")
    (d / "stacks").mkdir()
    return d


SEEN: Counter = Counter()


def check_invalid(project: Path, text: str) -> None:
    (project / "stacks" / "Pulumi.fuzz.yaml").write_text(text)
    # 1. the plan
    result = plan_stack("fuzz", project)
    assert result.exit_code == 2, text
    assert result.config_issues, text
    assert all(issue.path for issue in result.config_issues), result.config_issues
    out = io.StringIO()
    print_result(result, stream=out)
    assert "Traceback" not in out.getvalue()
    assert result.resources == []
    # 2. the program, as `pulumi up` runs it
    try:
        config, secrets, _ = load_stack_file(project, "fuzz")
    except ConfigError:
        return  # unreadable YAML never reaches the program
    registered = []
    with pytest.raises(pulumi.RunError) as exc:
        record_program(project / "__main__.py", config, secrets, stack="fuzz", sink=registered)
    assert isinstance(exc.value.__cause__, ConfigError)
    assert registered == []


@pytest.mark.parametrize("kind", sorted(FUZZ_COUNTS))
def test_generated_invalid_configs_exit_2_with_paths_and_register_nothing(project, kind):
    @settings(max_examples=FUZZ_COUNTS[kind], derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(mutation(kind))
    def run(case):
        text, k = case
        SEEN[k] += 1
        check_invalid(project, text)

    run()
    # Hypothesis stops early once it has tried every distinct case of a small class.
    assert SEEN[kind] >= min(FUZZ_COUNTS[kind], 10)
    print(f"fuzz class {kind!r}: {SEEN[kind]} cases")


def test_fuzz_counts_match_reliability_md():
    doc = (ROOT / "RELIABILITY.md").read_text()
    for kind, count in FUZZ_COUNTS.items():
        assert f"| {kind} | {count} " in doc, kind
    assert json.dumps(FUZZ_COUNTS)  # the table is generated from this dict
