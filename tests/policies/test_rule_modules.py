"""Each rule module exports its policy under one name, ``POLICY``; the pack is those objects."""

from __future__ import annotations

import pkgutil

from gpu_node_pool.policies import rules
from gpu_node_pool.policies.rules import JUDGES, POLICIES


def rule_module_names() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(rules.__path__) if not m.name.startswith("_") and m.name != "pack")


def test_every_rule_module_exports_the_policy_named_after_it_as_POLICY():
    for name in rule_module_names():
        module = getattr(rules, name)
        assert module.POLICY.name == name.replace("_", "-"), name


def test_the_pack_is_every_modules_POLICY_once():
    by_name = {getattr(rules, name).POLICY.name: getattr(rules, name).POLICY for name in rule_module_names()}
    assert sorted(p.name for p in POLICIES) == sorted(by_name)
    assert all(p is by_name[p.name] for p in POLICIES)


def test_the_type_predicates_belong_to_the_module_of_their_policy():
    for name, (policy, judges) in JUDGES.items():
        module = getattr(rules, name.replace("-", "_"))
        assert policy is module.POLICY and judges is module.judges
