"""A Gatekeeper ConstraintTemplate and its Constraint evaluated the way Gatekeeper's admission webhook does,
with regopy (the OPA Rego language and runtime, rego-cpp).

Gatekeeper (https://open-policy-agent.github.io/gatekeeper/website/docs/howto/): a request is judged by a
Constraint when its kind is in ``spec.match.kinds`` and its namespace is not in
``spec.match.excludedNamespaces``; the template's Rego is queried for ``violation`` with
``input.review`` (the AdmissionRequest: ``object``, ``oldObject``, ``operation``, ``namespace``,
``userInfo``, ``kind``) and ``input.parameters`` (the Constraint's ``spec.parameters``); each violation's
``msg`` is the message. A Rego error fails the test.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

regopy = pytest.importorskip("regopy", reason="regopy is not installed (pip install regopy)")

_INTERPRETERS: dict[str, Any] = {}


def _source(template: dict[str, Any]) -> str:
    (target,) = template["spec"]["targets"]
    (code,) = [c for c in target["code"] if c["engine"] == "Rego"]
    assert code["source"]["version"] == "v1"
    return code["source"]["rego"]


def _interpreter(source: str) -> Any:
    if source not in _INTERPRETERS:
        rego = regopy.Interpreter()
        rego.add_module("template.rego", source)
        _INTERPRETERS[source] = rego
    return _INTERPRETERS[source]


def _matches(constraint: dict[str, Any], request: dict[str, Any]) -> bool:
    match = constraint["spec"].get("match", {})
    group, kind = request["kind"]["group"], request["kind"]["kind"]
    if not any(group in k["apiGroups"] and kind in k["kinds"] for k in match.get("kinds", [])):
        return False
    return not (request.get("namespace") and request["namespace"] in match.get("excludedNamespaces", []))


def review(template: dict[str, Any], constraint: dict[str, Any], request: dict[str, Any]) -> list[str] | None:
    """None when the Constraint does not match ``request``; else its violations' messages (empty: admitted)."""
    if not _matches(constraint, request):
        return None
    source = _source(template)
    package = source.split("\n", 1)[0].split()[1]
    rego = _interpreter(source)
    rego.set_input({"review": request, "parameters": constraint["spec"].get("parameters", {})})
    out = rego.query(f"x := [m | some v in data.{package}.violation; m := v.msg]")
    text = str(out)
    if not out.results or "bindings" not in text:
        raise AssertionError(f"Rego error or undefined result in {package}: {text}")
    return json.loads(text)["bindings"]["x"]
