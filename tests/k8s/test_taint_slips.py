"""A taint string with a space after ':' that YAML read as a one-key mapping is told as that slip, with the string
meant; a mapping that is no such slip (a taint object, an unrelated mapping) is left to the reader of objects."""

from __future__ import annotations

import pytest
import yaml

from gpu_node_pool.k8s.taint_slips import mapping_slip

FIELDS = frozenset({"key", "value", "effect"})


def _read(item: str) -> tuple[object, object]:
    """The one key and value YAML reads from the list item ``item``, as a stack file's taints list would."""
    [mapping] = yaml.safe_load(f"- {item}")
    [(key, value)] = mapping.items()
    return key, value


@pytest.mark.parametrize(("written", "meant"), [
    ("nvidia.com/gpu = present : NoSchedule", "nvidia.com/gpu=present:NoSchedule"),
    ("nvidia.com/gpu: NoSchedule", "nvidia.com/gpu:NoSchedule"),
    ("dedicated=gpu: NoExecute", "dedicated=gpu:NoExecute"),
    ("nvidia.com/gpu: NO_SCHEDULE", "nvidia.com/gpu:NO_SCHEDULE"),  # the EKS/GKE spelling: still a taint meant
    ("nvidia.com/gpu: noschedule", "nvidia.com/gpu:noschedule"),
    ("dedicated=gpu:", "dedicated=gpu:"),  # no effect at all: YAML reads the value as null
])
def test_a_taint_yaml_read_as_a_mapping_is_told_with_the_string_meant(written, meant):
    key, value = _read(written)
    message = mapping_slip(key, value, FIELDS)
    assert message is not None
    assert message.startswith(f"{key!r}: {value!r} is a mapping to YAML (': ' starts a value: ")
    assert "https://yaml.org/spec/1.2.2/#733-plain-style" in message
    assert message.endswith(f"write the taint as one string without spaces, e.g. {meant}")


@pytest.mark.parametrize(("key", "value"), [
    ("key", "nvidia.com/gpu"),  # a taint object with one field: the object reader says what is missing
    ("effect", "NoSchedule"),
    ("nvidia.com/gpu", "present"),  # no '=' and no effect: nothing says a taint was meant
    ("team", {"a": "b"}),  # a nested mapping is no taint string
    (3, "NoSchedule"),  # YAML reads `3: NoSchedule` with an int key
])
def test_a_mapping_that_is_no_slip_is_left_alone(key, value):
    assert mapping_slip(key, value, FIELDS) is None


def test_the_fields_given_are_the_ones_left_alone():
    assert mapping_slip("key", "NoSchedule", FIELDS) is None
    assert mapping_slip("key", "NoSchedule", frozenset()) is not None


def test_a_long_key_is_cut_in_the_message():
    key = "a" * 5000 + "=v"
    message = mapping_slip(key, "NoSchedule", FIELDS)
    assert message is not None and len(message) < 2000 and "characters)" in message
