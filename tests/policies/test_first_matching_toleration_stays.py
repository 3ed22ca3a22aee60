"""Against a ``NoExecute`` taint, Kubernetes applies the FIRST toleration that matches it, and only that one: the
taint-eviction controller keeps the first match per taint (``GetMatchingTolerations``, kubernetes
``pkg/apis/core/v1/helper/helpers.go``) and evicts after its ``tolerationSeconds`` (``getMinTolerationTime``,
``pkg/controller/tainteviction/taint_eviction.go``). A DaemonSet whose timed toleration comes before an untimed one is
evicted; the other way round it stays. The pack, the audit and the audit's what-if say so, and their fix names the
toleration that matches first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from builders import daemonset, node_group, run

from gpu_node_pool.audit.declared import Declared, DeclaredPool
from gpu_node_pool.audit.report import run_audit
from gpu_node_pool.audit.snapshot import Snapshot
from gpu_node_pool.cli.commands import main
from gpu_node_pool.k8s.taints import Taint
from gpu_node_pool.policies import rules as d

TIMED = {"key": "example.com/drain", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}
TIMED_TEXT = "{key: example.com/drain, operator: Exists, effect: NoExecute, tolerationSeconds: 60}"
EVERYTHING = {"operator": "Exists"}
DRAIN = "example.com/drain=x:NoExecute"


def node(name: str, taints: list[dict[str, str]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"gpu-node-pools/pool": "gpu", "nvidia.com/gpu.present": "true"}},
            "spec": {"taints": taints},
            "status": {"capacity": {"nvidia.com/gpu": "1"}, "allocatable": {"nvidia.com/gpu": "1"}}}


def agent(tolerations: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "ops"},
            "spec": {"selector": {"matchLabels": {"app": "agent"}},
                     "template": {"metadata": {"labels": {"app": "agent"}},
                                  "spec": {"tolerations": tolerations,
                                           "containers": [{"name": "agent", "image": "example.com/agent:1.0"}]}}}}


def drained_node() -> dict[str, Any]:
    return node("gpu-1", [{"key": "example.com/drain", "value": "x", "effect": "NoExecute"}])


@pytest.mark.parametrize(("tolerations", "evicted"), [([TIMED, EVERYTHING], True), ([EVERYTHING, TIMED], False)])
def test_the_pack_judges_the_first_matching_toleration(tolerations, evicted):
    stack = [node_group(taints=(DRAIN,)), daemonset(tolerations=tolerations)]
    found = run(d.daemonsets_tolerate_gpu_taints.POLICY, stack)
    if evicted:
        (failure,) = found
        assert f"{DRAIN} tolerated for 60 s, then evicted" in failure["message"]
    else:
        assert found == []


def test_the_audit_says_a_timed_first_match_evicts_and_tells_to_remove_its_seconds(capsys, tmp_path: Path):
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                "items": [drained_node(), agent([TIMED, EVERYTHING])]}))
    code = main(["audit", "--cluster-dump", str(path), "--json"])
    report = json.loads(capsys.readouterr().out)
    [finding] = [f for f in report["findings"] if f["code"] == "daemonset-does-not-run"]
    assert finding["message"].startswith(f"in GpuNodePool gpu: runs for 60 s, then is evicted and recreated: {DRAIN}")
    assert finding["fix"].startswith(f"remove tolerationSeconds from its toleration {TIMED_TEXT} ({DRAIN} evicts its "
                                     "pod after 60 s)")
    assert code == 1

    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                "items": [drained_node(), agent([EVERYTHING, TIMED])]}))
    main(["audit", "--cluster-dump", str(path), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["daemonSets"][0]["pools"]["GpuNodePool gpu"]["status"] == "runs"
    assert not [f for f in report["findings"] if f["code"] == "daemonset-does-not-run"]


def _would_stop(tolerations: list[dict[str, Any]]) -> list[Any]:
    """The what-if's ``whatif-would-stop`` findings for ``agent(tolerations)``, running now on an untainted node of pool
    gpu, when the stack adds ``example.com/drain=x:NoExecute`` to the pool."""
    snapshot = Snapshot("dump")
    snapshot.add("Node", node("gpu-1", []))
    snapshot.add("DaemonSet", agent(tolerations))
    pool = DeclaredPool(0, "gpu", "eks-managed", [Taint.parse(DRAIN)], {"gpu-node-pools/pool": "gpu"})
    report = run_audit(snapshot, declared=Declared("s", [pool], []))
    return [f for f in report.findings if f.code == "whatif-would-stop"]


def test_the_what_if_tells_to_remove_the_seconds_from_the_toleration_that_matches_first():
    [stop] = _would_stop([TIMED])
    assert stop.message == (f"adding {DRAIN} to pool gpu would stop it (it runs now on gpu-1): {DRAIN} tolerated for "
                            "60 s, then evicted")
    # adding an untimed toleration AFTER the timed one would change nothing: the fix is on the one that matches first
    assert stop.fix == f"remove tolerationSeconds from its toleration {TIMED_TEXT} ({DRAIN} evicts its pod after 60 s)"

    [stop] = _would_stop([TIMED, EVERYTHING])  # an untimed toleration after it: still evicted
    assert stop.fix == f"remove tolerationSeconds from its toleration {TIMED_TEXT} ({DRAIN} evicts its pod after 60 s)"
    assert _would_stop([EVERYTHING, TIMED]) == []  # the untimed one matches first: it stays


def test_the_what_if_names_the_toleration_to_add_for_a_taint_not_tolerated():
    [stop] = _would_stop([])
    assert stop.message == f"adding {DRAIN} to pool gpu would stop it (it runs now on gpu-1): {DRAIN} not tolerated"
    assert stop.fix == f"tolerate {DRAIN} with {{key: example.com/drain, operator: Exists, effect: NoExecute}}"
