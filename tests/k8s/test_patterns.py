"""Every validation pattern the package applies refuses what Go's regexp refuses.

Kubernetes (``k8s.io/apimachinery/pkg/util/validation``), the Karpenter CRDs and the AWS APIs
check values with Go's RE2 syntax, where ``$`` is end of text and ``\\d`` is ASCII. A value such
as ``"present\\n"`` (what a YAML ``value: |`` block gives) must be refused here, not by the API
server at deploy time.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from typing import Annotated

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field, TypeAdapter, ValidationError

import gpu_node_pool
from gpu_node_pool.config.common import Model
from gpu_node_pool.config.json_schema import stack_file_schema
from gpu_node_pool.k8s.patterns import full_match, go_regexp, pattern_search

BAD_EDGES = {
    "trailing newline": lambda s: s + "\n",
    "trailing carriage return": lambda s: s + "\r",
    "leading space": lambda s: " " + s,
    "trailing space": lambda s: s + " ",
    "trailing NUL": lambda s: s + "\0",
    "leading NUL": lambda s: "\0" + s,
}

#: Upstream patterns whose ``.`` takes any character but a newline, so Go accepts a trailing
#: "\r", space or NUL too; only the trailing newline is refused, as upstream refuses it.
#: Source: Karpenter v1.14.1 CRDs (karpenter.sh_nodepools.yaml budgets[].schedule,
#: karpenter.k8s.aws_ec2nodeclasses.yaml amiSelectorTerms[].alias).
UPSTREAM_DOT_PATTERNS = {"KARPENTER_BUDGET_SCHEDULE_RE", "KARPENTER_ALIAS_RE"}


def _module_patterns() -> dict[str, re.Pattern[str]]:
    """Every module-level ``*_RE`` pattern of the package, by name."""
    found: dict[str, re.Pattern[str]] = {}
    for info in pkgutil.walk_packages(gpu_node_pool.__path__, "gpu_node_pool."):
        if ".cli" in info.name or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if name.endswith("_RE") and isinstance(value, re.Pattern):
                found.setdefault(name, value)
    return found


MODULE_PATTERNS = _module_patterns()


def _schema_patterns() -> set[str]:
    found: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                found.add(node["pattern"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(stack_file_schema())
    return found


SCHEMA_PATTERNS = sorted(_schema_patterns())


def test_the_collection_finds_the_patterns_a_user_meets():
    assert {"_NAME_RE", "_LABEL_VALUE_RE", "DNS1123_SUBDOMAIN_RE", "_POOL_NAME_RE", "KARPENTER_QUANTITY_RE"} <= set(MODULE_PATTERNS)
    assert any("iam::" in p for p in SCHEMA_PATTERNS) and len(SCHEMA_PATTERNS) >= 10


@pytest.mark.parametrize("name", sorted(MODULE_PATTERNS))
@settings(max_examples=15)
@given(data=st.data())
def test_module_pattern_refuses_edge_characters(name, data):
    pattern = MODULE_PATTERNS[name]
    value = data.draw(st.from_regex(go_regexp(pattern), fullmatch=True), label="valid value")
    assert full_match(pattern, value) and pattern_search(pattern, value)
    edges = {"trailing newline": BAD_EDGES["trailing newline"]} if name in UPSTREAM_DOT_PATTERNS else BAD_EDGES
    for edge, make in edges.items():
        bad = make(value)
        assert not full_match(pattern, bad), f"{name} {pattern.pattern!r} accepts {bad!r} ({edge})"
        if name != "KARPENTER_BUDGET_SCHEDULE_RE":  # matched whole, see backends/_shared/nodepool.py
            assert not pattern_search(pattern, bad), f"{name} {pattern.pattern!r} finds {bad!r} ({edge})"


def _adapter(pattern: str) -> TypeAdapter:
    return TypeAdapter(Annotated[str, Field(pattern=pattern)], config=Model.model_config)


@pytest.mark.parametrize("pattern", SCHEMA_PATTERNS)
@settings(max_examples=15)
@given(data=st.data())
def test_field_pattern_refuses_edge_characters_and_non_ascii_digits(pattern, data):
    # pydantic applies Field(pattern=...) with its own engine (Rust regex): checked through it
    adapter = _adapter(pattern)
    value = data.draw(st.from_regex(go_regexp(pattern), fullmatch=True), label="valid value")
    assert adapter.validate_python(value) == value and full_match(pattern, value)
    bads = [make(value) for make in BAD_EDGES.values()]
    if re.search("[0-9]", value):
        bads.append(re.sub("[0-9]", "\u0663", value, count=1))  # ARABIC-INDIC DIGIT THREE
    for bad in bads:
        assert not full_match(pattern, bad), f"{pattern!r} accepts {bad!r}"
        with pytest.raises(ValidationError):
            adapter.validate_python(bad)


@pytest.mark.parametrize(
    "pattern, value, expected",
    [
        (r"^[a-z]+$", "present", True),
        (r"^[a-z]+$", "present\n", False),
        (r"^\d+$", "\u0663", False),
        (r"^a\sb$", "a\vb", False),  # Go's \s is [\t\n\f\r ]
        (r"^a\sb$", "a\tb", True),
        (r"^[$]x$", "$x", True),  # a '$' inside a class is a literal
        (r"^[]$]+$", "]$", True),
        (r"x\z", "x", True),
    ],
)
def test_go_meaning(pattern, value, expected):
    assert full_match(pattern, value) is expected
    assert pattern_search(pattern, value) is expected


def test_search_is_unanchored_where_the_pattern_is():
    assert pattern_search(r"(a|b)$", "xxa") and not full_match(r"(a|b)$", "xxa")
    assert not pattern_search(r"(a|b)$", "xxa\n")


def test_non_strings_never_match():
    assert not full_match(r".*", None) and not pattern_search(r".*", 3)
