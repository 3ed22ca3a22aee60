"""Karpenter feasibility: a NodePool's requirements and limits against the instance catalog: NodePools that can never launch a type."""

from __future__ import annotations

import pytest

from gpu_node_pool.catalog import lookup
from gpu_node_pool.catalog.requirements import (
    RequirementError,
    can_select_gpu_types,
    evaluate,
    gpu_limit_is_zero,
    is_gpu_pool,
)

K = "karpenter.k8s.aws/"
AUTO = "eks.amazonaws.com/"


def req(key: str, operator: str, *values: str, **extra) -> dict:
    return {"key": key, "operator": operator, **({"values": list(values)} if values else {}), **extra}


#: What the component adds to every Karpenter pool (config.KarpenterPool.requirement_list at 56262b7).
COMPONENT = [req(K + "instance-gpu-manufacturer", "In", "nvidia"), req("kubernetes.io/arch", "In", "amd64")]


def names(result) -> list[str]:
    return sorted(t.name for t in result.candidates)


def test_a_g6f_pool_has_candidates_but_none_with_a_gpu_for_karpenter_and_says_why():
    # Karpenter v1.14.1 labels g6f with instance-gpu-manufacturer nvidia and instance-gpu-count 0
    # (KPA docs/reference/instance-types.md; types.go L426-432), and gives it no nvidia.com/gpu.
    result = evaluate([req(K + "instance-family", "In", "g6f"), *COMPONENT])
    assert names(result) == ["g6f.2xlarge", "g6f.4xlarge", "g6f.large", "g6f.xlarge"]
    assert result.gpu_candidates == ()
    problems = result.gpu_problems()
    assert "0 nvidia.com/gpu capacity" in problems[0] and "issues/8368" in problems[0]
    assert f"requirements[1] {K}instance-gpu-manufacturer In [nvidia]: allows 69 type(s) alone, 4 left after it" in problems
    assert any("fractional GPU" in w for w in result.warnings)


def test_a_g6f_pool_that_requires_a_gpu_count_is_empty_and_the_explanation_names_the_requirement():
    result = evaluate([req(K + "instance-family", "In", "g6f"), *COMPONENT, req(K + "instance-gpu-count", "Gt", "0")])
    assert result.empty and result.candidates == ()
    lines = result.explanation()
    assert lines[0] == f"requirements[0] {K}instance-family In [g6f]: allows 4 type(s) alone, 4 left after it"
    assert lines[-1].startswith(f"requirements[3] {K}instance-gpu-count Gt [0]:") and lines[-1].endswith("0 left after it")
    assert result.gpu_problems()[0] == "Karpenter can launch no instance type for this NodePool:"


@pytest.mark.parametrize(
    ("limits", "resource"),
    [({"nvidia.com/gpu": 4}, "nvidia.com/gpu 8 > 4"), ({"cpu": "100"}, "cpu 192 > 100"), ({"memory": "1Ti"}, "memory")],
)
def test_limits_below_one_p5_48xlarge_launch_nothing(limits, resource):
    result = evaluate([req("node.kubernetes.io/instance-type", "In", "p5.48xlarge"), *COMPONENT], limits)
    assert result.empty and result.after_requirements == 1
    assert result.limit_message == "all available instance types exceed limits for nodepool"
    assert resource in result.over_limits[0]
    assert result.explanation()[-1].startswith("limits: all available instance types exceed limits for nodepool")


def test_limits_drop_only_the_types_that_exceed_them():
    result = evaluate([req(K + "instance-family", "In", "g6e"), *COMPONENT], {"nvidia.com/gpu": 4, "cpu": 1000})
    assert "g6e.48xlarge" not in names(result) and "g6e.24xlarge" in names(result)
    assert not result.empty and len(result.over_limits) == 1


def test_a_node_limit_of_zero_launches_nothing():
    result = evaluate([req(K + "instance-family", "In", "g6")], {"nodes": 0})
    assert result.empty and "node limits have been exhausted" in result.limit_message


def test_a_gpu_count_no_allowed_type_has_launches_nothing():
    result = evaluate([req(K + "instance-family", "In", "g6", "g6e"), *COMPONENT, req(K + "instance-gpu-count", "In", "2")])
    assert result.empty
    assert result.steps[-1].alone > 0 and result.steps[-1].left == 0  # other families have 2 GPUs; g6/g6e do not


def test_an_instance_cpu_range_that_excludes_every_allowed_size_launches_nothing():
    # jupyter-deploy#351 shape: a cpu window between two sizes of the family
    result = evaluate([
        req(K + "instance-family", "In", "g6e"), *COMPONENT,
        req(K + "instance-cpu", "Gt", "4"), req(K + "instance-cpu", "Lt", "8"),
    ])
    assert result.empty
    assert [s.left for s in result.steps] == [8, 8, 8, 7, 0]


def test_a_normal_g6_g5_gpu_pool_has_candidates_and_a_short_summary():
    result = evaluate(
        [req(K + "instance-family", "In", "g6", "g5"), *COMPONENT, req("karpenter.sh/capacity-type", "In", "on-demand")],
        {"nvidia.com/gpu": 16, "cpu": 1000},
    )
    assert not result.empty and len(result.candidates) == 16
    assert len(result.gpu_candidates) == 16 and result.gpu_problems() == []
    assert result.summary() == "g5.12xlarge, g5.16xlarge, g5.24xlarge, g5.2xlarge, g5.48xlarge, ... (+11 more, 16 types)"
    assert result.steps[-1].evaluated is False and "offerings" in result.steps[-1].reason


