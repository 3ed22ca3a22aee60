"""What the API server refuses in a pod spec's placement fields (:mod:`gpu_node_pool.k8s.refusals`), and the
DaemonSet controller's ``nodeName`` rule (:func:`gpu_node_pool.k8s.selection.fits_node_name`)."""

from __future__ import annotations

import itertools

import pytest

from gpu_node_pool.k8s import refusals, taints, toleration_rules
from gpu_node_pool.k8s.effective import effective_tolerations
from gpu_node_pool.k8s.refusals import placement_refusal, requirement_refusal, toleration_refusal, tolerations_refusal
from gpu_node_pool.k8s.selection import (
    NODE_SELECTOR_OPERATORS,
    NodeLabels,
    expression_problem,
    fits_node_name,
    values_count_problem,
)
from gpu_node_pool.k8s.taints import (
    TaintEffect,
    TaintError,
    Toleration,
    broken_toleration_rule,
    meant_toleration_operator,
    whole_seconds,
)
from gpu_node_pool.text.terminal import shown

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


def affinity(*terms):
    return {"affinity": {"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": list(terms)}}}}


@pytest.mark.parametrize("spec", [
    {},
    {"nodeSelector": {"nvidia.com/gpu.present": "true", "example.com/empty": ""}},
    {"nodeName": "ip-10-0-1-23.us-west-2.compute.internal"},
    {"nodeName": ""},
    affinity({"matchExpressions": [{"key": "a", "operator": "In", "values": ["x"]},
                                   {"key": "b", "operator": "DoesNotExist"},
                                   {"key": "c", "operator": "Gt", "values": ["abc"]}]}),  # valid; matches no node
    affinity({}),  # an empty term is valid (it matches no node)
    affinity({"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["node-1"]}]}),
    affinity({"matchExpressions": [{"key": "a", "operator": "In", "values": ["not a label value!"]}]}),
    {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": []}}},
])
def test_what_the_api_server_accepts_is_no_refusal(spec):
    assert placement_refusal(spec) is None


@pytest.mark.parametrize(("spec", "why"), [
    ({"nodeSelector": ["a"]}, "nodeSelector is a list, not an object"),
    ({"nodeSelector": {"a": 1.5}}, "nodeSelector['a'] is 1.5 (a number), not a string"),
    ({"nodeSelector": {"bad key!": "x"}}, "nodeSelector key 'bad key!'"),
    ({"nodeSelector": {"a": "not a label value!"}}, "nodeSelector['a'] 'not a label value!' must be empty or start"),
    ({"nodeName": 7}, "nodeName is 7 (a number), not a string"),
    ({"nodeName": "Node_1"}, "nodeName 'Node_1' is not a node name"),
    ({"affinity": "x"}, "affinity is 'x' (a string), not an object"),
    ({"affinity": {"nodeAffinity": {REQUIRED: {}}}}, "nodeSelectorTerms is empty"),
    (affinity("x"), "nodeSelectorTerms[0] is 'x' (a string), not an object"),
    (affinity({"matchExpressions": {"key": "a"}}), "nodeSelectorTerms[0].matchExpressions is an object, not a list"),
    (affinity({"matchExpressions": [{"key": "a", "operator": "In", "values": "x"}]}), ".values is 'x' (a string), not a list"),
    (affinity({"matchExpressions": [{"key": "a", "operator": "In", "values": [True]}]}),
     ".values[0] is true (a boolean), not a string"),
    (affinity({"matchExpressions": [{"key": "a", "operator": "Lt"}]}), "operator Lt needs exactly one value, got 0"),
    (affinity({"matchExpressions": [{"operator": "Exists"}]}), "key '' must not be empty"),
    (affinity({"matchFields": [{"key": "metadata.labels", "operator": "In", "values": ["n"]}]}), "is not metadata.name"),
    (affinity({"matchFields": [{"key": "metadata.name", "operator": "Exists"}]}), "operator 'Exists' is not In or NotIn"),
    (affinity({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]}), "exactly one node name"),
])
def test_what_the_api_server_refuses_is_named(spec, why):
    refusal = placement_refusal(spec)
    assert refusal is not None and why in refusal and "the API server refuses this pod spec" in refusal


def test_tolerations_must_be_a_list():
    assert tolerations_refusal(None) is None and tolerations_refusal([]) is None and tolerations_refusal(()) is None
    assert "tolerations is an object, not a list" in tolerations_refusal({"operator": "Exists"})
    assert "tolerations is 'Exists' (a string), not a list" in tolerations_refusal("Exists")


def test_node_name_fits_only_the_node_of_that_name_and_is_undecided_on_a_node_not_launched_yet():
    live = NodeLabels({}, name="gpu-1", complete=True, node_name="gpu-1")
    future = NodeLabels({}, name="instance type g6e.2xlarge in us-west-2a")
    assert fits_node_name(None, live) is True and fits_node_name("", future) is True
    assert fits_node_name("gpu-1", live) is True
    assert fits_node_name("gpu-2", live) is False
    assert fits_node_name("gpu-1", future) is None
    assert fits_node_name("gpu-1", future.adding({"a": "b"})) is None and live.adding({"a": "b"}).node_name == "gpu-1"


#: (operator, how many values) the API server accepts, as ``ValidateNodeSelectorRequirement`` has it.
ACCEPTED = {("In", 1), ("In", 2), ("NotIn", 1), ("NotIn", 2), ("Exists", 0), ("DoesNotExist", 0), ("Gt", 1), ("Lt", 1)}


@pytest.mark.parametrize("operator", NODE_SELECTOR_OPERATORS)
@pytest.mark.parametrize("count", [0, 1, 2])
def test_the_refusal_and_the_matcher_read_one_rule_of_operators_and_value_counts(operator, count):
    values = ["1"] * count
    refusal = requirement_refusal({"key": "a", "operator": operator, "values": values})
    assert (refusal is None) == ((operator, count) in ACCEPTED) == (values_count_problem(operator, count) is None)
    if refusal is not None:  # refused on create; an object stored anyway matches no node through that term
        assert values_count_problem(operator, count) in refusal and expression_problem(("a", operator, tuple(values)))
    assert refusals.NODE_SELECTOR_OPERATORS is NODE_SELECTOR_OPERATORS


def test_an_operator_outside_the_six_is_refused_by_name():
    refusal = requirement_refusal({"key": "a", "operator": "Sometimes", "values": ["x"]})
    assert refusal is not None and "operator 'Sometimes' is not one of In, NotIn, Exists, DoesNotExist, Gt, Lt" in refusal
    assert values_count_problem("Sometimes", 1) is None


# --- tolerations: ValidateTolerations ----------------------------------------------------------------------------

SOURCE = "(ValidateTolerations, kubernetes pkg/apis/core/validation/validation.go)"


@pytest.mark.parametrize(("item", "said"), [
    ({"key": "nvidia.com/gpu", "operator": "exists"},
     "tolerations[0].operator 'exists': must be Equal or Exists (Gt and Lt only on Kubernetes 1.35+ with the alpha "
     f"feature gate TaintTolerationComparisonOperators on): the API server refuses this pod spec {SOURCE}; fix: write Exists"),
    ({"key": "nvidia.com/gpu", "operator": "EQUAL", "value": "present"}, "operator 'EQUAL': must be Equal or Exists"),
    ({"key": "nvidia.com/gpu", "operator": "Sometimes"}, "fix: write Equal or Exists"),
    ({"key": "nvidia.com/gpu", "operator": "Exists", "value": "present"},
     f"tolerations[0].value 'present': must be empty when operator is Exists (Exists matches every value): the API "
     f"server refuses this pod spec {SOURCE}; fix: drop the value, or use operator Equal"),
    ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "noschedule"},
     "tolerations[0].effect 'noschedule': must be empty (every effect) or one of NoSchedule, PreferNoSchedule, NoExecute"
     f": the API server refuses this pod spec {SOURCE}; fix: write NoSchedule"),
    ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NO_EXECUTE"}, "effect 'NO_EXECUTE': must be empty"),
    ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "Never"}, "fix: write one of them, or leave it empty"),
    ({"operator": "Equal", "value": "present"},
     "tolerations[0].operator 'Equal': must be Exists when key is empty"),
    ({"value": "present"}, "tolerations[0].operator '': must be Exists when key is empty"),
    ({}, "tolerations[0].operator '': must be Exists when key is empty"),
    ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 30},
     "tolerations[0].tolerationSeconds 30: needs the effect NoExecute, not 'NoSchedule'"),
    ({"key": "nvidia.com/gpu", "operator": "Exists", "tolerationSeconds": 30.0},
     "tolerations[0].tolerationSeconds 30: needs the effect NoExecute, not an empty effect"),
    ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 1.5},
     "tolerations[0].tolerationSeconds is 1.5 (a number); it must be an integer"),
    ({"key": "bad key!", "operator": "Exists"}, "tolerations[0].key 'bad key!'"),
    ({"key": "k", "value": "not a label value!"}, "tolerations[0].value 'not a label value!'"),
    ({"key": "k", "operator": "Gt", "value": "high"}, "tolerations[0].value 'high': must be a decimal integer"),
    ({"key": "k", "operator": True}, "tolerations[0].operator is true (a boolean), not a string"),
    ({"key": 5, "operator": "Exists"}, "tolerations[0].key is 5 (a number), not a string"),
    ("Exists", "tolerations[0] is 'Exists' (a string), not an object"),
    (None, "tolerations[0] is null, not an object"),
])
def test_a_toleration_the_api_server_refuses_is_named_with_its_rule_source_and_fix(item, said):
    refusal = tolerations_refusal([item])
    assert refusal is not None and said in refusal and "the API server refuses this pod spec" in refusal


