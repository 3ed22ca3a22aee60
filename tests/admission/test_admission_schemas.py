"""The emitted objects validate strictly: the ValidatingAdmissionPolicies against the Kubernetes schema of
the stack's ``kubernetesVersion`` (kubernetes-validate, strict: no unknown field), the Gatekeeper objects
against Gatekeeper's CRDs (``tests/data/gatekeeper``, see its SOURCE.md), unknown fields refused where the
schema does not preserve them, as the API server's strict field validation does."""

from __future__ import annotations

import copy
from pathlib import Path

import jsonschema
import pytest
import yaml
from conftest import base

from gpu_node_pool.admission.render import render_stack
from gpu_node_pool.config.loading import validate_stack_config

kubernetes_validate = pytest.importorskip("kubernetes_validate", reason="kubernetes-validate is not installed")
GATEKEEPER = Path(__file__).resolve().parents[1] / "data" / "gatekeeper"


def objects(version: str, engine: str, action: str = "deny"):
    raw = base()
    raw["cluster"]["kubernetesVersion"] = version
    raw["pools"][0]["taints"] = ["nvidia.com/gpu=present:NoSchedule", "team=ml:NoExecute"]
    raw["admission"] = {"enabled": True, "engine": engine, "action": action, "exempt": {"groups": ["node-admins"]}}
    return render_stack(validate_stack_config(raw))


@pytest.mark.parametrize("version", ["1.30", "1.31", "1.33"])
def test_policies_validate_strictly_against_the_stacks_kubernetes_version(version):
    rendered = objects(version, "validating-admission-policy")
    assert [o.kind for o in rendered] == ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"] * 4
    for obj in rendered:
        kubernetes_validate.validate(obj.body, f"{version}.0", strict=True)


def test_an_unknown_field_fails_the_strict_validation():
    policy = copy.deepcopy(objects("1.31", "validating-admission-policy")[0].body)
    policy["spec"]["validation"] = []  # a typo of validations
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(policy, "1.31.0", strict=True)


def _strict(schema: dict) -> dict:
    """``schema`` with unknown properties refused wherever it lists properties and preserves nothing else."""
    out = {k: (_strict(v) if isinstance(v, dict) else [_strict(i) if isinstance(i, dict) else i for i in v]
               if isinstance(v, list) else v) for k, v in schema.items() if not k.startswith("x-kubernetes-")}
    if "properties" in schema:
        out["properties"] = {k: _strict(v) for k, v in schema["properties"].items()}
        if "additionalProperties" not in schema and not schema.get("x-kubernetes-preserve-unknown-fields"):
            out["additionalProperties"] = False
    return out


def _crd_schema(name: str) -> dict:
    crd = yaml.safe_load((GATEKEEPER / name).read_text())
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


def constraint_schema(template: dict) -> dict:
    """The Constraint CRD schema Gatekeeper creates for ``template`` (frameworks ``CreateSchema``)."""
    match = _crd_schema("match.gatekeeper.sh_matchcrd.yaml")["properties"]["embeddedMatch"]
    params = template["spec"]["crd"]["spec"]["validation"]["openAPIV3Schema"]
    return {"type": "object", "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"},
        # the API server owns ObjectMeta; a CRD schema only bounds the name
        "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 63}}, "additionalProperties": True},
        "spec": {"type": "object", "properties": {
            "match": match, "enforcementAction": {"type": "string"}, "parameters": params,
            "scopedEnforcementActions": {"type": "array", "items": {"type": "object"}}}}}}


def _errors(body: dict, schema: dict) -> list[str]:
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in jsonschema.Draft7Validator(_strict(schema)).iter_errors(body)]


@pytest.mark.skipif(not GATEKEEPER.is_dir(), reason=f"Gatekeeper's CRDs are not here ({GATEKEEPER})")
def test_gatekeeper_objects_validate_against_its_crds():
    rendered = objects("1.29", "gatekeeper")  # Gatekeeper needs no 1.30
    template_schema = _crd_schema("constrainttemplate-customresourcedefinition.yaml")
    templates = {o.body["spec"]["crd"]["spec"]["names"]["kind"]: o.body for o in rendered if o.kind == "ConstraintTemplate"}
    assert len(templates) == 4
    for kind, template in templates.items():
        assert template["metadata"]["name"] == kind.lower()  # Gatekeeper requires it
        assert _errors(template, template_schema) == []
    constraints = [o.body for o in rendered if o.api_version == "constraints.gatekeeper.sh/v1beta1"]
    assert len(constraints) == 4
    for body in constraints:
        assert body["spec"]["enforcementAction"] in ("deny", "warn")
        assert _errors(body, constraint_schema(templates[body["kind"]])) == []
    bad = copy.deepcopy(constraints[0])
    bad["spec"]["match"]["namespace"] = ["web"]  # a typo of namespaces
    assert _errors(bad, constraint_schema(templates[bad["kind"]])) != []
