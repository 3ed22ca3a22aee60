"""cluster.admissionPlugins reaches the policies that judge effective tolerations."""

from __future__ import annotations

from conftest import base

from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.plan import run as plan_run


def _captured(monkeypatch, admission_plugins, policy_config):
    seen = {}

    def evaluate(resources, config, **kw):
        seen["config"] = config
        return []

    monkeypatch.setattr("gpu_node_pool.policies.evaluate", evaluate)
    raw = base()
    if admission_plugins is not None:
        raw["cluster"]["admissionPlugins"] = admission_plugins
    result = plan_run.PlanResult(stack="s", config=validate_stack_config(raw))
    plan_run._check_policies(result, policy_config, "gpu-node-pools")
    return seen["config"]


def test_the_stack_key_fills_the_policy_property(monkeypatch):
    config = _captured(monkeypatch, ["ExtendedResourceToleration"], {"all": "advisory"})
    assert config["gpu-workloads-tolerate-their-pool"] == {"admissionPlugins": ["ExtendedResourceToleration"]}
    assert config["all"] == "advisory"


def test_the_pack_config_wins_and_no_key_changes_nothing(monkeypatch):
    config = _captured(monkeypatch, ["ExtendedResourceToleration"],
                       {"gpu-workloads-tolerate-their-pool": {"enforcementLevel": "mandatory", "admissionPlugins": []}})
    assert config["gpu-workloads-tolerate-their-pool"] == {"enforcementLevel": "mandatory", "admissionPlugins": []}
    assert _captured(monkeypatch, None, None) is None