def test_the_first_refused_toleration_is_named_by_its_index():
    refusal = tolerations_refusal([{"operator": "Exists"}, {"key": "a", "operator": "Exists"}, {"key": "b", "operator": "exists"}])
    assert refusal.startswith("tolerations[2].operator 'exists'")


@pytest.mark.parametrize("item", [
    {"operator": "Exists"},  # the catch-all
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "nvidia.com/gpu", "value": "present"},  # empty operator: Equal
    {"key": "nvidia.com/gpu", "operator": "", "value": "present", "effect": ""},  # empty effect: every effect
    {"key": "nvidia.com/gpu", "operator": "Equal"},  # Equal to the empty value
    {"key": "nvidia.com/gpu", "operator": None, "value": None, "effect": None},  # null reads as empty
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300.0},
    {"key": "example.com/sla", "operator": "Gt", "value": "950"},  # Kubernetes 1.35+ with the alpha gate
    {"key": "example.com/sla", "operator": "Lt", "value": "-5", "effect": "PreferNoSchedule"},
])
def test_a_toleration_the_api_server_accepts_is_no_refusal(item):
    assert tolerations_refusal([item]) is None


#: A grid over every field of a toleration: right and wrong strings, null, absent (:data:`ABSENT`), values of the
#: wrong JSON type, and ``tolerationSeconds`` as an int, an integral float (a Pulumi preview's number), a fraction
#: and a boolean.
class _Absent:
    def __repr__(self) -> str:  # a stable test id
        return "ABSENT"


