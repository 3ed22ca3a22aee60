"""The admission setting end to end: config errors, ``gpupool render`` files, the plan's listing, the schema,
and the objects' shape against the Kubernetes API types."""

from __future__ import annotations

import re

import pytest
import yaml
from conftest import base

from gpu_node_pool.admission.render import render_stack
from gpu_node_pool.cli.commands import main
from gpu_node_pool.config.errors import ConfigError
from gpu_node_pool.config.json_schema import stack_file_schema
from gpu_node_pool.config.loading import validate_stack_config


def stack_yaml(version: str = "1.31", action: str = "deny") -> str:
    raw = base()
    raw["cluster"]["kubernetesVersion"] = version
    raw["admission"] = {"enabled": True, "action": action}
    return yaml.safe_dump({"config": {f"gpu-node-pools:{k}": v for k, v in raw.items()}})


def test_enabled_below_1_30_is_a_config_error_naming_the_version_and_the_fix():
    raw = base()
    raw["cluster"]["kubernetesVersion"] = "1.29"
    raw["admission"] = {"enabled": True}
    with pytest.raises(ConfigError) as err:
        validate_stack_config(raw)
    text = str(err.value)
    assert "admission.enabled" in text and "'1.29'" in text and ">= 1.30" in text and "admission.enabled: false" in text
    raw["admission"] = {"enabled": False}
    validate_stack_config(raw)  # off: any version


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
    assert len(docs) == 4
    binding = docs["validatingadmissionpolicybinding-gpu-node-pools-no-imperative-taints.yaml"]
    assert binding["spec"] == {"policyName": "gpu-node-pools-no-imperative-taints", "validationActions": ["Warn", "Audit"]}
    policy = docs["validatingadmissionpolicy-gpu-node-pools-no-imperative-taints.yaml"]
    assert policy["apiVersion"] == "admissionregistration.k8s.io/v1" and "of pool inference" in str(policy["spec"])
    assert main(["plan", "--stack", "vap", "--project-dir", str(project)]) == 0
    text = capsys.readouterr().out
    assert "gpu-node-pools-gpu-toleration-allowlist  rule gpu-toleration-allowlist  actions Warn, Audit" in text
    assert "gpu-node-pools-no-imperative-taints  rule no-imperative-taints  actions Warn, Audit" in text


def test_disabled_installs_nothing(capsys, temp_project):
    raw = base()
    project = temp_project("off", yaml.safe_dump({"config": {f"gpu-node-pools:{k}": v for k, v in raw.items()}}))
    assert main(["plan", "--stack", "off", "--project-dir", str(project)]) == 0
    assert "admission policies" not in capsys.readouterr().out


def test_the_schema_describes_the_setting():
    text = str(stack_file_schema())
    assert "serviceAccounts" in text and "'audit', 'warn', 'deny'" in text.replace('"', "'")


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()


def _shape_errors(value, type_name: str, path: str) -> list[str]:
    """Keys of ``value`` that the kubernetes client's model ``type_name`` does not have (its OpenAPI types)."""
    from kubernetes.client import models

    if type_name.startswith("List["):
        return [e for i, v in enumerate(value) for e in _shape_errors(v, type_name[5:-1], f"{path}[{i}]")]
    if type_name.startswith("Dict[") or type_name in ("str", "int", "bool", "object"):
        return [] if type_name != "str" or isinstance(value, str) else [f"{path}: {value!r} is not a string"]
    model = getattr(models, type_name)
    errors = []
    for key, sub in value.items():
        attr = _snake(key)
        if attr not in model.openapi_types or model.attribute_map[attr] != key:
            errors.append(f"{path}.{key}: not a field of {type_name}")
        else:
            errors += _shape_errors(sub, model.openapi_types[attr], f"{path}.{key}")
    return errors


def test_the_objects_have_the_shape_of_the_kubernetes_types():
    """kubernetes-validate is not installed; the kubernetes client's generated models (from the same OpenAPI)
    give every field's name and type."""
    raw = base()
    raw["admission"] = {"enabled": True}
    objects = render_stack(validate_stack_config(raw))
    assert [o.kind for o in objects] == ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"] * 2
    for obj in objects:
        assert _shape_errors(obj.body, f"V1{obj.kind}", obj.name) == []
    bad = {**objects[0].body, "spec": {**objects[0].body["spec"], "validation": []}}
    assert _shape_errors(bad, "V1ValidatingAdmissionPolicy", "x") == ["x.spec.validation: not a field of V1ValidatingAdmissionPolicySpec"]


def test_pack_config_changes_the_allowed_namespaces():
    raw = base()
    objects = render_stack(validate_stack_config(raw), {"gpu-toleration-allowlist": {"allowedNamespaces": ["ml"]}})
    condition, agents = objects[0].body["spec"]["matchConditions"]
    # the pack config's namespaces, plus the namespace of the device plugin the stack installs
    assert condition["expression"] == '!(request.namespace in ["ml", "nvidia-device-plugin"])'
    assert agents["name"] == "not-a-node-agent"


