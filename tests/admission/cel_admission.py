"""A ValidatingAdmissionPolicy and its binding evaluated the way the API server does, with either of two
independent CEL runtimes: cel-python (``celpy``, pure Python) and Google's cel-expr-python (a binding of
the C++ runtime, cel-cpp).

Order (https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/): the
request must match the policy's ``matchConstraints.resourceRules`` and the binding's ``matchResources``
(``namespaceSelector`` against the namespace's ``kubernetes.io/metadata.name`` label, the only label this
harness knows); every ``matchConditions`` expression must be true (else the policy does not apply);
``variables`` are evaluated in order, each seeing the earlier ones as ``variables.<name>``; each
``validations`` expression must be true, else its ``messageExpression`` is the message. An expression
error fails the test: the rendered CEL must evaluate on every generated object in both runtimes.

Both runtimes accept every form the rendered policies use (``has``, ``exists``, ``all``, ``size``,
``startsWith``, ``matches``, ``in`` over lists and string-keyed maps, ``string()``, conditionals); the
variables are bound as a ``dyn`` map named ``variables`` in both.
"""

from __future__ import annotations

import sys
from typing import Any

import celpy
import pytest

RUNTIMES = ("cel-python", "cel-expr-python")
# cel-python's parser raises the recursion limit to 2500 while it parses; raised once here, so hypothesis
# does not warn that a test changed it
sys.setrecursionlimit(max(sys.getrecursionlimit(), 2500))


class _CelPython:
    def __init__(self) -> None:
        self.env = celpy.Environment()
        self.programs: dict[str, Any] = {}

    def eval(self, expression: str, data: dict[str, Any]) -> Any:
        if expression not in self.programs:
            self.programs[expression] = self.env.program(self.env.compile(expression))
        activation = {k: celpy.json_to_cel(v) for k, v in data.items()}
        result = self.programs[expression].evaluate(activation)
        if isinstance(result, celpy.CELEvalError):
            raise AssertionError(f"cel-python: CEL error in {expression!r}: {result}")
        return _plain(result)


def _plain(value: Any) -> Any:
    """A celpy value as plain Python (so the next expression gets it as JSON again)."""
    if isinstance(value, celpy.celtypes.BoolType):
        return bool(value)
    if isinstance(value, celpy.celtypes.StringType):
        return str(value)
    if isinstance(value, celpy.celtypes.IntType):
        return int(value)
    if isinstance(value, celpy.celtypes.DoubleType):
        return float(value)
    if isinstance(value, celpy.celtypes.MapType):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, celpy.celtypes.ListType):
        return [_plain(v) for v in value]
    return value


class _CelCpp:
    def __init__(self) -> None:
        cel = pytest.importorskip("cel_expr_python.cel", reason="cel-expr-python is not installed (pip install cel-expr-python)")
        self.env = cel.NewEnv(variables={n: cel.Type.DYN for n in ("object", "oldObject", "request", "variables")})
        self.programs: dict[str, Any] = {}

    def eval(self, expression: str, data: dict[str, Any]) -> Any:
        if expression not in self.programs:
            self.programs[expression] = self.env.compile(expression)
        try:
            return self.programs[expression].eval(data=data).plain_value()
        except Exception as err:  # the binding raises on evaluation errors
            raise AssertionError(f"cel-expr-python: CEL error in {expression!r}: {err}") from err


_RUNTIMES: dict[str, Any] = {}


def runtime(name: str) -> Any:
    if name not in _RUNTIMES:
        _RUNTIMES[name] = _CelPython() if name == "cel-python" else _CelCpp()
    return _RUNTIMES[name]


def _matches_rules(spec: dict[str, Any], request: dict[str, Any]) -> bool:
    kind = request["resource"]
    for rule in spec["matchConstraints"]["resourceRules"]:
        if (kind["group"] in rule["apiGroups"] and kind["version"] in rule["apiVersions"]
                and kind["resource"] in rule["resources"] and request["operation"] in rule["operations"]):
            return True
    return False


def _matches_binding(binding: dict[str, Any] | None, request: dict[str, Any]) -> bool:
    selector = ((binding or {}).get("spec", {}).get("matchResources") or {}).get("namespaceSelector")
    if not selector or not request.get("namespace"):
        return True
    for expr in selector.get("matchExpressions", []):
        assert expr["key"] == "kubernetes.io/metadata.name", expr
        inside = request["namespace"] in expr["values"]
        if (expr["operator"] == "NotIn" and inside) or (expr["operator"] == "In" and not inside):
            return False
    return True


def admit(policy: dict[str, Any], request: dict[str, Any], binding: dict[str, Any] | None = None,
          runtime_name: str = "cel-python") -> list[str] | None:
    """None when ``policy`` (with ``binding``) does not apply to ``request``; else the messages of the failed
    validations (empty: admitted). ``request`` is AdmissionRequest-shaped: ``operation``, ``namespace``,
    ``resource`` ``{group, version, resource}``, ``userInfo``, ``object``, ``oldObject``."""
    spec = policy["spec"]
    if not _matches_rules(spec, request) or not _matches_binding(binding, request):
        return None
    cel = runtime(runtime_name)
    data: dict[str, Any] = {
        "object": request.get("object"),
        "oldObject": request.get("oldObject"),
        "request": {k: v for k, v in request.items() if k not in ("object", "oldObject")},
        "variables": {},
    }
    for condition in spec.get("matchConditions", []):
        if cel.eval(condition["expression"], data) is not True:
            return None
    variables: dict[str, Any] = {}
    for var in spec.get("variables", []):
        data["variables"] = dict(variables)
        variables[var["name"]] = cel.eval(var["expression"], data)
    data["variables"] = variables
    failed = []
    for check in spec["validations"]:
        if cel.eval(check["expression"], data) is not True:
            failed.append(str(cel.eval(check["messageExpression"], data)))
    return failed