ABSENT = _Absent()
KEYS = [ABSENT, None, "", "nvidia.com/gpu", "bad key!", False, 5]
OPERATORS = [ABSENT, None, "", "Equal", "Exists", "exists", "Gt", "Lt", "Sometimes", False, True]
VALUES = [ABSENT, None, "", "present", "950", "-5", "not a label value!", 0]
EFFECTS = [ABSENT, None, "", *(e.value for e in TaintEffect), "noschedule", "NO_SCHEDULE", False]
SECONDS = [ABSENT, None, 30, 30.0, 1.5, True]
FIELDS = ("key", "operator", "value", "effect", "tolerationSeconds")


@pytest.mark.parametrize("key", KEYS, ids=repr)
@pytest.mark.parametrize("operator", OPERATORS, ids=repr)
def test_the_refusal_and_the_toleration_give_one_verdict_and_name_one_rule(key, operator):
    """One rule set: what :func:`toleration_refusal` accepts, :class:`Toleration` builds; what it refuses,
    :class:`Toleration` refuses too, naming the same rule (its error's ``refusal``), or, for a field of the wrong
    type, the same field. A check added to one reader only fails here."""
    for value, effect, seconds in itertools.product(VALUES, EFFECTS, SECONDS):
        given = (key, operator, value, effect, seconds)
        item = {name: v for name, v in zip(FIELDS, given, strict=True) if v is not ABSENT}
        refusal = toleration_refusal(item)
        try:
            built = Toleration.from_k8s(item)
        except TaintError as err:
            assert refusal is not None, (item, str(err))
            broken = err.refusal
            if broken is None:  # decoding: the field of the wrong type
                wrong = next(name for name in FIELDS if name in item and item[name] is not None and (
                    whole_seconds(item[name]) is None if name == "tolerationSeconds" else not isinstance(item[name], str)))
                assert refusal.startswith(f"toleration.{wrong} is "), (item, refusal, str(err))
                assert f"toleration {wrong} " in str(err), (item, refusal, str(err))
            else:
                assert refusal.startswith(f"toleration.{broken.field} {shown(broken.value)}: {broken.rule}: "), (item, refusal)
                assert refusal.endswith(f"; fix: {broken.fix}") and str(err).endswith(f"; fix: {broken.fix}"), (item, refusal)
                assert broken == broken_toleration_rule(*(item.get(n) or "" for n in FIELDS[:4]),
                                                        whole_seconds(item.get("tolerationSeconds")))
        else:
            assert refusal is None, (item, refusal)
            assert toleration_refusal(built.to_k8s()) is None and Toleration.from_k8s(built.to_k8s()) == built


