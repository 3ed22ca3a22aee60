"""The admission setting end to end: config errors, ``gpupool render`` files, the plan's listing, the schema,
and the objects' shape against the Kubernetes API types."""

from __future__ import annotations

import pytest
import yaml
from conftest import base

from gpu_node_pool.admission.render import render_stack
from gpu_node_pool.cli.commands import main
from gpu_node_pool.config.errors import ConfigError
from gpu_node_pool.config.json_schema import stack_file_schema
from gpu_node_pool.config.loading import validate_stack_config


def stack_yaml(version: str = "1.31", action: str = "deny", engine: str = "validating-admission-policy") -> str:
    raw = base()
    raw["cluster"]["kubernetesVersion"] = version
    raw["admission"] = {"enabled": True, "engine": engine, "action": action}
    return yaml.safe_dump({"config": {f"gpu-node-pools:{k}": v for k, v in raw.items()}})


def test_validating_admission_policy_below_1_30_is_a_config_error_naming_the_version_and_the_fix():
    raw = base()
    raw["cluster"]["kubernetesVersion"] = "1.29"
    raw["admission"] = {"enabled": True, "engine": "validating-admission-policy"}
    with pytest.raises(ConfigError) as err:
        validate_stack_config(raw)
    text = str(err.value)
    assert "admission.engine" in text and "'1.29'" in text and ">= 1.30" in text
    assert "admission.engine: gatekeeper" in text and "admission.enabled: false" in text
    raw["admission"] = {"enabled": False}
    validate_stack_config(raw)  # off: any version
    raw["admission"] = {"enabled": True, "engine": "gatekeeper"}
    validate_stack_config(raw)  # Gatekeeper serves its own CRDs on any version


def test_a_bad_action_or_service_account_is_refused():
    raw = base()
    raw["admission"] = {"action": "block", "exempt": {"serviceAccounts": ["cluster-autoscaler"]}}
    with pytest.raises(ConfigError) as err:
        validate_stack_config(raw)
    assert "admission.action" in str(err.value)
    assert "admission.exempt.serviceAccounts: [0] = 'cluster-autoscaler' is not namespace:name" in str(err.value)


def test_plan_exits_2_on_the_version_error(capsys, temp_project):
    project = temp_project("old", stack_yaml("1.29"))
    assert main(["plan", "--stack", "old", "--project-dir", str(project)]) == 2
    captured = capsys.readouterr()
    assert "needs Kubernetes >= 1.30" in captured.out + captured.err


def test_render_writes_the_policies_and_the_plan_lists_them_with_their_action(capsys, temp_project, tmp_path):
    project = temp_project("vap", stack_yaml(action="warn"))
    out = tmp_path / "out"
    assert main(["render", "--stack", "vap", "--out", str(out), "--project-dir", str(project)]) == 0
    capsys.readouterr()
    docs = {p.name: yaml.safe_load(p.read_text()) for p in out.glob("validatingadmissionpolicy*.yaml")}
    assert len(docs) == 8
    binding = docs["validatingadmissionpolicybinding-gpu-node-pools-no-imperative-taints.yaml"]
    assert binding["spec"] == {"policyName": "gpu-node-pools-no-imperative-taints", "validationActions": ["Warn", "Audit"]}
    policy = docs["validatingadmissionpolicy-gpu-node-pools-no-imperative-taints.yaml"]
    assert policy["apiVersion"] == "admissionregistration.k8s.io/v1" and "of pool inference" in str(policy["spec"])
    assert main(["plan", "--stack", "vap", "--project-dir", str(project)]) == 0
    text = capsys.readouterr().out
    assert "gpu-node-pools-gpu-toleration-allowlist  rule gpu-toleration-allowlist  actions Warn, Audit" in text
    assert "gpu-node-pools-no-imperative-taints  rule no-imperative-taints  actions Warn, Audit" in text
    assert "gpu-node-pools-daemonsets-tolerate-gpu-taints  rule daemonsets-tolerate-gpu-taints  actions Warn, Audit" in text


def test_gatekeeper_render_and_plan(capsys, temp_project, tmp_path):
    project = temp_project("gk", stack_yaml(version="1.29", engine="gatekeeper"))
    out = tmp_path / "out"
    assert main(["render", "--stack", "gk", "--out", str(out), "--project-dir", str(project)]) == 0
    capsys.readouterr()
    names = sorted(p.name for p in out.glob("*.yaml"))
    assert sum(n.startswith("constrainttemplate-") for n in names) == 4, names
    assert main(["plan", "--stack", "gk", "--project-dir", str(project)]) == 0
    text = capsys.readouterr().out
    assert "gpu-node-pools-no-imperative-taints  rule no-imperative-taints  enforcementAction deny" in text
    assert "gpu-node-pools-gpu-workloads-reach-their-pool  rule gpu-workloads-select-gpu-nodes, " in text


def test_disabled_installs_nothing(capsys, temp_project):
    raw = base()
    project = temp_project("off", yaml.safe_dump({"config": {f"gpu-node-pools:{k}": v for k, v in raw.items()}}))
    assert main(["plan", "--stack", "off", "--project-dir", str(project)]) == 0
    assert "admission policies" not in capsys.readouterr().out


def test_the_schema_describes_the_setting():
    text = str(stack_file_schema())
    assert "serviceAccounts" in text and "'audit', 'warn', 'deny'" in text.replace('"', "'")
    assert "'validating-admission-policy', 'gatekeeper'" in text.replace('"', "'")


def test_pack_config_changes_the_allowed_namespaces():
    raw = base()
    objects = render_stack(validate_stack_config(raw), {"gpu-toleration-allowlist": {"allowedNamespaces": ["ml"]}})
    condition, agents = objects[0].body["spec"]["matchConditions"]
    # the pack config's namespaces, plus the namespace of the device plugin the stack installs
    assert condition["expression"] == '!(request.namespace in ["ml", "nvidia-device-plugin"])'
    assert agents["name"] == "not-a-node-agent"


