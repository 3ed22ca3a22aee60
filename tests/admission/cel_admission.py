"""A ValidatingAdmissionPolicy evaluated the way the API server does, with cel-python (``celpy``).

Order (https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/): the
request must match ``matchConstraints.resourceRules``; every ``matchConditions`` expression must be true
(else the policy does not apply); ``variables`` are evaluated in order, each seeing the earlier ones as
``variables.<name>``; each ``validations`` expression must be true, else its ``messageExpression`` is the
message. cel-python accepts every function the rendered policies use (``has``, ``exists``, ``all``,
``startsWith``, ``matches``, ``in``, ``string()``); variables are bound as a map named ``variables``.
"""

from __future__ import annotations

from typing import Any

import celpy

_ENV = celpy.Environment()
_PROGRAMS: dict[str, Any] = {}


def _program(expression: str) -> Any:
    if expression not in _PROGRAMS:
        _PROGRAMS[expression] = _ENV.program(_ENV.compile(expression))
    return _PROGRAMS[expression]


def _eval(expression: str, activation: dict[str, Any]) -> Any:
    result = _program(expression).evaluate(activation)
    if isinstance(result, celpy.CELEvalError):
        raise AssertionError(f"CEL error in {expression!r}: {result}")
    return result


def _matches_rules(spec: dict[str, Any], request: dict[str, Any]) -> bool:
    kind = request["resource"]
    for rule in spec["matchConstraints"]["resourceRules"]:
        if (kind["group"] in rule["apiGroups"] and kind["version"] in rule["apiVersions"]
                and kind["resource"] in rule["resources"] and request["operation"] in rule["operations"]):
            return True
    return False


def admit(policy: dict[str, Any], request: dict[str, Any]) -> list[str] | None:
    """None when ``policy`` does not apply to ``request``; else the messages of the failed validations
    (empty: admitted). ``request`` is AdmissionRequest-shaped: ``operation``, ``namespace``, ``resource``
    ``{group, version, resource}``, ``userInfo``, ``object``, ``oldObject``."""
    spec = policy["spec"]
    if not _matches_rules(spec, request):
        return None
    activation: dict[str, Any] = {
        "object": celpy.json_to_cel(request.get("object")),
        "oldObject": celpy.json_to_cel(request.get("oldObject")),
        "request": celpy.json_to_cel({k: v for k, v in request.items() if k not in ("object", "oldObject")}),
    }
    for condition in spec.get("matchConditions", []):
        if not bool(_eval(condition["expression"], activation)):
            return None
    variables: dict[str, Any] = {}
    for var in spec.get("variables", []):
        activation["variables"] = celpy.celtypes.MapType(variables)
        variables[celpy.celtypes.StringType(var["name"])] = _eval(var["expression"], activation)
    activation["variables"] = celpy.celtypes.MapType(variables)
    failed = []
    for check in spec["validations"]:
        if not bool(_eval(check["expression"], activation)):
            failed.append(str(_eval(check["messageExpression"], activation)))
    return failed
