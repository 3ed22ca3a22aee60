"""A toleration key that is no field of core/v1 Toleration (key, operator, value, effect, tolerationSeconds) is named
with the field it most likely means, what the API server does with it (dropped under the default field validation,
Warn; the object refused under Strict) and the fix; a toleration of known fields gets no note."""

from __future__ import annotations

from gpu_node_pool.k8s.toleration_rules import FIELD_VALIDATION_SOURCE, TOLERATION_FIELDS, unknown_toleration_fields

TYPO = {"key": "nvidia.com/gpu", "opertor": "Exists", "effect": "NoSchedule"}


def test_a_misspelt_operator_is_named_with_the_field_meant_the_api_servers_answers_and_the_fix():
    (note,) = unknown_toleration_fields(TYPO, "tolerations[0]")
    assert note.startswith("tolerations[0].opertor ('Exists') is not a field of Toleration "
                           "(key, operator, value, effect, tolerationSeconds); did you mean operator?")
    assert "drops it under its default field validation (Warn" in note
    assert "no operator, which means operator Equal" in note
    assert "refuses the whole object under Strict (kubectl apply's default, --validate=strict)" in note
    assert FIELD_VALIDATION_SOURCE in note and note.endswith("fix: write operator: Exists")


def test_a_toleration_of_known_fields_gets_no_note():
    assert unknown_toleration_fields({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}) == []
    assert unknown_toleration_fields(dict.fromkeys(TOLERATION_FIELDS, "")) == []
    assert unknown_toleration_fields("not a mapping") == []


def test_another_case_is_no_field_and_is_meant_as_the_field():
    (note,) = unknown_toleration_fields({"key": "a", "Operator": "Exists"}, "tolerations[2]")
    assert note.startswith("tolerations[2].Operator ('Exists') is not a field") and "did you mean operator?" in note


def test_a_misspelling_beside_the_field_itself_is_to_be_dropped():
    (note,) = unknown_toleration_fields({"key": "a", "operator": "Equal", "opertor": "Exists"})
    assert note.endswith("fix: drop opertor (operator is already set)")


def test_each_unknown_key_has_its_own_note_in_order_and_a_far_one_no_guess():
    notes = unknown_toleration_fields({"key": "a", "efect": "NoExecute", "tolerationseconds": 30, "team": "ml"})
    assert [n.split(" ", 1)[0] for n in notes] == ["toleration.efect", "toleration.tolerationseconds", "toleration.team"]
    assert notes[0].endswith("fix: write effect: NoExecute") and "no effect, which means every effect" in notes[0]
    assert notes[1].endswith("fix: write tolerationSeconds: 30")
    assert "did you mean" not in notes[2] and "fix: drop team, or write the field meant" in notes[2]


def test_a_value_that_yaml_would_read_otherwise_is_quoted_in_the_fix():
    (note,) = unknown_toleration_fields({"key": "a", "operator": "Equal", "vaule": "true"})
    assert note.endswith("fix: write value: 'true'")