def test_auto_mode_keys_have_the_karpenter_meanings():
    result = evaluate([
        req(AUTO + "instance-family", "In", "g6e"), req(AUTO + "instance-gpu-manufacturer", "In", "nvidia"),
        req(AUTO + "instance-gpu-count", "In", "4"),
    ])
    assert names(result) == ["g6e.12xlarge", "g6e.24xlarge"]
    mixed = evaluate([req(AUTO + "instance-gpu-memory", "Gte", "80000"), req(K + "instance-category", "In", "p")])
    judged = {t.family for t in mixed.candidates if t.name not in mixed.unjudged}
    assert judged == {"p4de", "p5", "p5e", "p5en", "p6-b200", "p6-b300"}
    assert set(mixed.unjudged) == {"p3.2xlarge", "p3.8xlarge", "p3.16xlarge"}  # V100 memory on p3 is not sourced


def test_a_cpu_pool_is_not_a_gpu_pool_and_a_g_p_pool_is():
    cpu = [req(K + "instance-category", "In", "c", "m", "r")]
    gpu = [req(K + "instance-category", "In", "g", "p")]
    assert not can_select_gpu_types(cpu) and not is_gpu_pool(cpu)
    assert can_select_gpu_types(gpu) and is_gpu_pool(gpu)
    assert is_gpu_pool([])  # no requirement: Karpenter may pick a GPU type for a GPU pod


def test_a_gpu_limit_of_zero_means_no_gpus():
    gpu = [req(K + "instance-category", "In", "g", "p")]
    assert gpu_limit_is_zero({"nvidia.com/gpu": "0"}) and not gpu_limit_is_zero({"nvidia.com/gpu": 1})
    assert not gpu_limit_is_zero(None) and not gpu_limit_is_zero({"cpu": 0})
    assert not is_gpu_pool(gpu, {"nvidia.com/gpu": 0})


def test_labels_a_type_lacks_match_notin_and_doesnotexist_only():
    without_gpu = evaluate([req(K + "instance-family", "In", "m5", "g6", "g6f"), req(K + "instance-gpu-count", "DoesNotExist")])
    assert {t.family for t in without_gpu.candidates} == {"m5"}  # g6f carries instance-gpu-count "0"
    not_t4 = evaluate([req(K + "instance-family", "In", "m5", "g4dn"), req(K + "instance-gpu-name", "NotIn", "t4")])
    assert {t.family for t in not_t4.candidates} == {"m5"}
    exists = evaluate([req(K + "instance-family", "In", "m5", "g4dn"), req(K + "instance-gpu-name", "Exists")])
    assert {t.family for t in exists.candidates} == {"g4dn"}


def test_unknown_keys_are_reported_not_evaluated_and_do_not_filter():
    result = evaluate([req(K + "instance-family", "In", "g6"), req("example.com/team", "In", "ml"),
                       req(K + "instance-hypervisor", "In", "nitro")])
    assert len(result.candidates) == 8
    assert [s.evaluated for s in result.steps] == [True, False, False]
    assert len(result.not_evaluated) == 2 and "example.com/team" in result.not_evaluated[0]


def test_unknown_values_keep_the_type_and_name_it_as_unjudged():
    result = evaluate([req(K + "instance-family", "In", "p3"), req(K + "instance-gpu-memory", "Gt", "8000")])
    assert len(result.candidates) == 3 and set(result.unjudged) == {"p3.2xlarge", "p3.8xlarge", "p3.16xlarge"}


def test_min_values_not_met_launches_nothing():
    result = evaluate([req(K + "instance-family", "In", "g6", minValues=2)])
    assert result.empty and "minValues 2" in result.min_values[0]


def test_p5_4xlarge_candidates_carry_the_karpenter_issue_warning():
    result = evaluate([req("node.kubernetes.io/instance-type", "In", "p5.4xlarge")])
    assert any("issues/8368" in w for w in result.warnings)


@pytest.mark.parametrize(
    ("requirements", "limits", "message"),
    [
        ([{"key": K + "instance-cpu", "operator": "Equals", "values": ["4"]}], None, "requirements[0].operator: 'Equals'"),
        ([req(K + "instance-cpu", "Gt", "four")], None, "exactly one non-negative integer"),
        ([req(K + "instance-family", "Gt", "4")], None, "whose values are not integers"),
        ([{"key": K + "instance-family", "operator": "In", "values": []}], None, "In needs at least one value"),
        ([], {"cpu": "lots"}, "limits.cpu: 'lots' is not a non-negative Kubernetes quantity"),
    ],
)
def test_malformed_input_is_one_clear_error(requirements, limits, message):
    with pytest.raises(RequirementError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        evaluate(requirements, limits)


def test_every_catalog_type_selects_itself_by_name_and_by_its_own_labels():
    # independent cross-check: a type always satisfies requirements built from its own labels
    for name in ("g6e.12xlarge", "p5.48xlarge", "g5g.metal", "m7i.large", "p6-b200.48xlarge"):
        t = lookup(name)
        reqs = [req(K + s, "In", t.label(s)) for s in ("instance-family", "instance-size", "instance-cpu", "instance-memory")]
        assert [c.name for c in evaluate([req("node.kubernetes.io/instance-type", "In", name)]).candidates] == [name]
        assert name in [c.name for c in evaluate(reqs).candidates]


def test_no_requirement_leaves_the_whole_catalog():
    from gpu_node_pool.catalog import all_types

    assert len(evaluate([]).candidates) == len(all_types())
