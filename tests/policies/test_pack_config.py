"""The pack's policies and levels, and the policy pack config: levels, defaults, refusals, disabling."""

from __future__ import annotations

import pytest
from builders import (
    node_group,
)

from gpu_node_pool.policies import POLICIES, PolicyConfigError, evaluate, resolve_config
from gpu_node_pool.policies import rules as d


def test_the_pack_has_its_policies_with_their_levels():
    levels = {p.name: p.enforcement_level.value for p in POLICIES}
    assert levels == {
        "no-imperative-taints": "mandatory",
        "gpu-pool-declares-taint": "mandatory",
        "daemonsets-tolerate-gpu-taints": "mandatory",
        "device-plugin-covers-gpu-pools": "mandatory",
        "gpu-toleration-allowlist": "mandatory",
        "daemonsets-tolerate-exactly": "advisory",
        "gpu-workloads-select-gpu-nodes": "advisory",
        "gpu-limits-well-formed": "mandatory",
        "noexecute-gpu-taint": "advisory",
        "resources-judged": "advisory",
        "registration-taints-visible": "mandatory",
        "karpenter-startup-taints": "advisory",
        "gpu-workloads-tolerate-their-pool": "advisory",
        "admission-policies-match-pools": "mandatory",
        "scale-from-zero-hints": "advisory",
        "gpu-agents-cover-gpu-pools": "mandatory",
    }
    assert all(p.description and p.remediation_steps for p in POLICIES)


def test_policy_pack_config_levels_and_defaults_resolve_like_the_cli():
    settings = resolve_config({"all": "advisory", "gpu-limits-well-formed": {"enforcementLevel": "disabled"}})
    assert settings["no-imperative-taints"][0].value == "advisory"
    assert settings["gpu-limits-well-formed"][0].value == "disabled"
    assert settings["gpu-toleration-allowlist"][1]["allowedNamespaces"] == ["kube-system", "nvidia-device-plugin", "gpu-operator"]


@pytest.mark.parametrize(
    "config",
    [
        {"no-such-policy": "advisory"},
        {"all": "loud"},
        {"gpu-toleration-allowlist": {"allowedNamespaces": "web"}},
        {"daemonsets-tolerate-gpu-taints": {"extraTaints": ["dedicated=gpu:NO_SCHEDULE"]}},
        {"scale-from-zero-hints": {"anything": 1}},
    ],
)
def test_an_invalid_policy_pack_config_is_refused_with_the_reason(config):
    with pytest.raises(PolicyConfigError, match=next(iter(config)) if "all" not in config else "all"):
        resolve_config(config)


def test_a_disabled_policy_does_not_run():
    assert evaluate([node_group(taints=())], {"gpu-pool-declares-taint": "disabled"}, policies=[d.gpu_pool_declares_taint.POLICY]) == []


def test_all_as_an_object_with_only_its_level_is_read_as_the_cli_reads_it():
    levels = {name: level.value for name, (level, _) in resolve_config({"all": {"enforcementLevel": "disabled"}}).items()}
    assert set(levels.values()) == {"disabled"}
    with pytest.raises(PolicyConfigError) as err:
        resolve_config({"all": {"allowedNamespaces": ["x"]}})
    assert 'nor {"enforcementLevel": <level>}' in str(err.value)
