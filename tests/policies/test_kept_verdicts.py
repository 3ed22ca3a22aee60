"""Verdicts kept per content and shared across a stack's resources (copies of one chart, workloads with the same
tolerations or node selection) are the verdicts each resource gets when judged alone: no key that is too coarse.

The rules keep: a DaemonSet's failures per content of its tolerations and selection
(``daemonsets-tolerate-gpu-taints``), a workload's target pools per selection and its finding per selection
and verdicts (``gpu-workloads-tolerate-their-pool``), an agent's placement per numbered content
(:class:`~gpu_node_pool.policies.placement.ContentIds`), and a toleration read per typed content.
"""

from __future__ import annotations

import copy
import sys

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import stacks  # noqa: E402
from gpu_node_pool.k8s.taints import Toleration  # noqa: E402
from gpu_node_pool.policies import StackResource, evaluate  # noqa: E402
from gpu_node_pool.policies.workloads import NodeSelection, read_tolerations  # noqa: E402

GPU = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def _team(team: str) -> dict:
    return {"key": "team", "operator": "Equal", "value": team, "effect": "NoSchedule"}


def _daemonset(name: str, tolerations: list, selector: dict | None = None) -> StackResource:
    pod: dict = {"containers": [{"name": "agent", "image": "registry.example.com/agent:1"}], "tolerations": tolerations}
    if selector:
        pod["nodeSelector"] = selector
    return StackResource("kubernetes:apps/v1:DaemonSet", f"ops-{name}", {
        "metadata": {"name": name, "namespace": "ops"}, "spec": {"template": {"spec": pod}}})


def _deployment(name: str, tolerations: list, selector: dict) -> StackResource:
    pod = {"containers": [{"name": "app", "image": "registry.example.com/app:1"}], "tolerations": tolerations,
           "nodeSelector": selector}
    return StackResource("kubernetes:apps/v1:Deployment", name, {
        "metadata": {"name": name, "namespace": "ml"}, "spec": {"template": {"spec": pod}}})


@pytest.fixture(scope="module")
def judged():
    """The recorded pools (six, teams t0-t3), and workloads that share tolerations or selections pairwise."""
    recorded = sorted(stacks.policy_stack(0, 0, 6), key=lambda r: r.urn)
    corpus = [r for r in stacks.policy_stack(len(recorded) + 24, 24, 6) if r.type.endswith(":DaemonSet")][-24:]
    workloads = [
        *corpus,  # the corpus and one renamed copy of it
        _daemonset("bare", []),
        _daemonset("bare-on-t1", [], {"example.com/team": "t1"}),  # same tolerations, another selection
        _daemonset("gpu-on-t1", [GPU], {"example.com/team": "t1"}),  # same selection, other tolerations
        _daemonset("gpu-team-on-t1", [GPU, _team("t1")], {"example.com/team": "t1"}),
        _daemonset("bare-again", []),
        _deployment("t1-none", [], {"example.com/team": "t1"}),
        _deployment("t1-gpu", [GPU], {"example.com/team": "t1"}),  # same selection, fewer taints missing
        _deployment("t1-both", [GPU, _team("t1")], {"example.com/team": "t1"}),  # same selection, tolerated
        _deployment("t2-gpu", [GPU], {"example.com/team": "t2"}),  # same tolerations, other targets
        _deployment("t1-gpu-again", [GPU], {"example.com/team": "t1"}),
        _deployment("t2-wrong-team", [GPU, _team("t1")], {"example.com/team": "t2"}),
    ]
    return recorded, workloads


def _of(findings: list[dict], urn: str) -> list[tuple[str, str, str]]:
    return [(f["policy"], f["enforcement"], f["message"]) for f in findings if f["urn"] == urn]


def test_each_workload_gets_in_the_stack_the_findings_it_gets_alone(judged):
    recorded, workloads = judged
    together = evaluate([*recorded, *workloads], stack="bench", project="gpu-node-pools")
    backwards = evaluate([*recorded, *reversed(workloads)], stack="bench", project="gpu-node-pools")
    found_some = 0
    for w in workloads:
        urn = f"urn:pulumi:bench::gpu-node-pools::{w.type}::{w.name}"
        alone = _of(evaluate([*recorded, copy.deepcopy(w)], stack="bench", project="gpu-node-pools"), urn)
        assert _of(together, urn) == alone, w.name
        assert _of(backwards, urn) == alone, w.name
        found_some += bool(alone)
    assert found_some >= 8  # the kept verdicts were used: most of these workloads have findings


def test_workloads_that_share_a_selection_but_not_tolerations_get_their_own_verdicts(judged):
    recorded, workloads = judged
    findings = evaluate([*recorded, *workloads], stack="bench", project="gpu-node-pools")
    rule = "gpu-workloads-tolerate-their-pool"
    by_name = {f["resource"].split(" ", 1)[1]: f["message"] for f in findings if f["policy"] == rule}
    assert "t1-gpu" in by_name and "t1-gpu-again" in by_name and "t1-both" not in by_name
    assert by_name["t1-gpu"].replace("t1-gpu", "") == by_name["t1-gpu-again"].replace("t1-gpu-again", "")
    assert by_name["t2-gpu"] != by_name["t1-gpu"].replace("t1-gpu", "t2-gpu")  # other pools, other text
    assert "team=t2:NoSchedule not tolerated" in by_name["t2-wrong-team"]
    assert "nvidia.com/gpu=present:NoSchedule" in by_name["t1-none"] and "nvidia.com/gpu=present" not in by_name["t1-gpu"]
    daemonsets = {f["resource"].split(" ", 1)[1]: f["message"] for f in findings
                  if f["policy"] == "daemonsets-tolerate-gpu-taints"}
    assert "ops-bare" in daemonsets and "ops-bare-on-t1" in daemonsets and "ops-gpu-team-on-t1" not in daemonsets
    assert daemonsets["ops-bare"].count("GPU pool") > daemonsets["ops-bare-on-t1"].count("GPU pool")


def test_a_toleration_is_kept_by_the_types_of_its_values_too():
    """``1 == True`` as dict keys: a tolerationSeconds of ``true`` is refused even after one of ``1`` was read."""
    seconds = {"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 1}
    flag = {**seconds, "tolerationSeconds": True}
    for order in ((seconds, flag), (flag, seconds)):
        for obj in order:
            tolerations, problems = read_tolerations({"tolerations": [dict(obj)]})
            if obj["tolerationSeconds"] is True:
                assert not tolerations and problems and "must be an integer" in problems[0]
            else:
                assert tolerations == [Toleration("k", "Exists", None, "NoExecute", 1)] and not problems


def test_content_ids_number_equal_contents_alike_and_others_apart():
    from gpu_node_pool.policies.placement import ContentIds

    ids = ContentIds()
    gpu = Toleration("nvidia.com/gpu", "Exists", None, "NoSchedule")
    anywhere = NodeSelection.of({})
    on_t1 = NodeSelection.of({"nodeSelector": {"example.com/team": "t1"}})
    first = ids.id_of([gpu], anywhere)
    assert ids.id_of([Toleration("nvidia.com/gpu", "Exists", None, "NoSchedule")], NodeSelection.of({})) == first
    assert len({first, ids.id_of([], anywhere), ids.id_of([gpu], on_t1), ids.id_of([gpu, gpu], anywhere)}) == 4
