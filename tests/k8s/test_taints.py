"""taints.py: the Kubernetes semantics of taints and tolerations, spellings and syntax."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import DATA

from gpu_node_pool.k8s.taints import (
    Taint,
    TaintEffect,
    TaintError,
    Toleration,
    find_duplicate_taints,
    tolerates,
    tolerations_tolerate_taint,
    untolerated_taints,
)

GPU = Taint("nvidia.com/gpu", "present", TaintEffect.NO_SCHEDULE)


class TestTaintForms:
    def test_kubelet_form_has_value_and_effect(self):
        assert str(GPU) == "nvidia.com/gpu=present:NoSchedule"

    def test_kubelet_form_drops_the_equals_sign_when_the_value_is_empty(self):
        assert str(Taint("dedicated", "", TaintEffect.NO_EXECUTE)) == "dedicated:NoExecute"

    @pytest.mark.parametrize(
        "text",
        ["nvidia.com/gpu=present:NoSchedule", "dedicated:NoExecute", "a.b-c/d_e.f=v.1-x:PreferNoSchedule", "k=:NoSchedule"],
    )
    def test_parse_reads_back_what_str_writes(self, text):
        taint = Taint.parse(text)
        assert Taint.parse(str(taint)) == taint

    def test_parse_of_empty_value_with_equals_sign_is_the_value_less_taint(self):
        assert Taint.parse("k=:NoSchedule") == Taint("k", "", TaintEffect.NO_SCHEDULE)

    def test_provider_spelling_both_ways(self):
        assert GPU.to_provider() == {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}
        for effect in TaintEffect:
            assert TaintEffect.from_provider(effect.provider_spelling) is effect
            assert Taint.from_provider(Taint("k", "v", effect).to_provider()) == Taint("k", "v", effect)

    def test_k8s_object_omits_an_empty_value(self):
        assert Taint("k", "", TaintEffect.NO_SCHEDULE).to_k8s() == {"key": "k", "effect": "NoSchedule"}
        assert Taint.from_k8s({"key": "k", "effect": "NoSchedule"}) == Taint("k", "", TaintEffect.NO_SCHEDULE)

    def test_identity_is_key_and_effect(self):
        assert Taint("k", "a", TaintEffect.NO_SCHEDULE).identity == Taint("k", "b", TaintEffect.NO_SCHEDULE).identity
        assert Taint("k", "a", TaintEffect.NO_SCHEDULE).identity != Taint("k", "a", TaintEffect.NO_EXECUTE).identity


@pytest.mark.parametrize("text", ["nvidia.com/gpu=present:noschedule", "nvidia.com/gpu=present:Evict"])
def test_an_effect_kubernetes_does_not_have_names_the_rule_and_its_source(text):
    with pytest.raises(TaintError) as caught:
        Taint.parse(text)
    assert "core/v1 TaintEffect" in str(caught.value) and "pkg/apis/core/validation/validation.go" in str(caught.value)


class TestTaintValidation:
    @pytest.mark.parametrize(
        "text, fragment",
        [
            ("nvidia.com/gpu=present:NO_SCHEDULE", "EKS/GKE API spelling; write NoSchedule"),
            ("nvidia.com/gpu=present:noschedule", "did you mean NoSchedule"),
            ("nvidia.com/gpu=present:Evict", "not a taint effect"),
            ("a/b/c=v:NoSchedule", "at most one '/'"),
            ("-bad=v:NoSchedule", "must start and end with a letter or digit"),
            ("Upper.Case/x=v:NoSchedule", "is not a DNS subdomain"),
            ("k=" + "v" * 64 + ":NoSchedule", "at most 63"),
            ("k=has space:NoSchedule", "taint value"),
            ("nvidia.com/gpu=present", "has no effect"),
            ("=v:NoSchedule", "must not be empty"),
            ("p/" + "n" * 64 + ":NoSchedule", "at most 63"),
        ],
    )
    def test_invalid_taints_are_rejected_with_the_rule(self, text, fragment):
        with pytest.raises(TaintError, match=fragment.replace("(", r"\(")):
            Taint.parse(text)

    def test_prefix_may_be_up_to_253_characters(self):
        prefix = ".".join(["a" * 63] * 3) + "." + "b" * 61  # 253 characters
        assert len(prefix) == 253
        assert Taint.parse(f"{prefix}/gpu=x:NoSchedule").key.startswith(prefix)
        with pytest.raises(TaintError, match="at most 253"):
            Taint.parse(f"c{prefix}/gpu=x:NoSchedule")

    def test_duplicates_are_found_by_key_and_effect(self):
        taints = [GPU, Taint("nvidia.com/gpu", "true", TaintEffect.NO_SCHEDULE), Taint("nvidia.com/gpu", "x", TaintEffect.NO_EXECUTE)]
        assert find_duplicate_taints(taints) == [(0, 1, taints[1])]


class TestTolerationValidation:
    def test_operators_other_than_equal_exists_gt_lt_are_rejected(self):
        with pytest.raises(TaintError, match=r"toleration operator 'Ge': must be Equal or Exists \(Gt and Lt only on Kubernetes 1.35\+"):
            Toleration(key="k", operator="Ge", value="1")

    @pytest.mark.parametrize("value", ["", "high", "0100", "+5", "-0", "100.5", " 200 ", "9223372036854775808", "\u0665"])
    def test_numeric_operators_need_a_64_bit_decimal_integer(self, value):
        with pytest.raises(TaintError, match="decimal integer fitting 64 bits"):
            Toleration(key="k", operator="Gt", value=value)

    def test_numeric_operators_accept_negative_values_which_are_no_label_values(self):
        assert Toleration(key="k", operator="Lt", value="-5").to_k8s() == {"key": "k", "operator": "Lt", "value": "-5"}
        assert str(Toleration(key="k", operator="Gt", value="950", effect="NoSchedule")) == "k Gt 950:NoSchedule"

    def test_exists_must_not_carry_a_value(self):
        with pytest.raises(TaintError, match="toleration value 'v': must be empty when operator is Exists"):
            Toleration(key="k", operator="Exists", value="v")

    def test_empty_key_needs_exists(self):
        with pytest.raises(TaintError, match="toleration operator 'Equal': must be Exists when key is empty"):
            Toleration(key="", operator="Equal", value="v")

    def test_empty_operator_means_equal(self):
        assert Toleration(key="k", operator="", value="v").operator == "Equal"

    def test_toleration_seconds_only_with_no_execute(self):
        with pytest.raises(TaintError, match="toleration tolerationSeconds 30: needs the effect NoExecute, not 'NoSchedule'"):
            Toleration(key="k", operator="Exists", effect="NoSchedule", toleration_seconds=30)

    def test_toleration_seconds_without_an_effect_is_refused_too(self):
        # ValidateTolerations: "effect must be 'NoExecute' when `tolerationSeconds` is set"; an empty effect is not it
        with pytest.raises(TaintError, match="needs the effect NoExecute, not an empty effect .*; fix: set effect NoExecute"):
            Toleration(key="k", operator="Exists", toleration_seconds=30)

    def test_round_trip_through_the_k8s_object(self):
        tol = Toleration(key="nvidia.com/gpu", operator="Exists", effect="NoExecute", toleration_seconds=60)
        assert tol.to_k8s() == {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}
        assert Toleration.from_k8s(tol.to_k8s()) == tol


class TestTolerates:
    def test_empty_key_with_exists_tolerates_every_taint(self):
        catch_all = Toleration(operator="Exists")
        for effect in TaintEffect:
            assert tolerates(catch_all, Taint("anything/at-all", "v", effect))

    def test_empty_effect_matches_every_effect(self):
        tol = Toleration(key="nvidia.com/gpu", operator="Equal", value="present")
        assert all(tolerates(tol, Taint("nvidia.com/gpu", "present", e)) for e in TaintEffect)

    def test_effect_must_match_when_set(self):
        tol = Toleration(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule")
        assert not tolerates(tol, Taint("nvidia.com/gpu", "present", TaintEffect.NO_EXECUTE))

    def test_equal_compares_values(self):
        tol = Toleration(key="nvidia.com/gpu", operator="Equal", value="present", effect="NoSchedule")
        assert tolerates(tol, GPU)
        assert not tolerates(tol, Taint("nvidia.com/gpu", "true", TaintEffect.NO_SCHEDULE))

    def test_equal_without_value_matches_only_the_empty_value(self):
        tol = Toleration(key="dedicated", effect="NoSchedule")
        assert tolerates(tol, Taint("dedicated", "", TaintEffect.NO_SCHEDULE))
        assert not tolerates(tol, Taint("dedicated", "gpu", TaintEffect.NO_SCHEDULE))

    def test_exists_ignores_the_value(self):
        tol = Toleration(key="nvidia.com/gpu", operator="Exists")
        assert tolerates(tol, Taint("nvidia.com/gpu", "whatever", TaintEffect.NO_SCHEDULE))

    def test_key_must_match_when_set(self):
        assert not tolerates(Toleration(key="nvidia.com/gpu", operator="Exists"), Taint("dedicated", "gpu", TaintEffect.NO_SCHEDULE))

    def test_for_taint_tolerates_exactly_that_taint(self):
        for exists in (False, True):
            tol = Toleration.for_taint(GPU, exists=exists)
            assert tolerates(tol, GPU)
            assert not tolerates(tol, Taint("nvidia.com/gpu", "present", TaintEffect.NO_EXECUTE))

    def test_untolerated_taints_keeps_order_and_names_each(self):
        arch = Taint("kubernetes.io/arch", "arm64", TaintEffect.NO_SCHEDULE)
        gpu = Taint("nvidia.com/gpu", "", TaintEffect.NO_SCHEDULE)
        tols = [Toleration(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule")]
        assert untolerated_taints(tols, [arch, gpu]) == [arch]
        assert untolerated_taints([], [arch, gpu]) == [arch, gpu]


def _corpus():
    expected = json.loads((DATA / "corpus" / "daemonsets" / "expected.json").read_text())["daemonsets"]
    for name, verdict in sorted(expected.items()):
        doc = yaml.safe_load((DATA / "corpus" / "daemonsets" / name).read_text())
        yield name, doc, verdict


@pytest.mark.parametrize("name, doc, verdict", list(_corpus()), ids=[c[0] for c in _corpus()])
def test_corpus_toleration_verdicts_match_expected_json(name, doc, verdict):
    tolerations = [Toleration.from_k8s(t) for t in (doc["spec"]["template"]["spec"].get("tolerations") or [])]
    for taint_text, expected in verdict["tolerates"].items():
        assert tolerations_tolerate_taint(tolerations, Taint.parse(taint_text)) is expected, (name, taint_text)


def test_a_key_that_is_not_a_string_is_named_so_not_raised():
    # a mutated stack once gave a toleration key that is a pulumi_policy Secret
    from gpu_node_pool.k8s.taints import label_value_problem, qualified_name_problem

    for value in (123, None, object(), ["a"]):
        assert qualified_name_problem(value).startswith("must be a string")
        assert label_value_problem(value).startswith("must be a string")


@pytest.mark.parametrize(("typo", "meant"), [("NoScheduel", "NoSchedule"), ("NoExcute", "NoExecute"),
                                             ("PreferNoSchedul", "PreferNoSchedule")])
def test_a_mistyped_effect_gets_the_effect_meant(typo, meant):
    from gpu_node_pool.k8s.taints import TaintEffect, TaintError

    with pytest.raises(TaintError, match=f"did you mean {meant}\\?"):
        TaintEffect.parse(typo)
