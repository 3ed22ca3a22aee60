"""The fix a user sees for each kind of not-judged item is the one given where it is decided (the rule, the
expander), carried with the item to the plan's ``notJudged`` list and the ``resources-judged`` finding; the
plan never picks it from the reason's wording."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from builders import EXISTS_GPU, daemonset, deployment, gke_pool, node_group, plugin
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from gpu_node_pool.expand.result import NotJudged
from gpu_node_pool.k8s.wellknown import UNKNOWN
from gpu_node_pool.plan.expand import Expansion, finish_plan
from gpu_node_pool.policies import evaluate
from gpu_node_pool.policies import rules as d
from gpu_node_pool.policies.rules._shared import PINNED_FIX, REFUSED_FIX, SELECTION_FIX
from gpu_node_pool.sdk.props import UNKNOWN_FIX, Undecided, fixes_of, not_judged
from gpu_node_pool.sdk.record import Resource


def planned(resources: list, expansion: Expansion | None = None, policies=None) -> SimpleNamespace:
    """The plan's last step over ``resources``: the pack's findings, then :func:`finish_plan`."""
    result = SimpleNamespace(resources=resources, violations=evaluate(resources, policies=policies))
    finish_plan(result, expansion or Expansion())
    return result


def item_of(result: SimpleNamespace, words: str) -> dict:
    (item,) = [n for n in result.not_judged if words in n["reason"]]
    return item


def with_pod(resource, **pod):
    resource.inputs["spec"]["template"]["spec"].update(pod)
    return resource


DAEMONSETS = d.daemonsets_tolerate_gpu_taints.POLICY


def test_a_value_unknown_at_preview_shows_the_unknown_fix():
    unknown = Resource("kubernetes:apps/v1:DaemonSet", "u", {"metadata": {"name": "u"}, "spec": UNKNOWN})
    result = planned([node_group(), unknown], policies=[DAEMONSETS])
    assert item_of(result, "can't run policy")["fix"] == UNKNOWN_FIX


def test_a_pod_spec_the_api_server_refuses_shows_the_refused_fix():
    refused = daemonset("agent", "ops", tolerations=[{"key": "nvidia.com/gpu", "operator": "exists"}])
    result = planned([node_group(), refused], policies=[DAEMONSETS])
    assert item_of(result, "the API server refuses this pod spec")["fix"] == REFUSED_FIX


def test_a_daemonset_pinned_by_node_name_shows_the_pinned_fix_not_the_unknown_one():
    pinned = with_pod(daemonset("pinned", "ops"), nodeName="other-node")
    result = planned([node_group(), pinned], policies=[DAEMONSETS])
    item = item_of(result, "nodeName pins it")
    assert item["fix"] == PINNED_FIX and item["fix"] != UNKNOWN_FIX
    assert "instead of nodeName" in item["fix"]


def test_a_selection_on_a_label_only_an_agent_sets_shows_the_selection_fix():
    stack = [node_group(labels={"team": "ml"}), plugin([EXISTS_GPU])]
    result = planned(stack, policies=[d.device_plugin_covers_gpu_pools.POLICY])
    assert item_of(result, "its node selection reads nvidia.com/gpu.present")["fix"] == SELECTION_FIX


def test_an_item_the_expander_could_not_open_shows_its_own_fix_in_the_item_and_the_finding():
    chart = Resource("kubernetes:helm.sh/v4:Chart", "c", {"chart": "./gone"}, urn="urn:pulumi:s::p::kubernetes:helm.sh/v4:Chart::c")
    expansion = Expansion(not_judged=[NotJudged(chart.urn, chart.type, "chart './gone' is gone", "put it back")])
    result = planned([chart], expansion, policies=[d.resources_judged.POLICY])
    assert item_of(result, "is gone")["fix"] == "put it back"
    (finding,) = [v for v in result.violations if v["policy"] == "resources-judged"]
    assert finding["message"] == "not judged: chart './gone' is gone. Fix: put it back"


def test_the_findings_keep_their_schema_the_carried_fixes_are_taken_off():
    refused = daemonset("agent", "ops", tolerations=[{"key": "nvidia.com/gpu", "operator": "exists"}])
    result = planned([node_group(), refused], policies=[DAEMONSETS])
    assert result.violations and all("fixes" not in v for v in result.violations)


def _raised(undecided: Undecided) -> UnknownValueError:
    with pytest.raises(UnknownValueError) as caught:
        undecided.raise_if_any()
    return caught.value


def test_undecided_carries_each_items_fix_once_in_order():
    undecided = Undecided()
    undecided.add("a", UnknownValueError(UNKNOWN_STRING_VALUE, ["spec"]))
    undecided.not_judged("b", "not judged: b", "fix b")
    undecided.add("c", not_judged(["x"], "c unreadable", "fix c"))
    undecided.not_judged("d", "not judged: d", "fix b")
    assert fixes_of(_raised(undecided)) == [UNKNOWN_FIX, "fix b", "fix c"]


def test_several_fixes_are_all_shown_joined():
    violation = {"policy": "p", "enforcement": "advisory", "resource": "stack", "urn": "",
                 "message": "can't run policy 'p' during preview: a: x; b: y", "fixes": [UNKNOWN_FIX, "fix b"]}
    result = SimpleNamespace(resources=[], violations=[violation])
    finish_plan(result, Expansion())
    assert result.not_judged[0]["fix"] == f"{UNKNOWN_FIX}; also, fix b"


_REFUSED_TOLERATION = {"key": "example.com/team", "operator": "Exists", "value": "a"}  # Exists takes no value


@pytest.mark.parametrize(("rule", "workload"), [
    (d.gpu_workloads_select_gpu_nodes, lambda: deployment("web", "web", tolerations=[EXISTS_GPU, _REFUSED_TOLERATION])),
    (d.gpu_workloads_tolerate_their_pool, lambda: deployment("train", "ml", node_selector={"nvidia.com/gpu.present": True},
                                                             resources={"limits": {"nvidia.com/gpu": "1"}})),
    (d.gpu_toleration_allowlist, lambda: deployment("web", "web", tolerations=[EXISTS_GPU, _REFUSED_TOLERATION])),
    (d.daemonsets_tolerate_exactly, lambda: daemonset("fluent-bit", "logging",
                                                      tolerations=[{"operator": "Exists"}, _REFUSED_TOLERATION])),
], ids=lambda v: getattr(v, "__name__", "").rpartition(".")[2] or None)
def test_every_rule_that_meets_a_pod_spec_the_api_server_refuses_gives_the_refused_fix(rule, workload):
    result = planned([node_group(taints=("nvidia.com/gpu=present:NoSchedule",)), workload()], policies=[rule.POLICY])
    fixes = [n["fix"] for n in result.not_judged if "not judged" in n["reason"]]
    assert fixes == [REFUSED_FIX]


def test_a_workload_left_to_a_gke_compute_class_gets_the_backends_fix():
    from gpu_node_pool.backends.gke import compute_class

    klass = "cloud.google.com/compute-class"
    pool = gke_pool(taints=("nvidia.com/gpu=present:NoSchedule", f"{klass}=gpu-l4:NoSchedule"),
                    labels={"nvidia.com/gpu.present": "true", klass: "gpu-l4"})
    app = deployment("vllm", "ml", node_selector={klass: "gpu-l4"}, tolerations=[EXISTS_GPU],
                     resources={"limits": {"nvidia.com/gpu": 1}})
    result = planned([pool, app], policies=[d.gpu_workloads_tolerate_their_pool.POLICY])
    assert item_of(result, "custom ComputeClass")["fix"] == compute_class.FIX


@pytest.mark.parametrize(("type_token", "inputs", "fix"), [
    ("kubernetes:helm.sh/v4:Chart", {"chart": "gpu-agent", "version": "1.0.0"},
     "run with --fetch-charts, or `helm pull gpu-agent --version 1.0.0` into a chart directory"),
    ("kubernetes:helm.sh/v4:Chart", {"chart": "c", "postRenderer": {"command": "kustomize"}},
     "judge the post-rendered manifests"),
    ("kubernetes:helm.sh/v3:Chart", {"chart": "c"}, "use kubernetes.helm.v4.Chart"),
    ("kubernetes:yaml/v2:ConfigFile", {"file": "https://example.com/ds.yaml"}, "download the manifest"),
    ("kubernetes:yaml/v2:ConfigGroup", {"files": ["missing/*.yaml"]}, "fix the path or glob pattern"),
    ("aws:eks/addon:Addon", {"addonName": "no-such-addon", "clusterName": "c"},
     "after install, read its DaemonSets' tolerations"),
], ids=["chart-not-cached", "post-renderer", "helm-v3-chart", "remote-manifest", "no-file",
        "unknown-addon"])
def test_each_kind_of_item_the_plan_cannot_open_shows_the_fix_its_expander_gave(tmp_path, type_token, inputs, fix):
    from gpu_node_pool.plan.expand import ExpandOptions, expand_plan

    res = Resource(type_token, "r", inputs, urn=f"urn:pulumi:s::p::{type_token}::r")
    result = SimpleNamespace(resources=[res], config=None, violations=[])
    expansion = expand_plan(result, tmp_path, ExpandOptions(chart_dirs=()))
    finish_plan(result, expansion)
    (item,) = result.not_judged
    assert item["fix"].startswith(fix), item
    (finding,) = [v for v in result.violations if v["policy"] == "resources-judged"]
    assert finding["message"].endswith(f"Fix: {item['fix']}")
