"""Kubernetes name-rule refusals (label and taint keys and values) through ``gpupool plan``: each names the rule's
public source (``IsQualifiedName`` / ``IsValidLabelValue``, k8s.io/apimachinery pkg/util/validation/validation.go,
and the labels syntax page) and ends with a valid value to write."""

from __future__ import annotations

import pytest
from conftest import ROOT
from conftest import plan_stack_text as plan

from gpu_node_pool.k8s.names import label_value_problem, qualified_name_problem

GKE = (ROOT / "stacks" / "Pulumi.gke-dev.yaml").read_text()
DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
DOC = "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set"
GO = "k8s.io/apimachinery pkg/util/validation/validation.go"


CASES = [
    ("label value with '!'", GKE, "        workload: inference", "        workload: Bad_Class!",
     "label value 'Bad_Class!' must be empty or start and end with a letter or digit", "IsValidLabelValue",
     "write e.g. 'Bad_Class'"),
    ("label key name part of 64", GKE, "        workload: inference", "        " + "k" * 64 + ": x",
     "name part is 64 characters; at most 63 are allowed", "IsQualifiedName", "write e.g. '" + "k" * 63 + "'"),
    ("label key prefix of 254", GKE, "        workload: inference", "        " + "a" * 254 + "/b: y",
     "prefix is 254 characters; a DNS subdomain has at most 253", "IsQualifiedName", "write e.g. 'example.com/b'"),
    ("label value of 64", GKE, "        workload: inference", "        workload: " + "v" * 64,
     "is 64 characters; at most 63 are allowed", "IsValidLabelValue", "write e.g. '" + "v" * 63 + "'"),
    ("taint value with '!'", GKE, "        - nvidia.com/gpu=present:NoSchedule",
     "        - nvidia.com/gpu=present:NoSchedule\n        - example.com/class=Bad_Class!:NoSchedule",
     "'Bad_Class!' must be empty or start and end", "IsValidLabelValue", "write e.g. 'Bad_Class'"),
    ("taint key with an upper-case prefix", GKE, "        - nvidia.com/gpu=present:NoSchedule",
     "        - nvidia.com/gpu=present:NoSchedule\n        - Example.com/class=a:NoSchedule",
     "prefix 'Example.com' is not a DNS subdomain", "IsQualifiedName", "write e.g. 'example.com/class'"),
    ("eks-managed label value", DEV, "        example.com/team: ml-platform", "        example.com/team: ml platform",
     "label value 'ml platform' must be empty or start and end", "IsValidLabelValue", "write e.g. 'ml-platform'"),
]


@pytest.mark.parametrize("desc, base, old, new, rule, function, fix", CASES, ids=[c[0] for c in CASES])
def test_a_name_rule_refusal_names_its_source_and_a_valid_value(capsys, temp_project, desc, base, old, new, rule,
                                                                  function, fix):
    text = base.replace(old, new)
    assert text != base, "the case did not change the stack"
    code, out = plan(capsys, temp_project, text)
    assert code == 2, out
    line = next(line for line in out.splitlines() if rule in line)
    assert f"{function} in {GO}; {DOC}" in line and fix in line, line


@pytest.mark.parametrize("key", ["a/b/c", "", "/x", "x/", "-bad", "Ab_C/x", "a" * 254 + "/b", "k" * 70,
                                 "exa mple.com/Foo Bar!", "___", "é/ü", "a." * 200 + "/x"])
def test_the_key_offered_is_a_valid_key(key):
    problem = qualified_name_problem(key)
    assert problem is not None and "write e.g. '" in problem
    offered = problem.rsplit("write e.g. ", 1)[1].strip("'")
    assert qualified_name_problem(offered) is None, offered


@pytest.mark.parametrize("value", ["Bad_Class!", "v" * 64, "-", "!!!", " x ", "a b", "é"])
def test_the_value_offered_is_a_valid_value(value):
    problem = label_value_problem(value)
    assert problem is not None and "write e.g. '" in problem
    offered = problem.rsplit("write e.g. ", 1)[1].strip("'")
    assert label_value_problem(offered) is None and offered != value, offered


@pytest.mark.parametrize(("given", "example"), [
    ("présent", "present"), ("Ångström", "Angstrom"), ("café-ñ", "cafe-n"), ("日本", "my_value")])
def test_a_value_with_accents_is_fixed_to_the_word_without_them(given, example):
    assert label_value_problem(given).endswith(f"write e.g. {example!r}")


def test_a_key_with_accents_is_fixed_to_the_word_without_them():
    assert qualified_name_problem("exämple.com/gpü").endswith("write e.g. 'example.com/gpu'")