def test_the_grid_meets_every_rule():
    """The grid above breaks each rule of :func:`broken_toleration_rule` at least once, and builds some tolerations."""
    rules, built = set(), 0
    for given in itertools.product(KEYS, OPERATORS, VALUES, EFFECTS, SECONDS):
        item = {name: v for name, v in zip(FIELDS, given, strict=True) if v is not ABSENT}
        try:
            Toleration.from_k8s(item)
            built += 1
        except TaintError as err:
            if err.refusal is not None:
                rules.add((err.refusal.field, err.refusal.rule.split(" (")[0][:30]))
    assert {field for field, _ in rules} == set(FIELDS) and len(rules) >= 8 and built > 100, sorted(rules)


@pytest.mark.parametrize("item", [
    {"key": False, "operator": "Exists"},  # no catch-all: false is no string
    {"key": "nvidia.com/gpu", "operator": 0},  # no Equal
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": False},  # no every-effect
])
def test_a_falsy_value_of_the_wrong_type_is_refused_by_both_readers(item):
    assert "not a string" in toleration_refusal(item)
    with pytest.raises(TaintError, match="must be a string"):
        Toleration.from_k8s(item)


def test_integral_float_seconds_are_read_as_whole_seconds_by_both_readers():
    item = {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300.0}
    assert toleration_refusal(item) is None
    built = Toleration.from_k8s(item)
    assert built.toleration_seconds == 300 and type(built.toleration_seconds) is int
    assert effective_tolerations({"tolerations": [item]}, "eks", "Pod")[0] == built
    with pytest.raises(TaintError, match="must be an integer"):
        Toleration.from_k8s({**item, "tolerationSeconds": 1.5})


def test_the_refusal_spells_effects_and_operators_as_taints_does():
    assert refusals.broken_toleration_rule is toleration_rules.broken_toleration_rule is taints.broken_toleration_rule
    assert taints.TOLERATION_OPERATORS is toleration_rules.TOLERATION_OPERATORS and taints.TaintEffect is TaintEffect
    for effect in TaintEffect:
        assert toleration_refusal({"operator": "Exists", "effect": effect.value}) is None
        assert TaintEffect.meant(effect.value.upper()) is effect and TaintEffect.meant(effect.provider_spelling) is effect
    assert meant_toleration_operator("exists") == "Exists" and meant_toleration_operator("Exsits") == "Exists"
    assert meant_toleration_operator("Exists") is None and meant_toleration_operator("Sometimes") is None
