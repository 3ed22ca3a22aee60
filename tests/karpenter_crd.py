"""Karpenter's own CRDs as a validator for tests: the schema with jsonschema, the CEL rules with cel-python.

The CRD files are loaded as they are (``tests/data/karpenter-crds/``, byte-for-byte copies
of aws/karpenter-provider-aws v1.14.1 ``pkg/apis/crds``); no rule is copied by hand.

* ``openAPIV3Schema`` is checked with ``jsonschema`` (Draft 7 covers the OpenAPI v3 subset a
  structural schema uses). Unknown fields are errors, as with ``kubectl apply``'s default
  strict field validation (the API server would otherwise prune them silently): every object
  schema that lists ``properties`` and neither ``additionalProperties`` nor
  ``x-kubernetes-preserve-unknown-fields`` is closed.
* Every ``x-kubernetes-validations`` rule is evaluated with cel-python on the value at its
  schema node, as the API server does on create: a rule passes only when it returns true
  (an evaluation error fails it, as in Kubernetes), and transition rules (those that use
  ``oldSelf``) are skipped because they run only on update.
* Kubernetes CEL extension functions the rules use are registered with Kubernetes
  semantics (``k8s.io/apiserver/pkg/cel/library`` and cel-go ``ext/strings``): ``find``,
  ``findAll`` and ``split``. RE2 and Python ``re`` agree on the patterns these rules use.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import celpy
import jsonschema
import yaml
from celpy import celtypes

CRD_DIR = Path(__file__).resolve().parent / "data" / "karpenter-crds"
CRD_FILES = ("karpenter.sh_nodepools.yaml", "karpenter.k8s.aws_ec2nodeclasses.yaml", "karpenter.sh_nodeoverlays.yaml")


# --- Kubernetes CEL extensions --------------------------------------------------------


def _find(text: celtypes.StringType, pattern: celtypes.StringType) -> celtypes.StringType:
    """``<string>.find(<regex>)``: the first match, or ``""`` when none (Kubernetes regex library)."""
    match = re.search(str(pattern), str(text))
    return celtypes.StringType(match.group(0) if match else "")


def _find_all(text: celtypes.StringType, pattern: celtypes.StringType, limit: Any = None) -> celtypes.ListType:
    """``<string>.findAll(<regex>[, <limit>])``: all matches; a negative limit means all."""
    found = [m.group(0) for m in re.finditer(str(pattern), str(text))]
    if limit is not None and int(limit) >= 0:
        found = found[: int(limit)]
    return celtypes.ListType([celtypes.StringType(s) for s in found])


def _split(text: celtypes.StringType, sep: celtypes.StringType, limit: Any = None) -> celtypes.ListType:
    """``<string>.split(<sep>[, <limit>])`` (cel-go ext/strings): limit 0 gives [], a negative
    limit all parts, N at most N parts; an empty separator splits into characters."""
    s, sep_s = str(text), str(sep)
    n = -1 if limit is None else int(limit)
    if n == 0:
        parts: list[str] = []
    elif sep_s == "":
        chars = list(s)
        parts = chars if n < 0 or n >= len(chars) else chars[: n - 1] + ["".join(chars[n - 1:])]
    else:
        parts = s.split(sep_s) if n < 0 else s.split(sep_s, n - 1)
    return celtypes.ListType([celtypes.StringType(p) for p in parts])


#: The Kubernetes CEL extension functions registered with cel-python.
K8S_EXTENSIONS: dict[str, Callable[..., Any]] = {"find": _find, "findAll": _find_all, "split": _split}
#: Functions and macros of standard CEL that cel-python implements.
STANDARD_CEL = frozenset(
    {"has", "all", "exists", "exists_one", "map", "filter", "size", "matches", "startsWith", "endsWith",
     "contains", "int", "uint", "double", "string", "bool", "bytes", "type", "duration", "timestamp", "dyn"}
)
_ENV = celpy.Environment()


@cache
def _program(rule: str) -> Any:
    return _ENV.program(_ENV.compile(rule), functions=K8S_EXTENSIONS)


def rule_holds(rule: str, value: Any) -> bool:
    """True when the CEL ``rule`` evaluates to true with ``self`` bound to ``value`` (errors are false)."""
    try:
        result = _program(rule).evaluate({"self": celpy.json_to_cel(value)})
    except Exception:  # noqa: BLE001 - a CEL evaluation error fails the rule, as in Kubernetes
        return False
    return isinstance(result, celtypes.BoolType) and bool(result)


# --- the CRD ---------------------------------------------------------------------------


def _closed(schema: Any) -> Any:
    if isinstance(schema, dict):
        out = {k: _closed(v) for k, v in schema.items()}
        if (
            "properties" in out
            and "additionalProperties" not in out
            and not out.get("x-kubernetes-preserve-unknown-fields")
        ):
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [_closed(v) for v in schema]
    return schema


class Crd:
    """One CustomResourceDefinition file: its served storage version's schema and rules."""

    def __init__(self, path: Path) -> None:
        doc = yaml.safe_load(path.read_text())
        self.path = path
        self.group = doc["spec"]["group"]
        self.kind = doc["spec"]["names"]["kind"]
        version = next(v for v in doc["spec"]["versions"] if v.get("storage"))
        self.api_version = f"{self.group}/{version['name']}"
        self.schema = version["schema"]["openAPIV3Schema"]
        self._validator = jsonschema.Draft7Validator(_closed(copy.deepcopy(self.schema)))

    def schema_errors(self, obj: Any) -> list[str]:
        """``path: message`` for every openAPIV3Schema violation (unknown fields included)."""
        errors = sorted(self._validator.iter_errors(obj), key=lambda e: list(map(str, e.absolute_path)))
        return [f"{'.'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in errors]

    def cel_errors(self, obj: Any) -> list[str]:
        """``path: message`` for every x-kubernetes-validations rule that does not hold."""
        out: list[str] = []
        _walk(self.schema, obj, "", out)
        return out

    def errors(self, obj: Any) -> list[str]:
        """Schema errors, then CEL errors."""
        return self.schema_errors(obj) + self.cel_errors(obj)

    def rules(self) -> list[str]:
        """Every CEL rule in the schema."""
        found: list[str] = []

        def visit(node: Any) -> None:
            if isinstance(node, dict):
                found.extend(v["rule"] for v in node.get("x-kubernetes-validations", []))
                for value in node.values():
                    visit(value)
            elif isinstance(node, list):
                for value in node:
                    visit(value)

        visit(self.schema)
        return found


def _walk(schema: dict[str, Any], value: Any, path: str, out: list[str]) -> None:
    for validation in schema.get("x-kubernetes-validations", []):
        rule = validation["rule"]
        if "oldSelf" in rule:
            continue  # a transition rule: evaluated on update only
        if not rule_holds(rule, value):
            out.append(f"{path or '<root>'}: {validation.get('message', rule)}")
    if isinstance(value, dict):
        props = schema.get("properties")
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if props and key in props:
                _walk(props[key], item, f"{path}.{key}" if path else key, out)
            elif isinstance(extra, dict):
                _walk(extra, item, f"{path}[{key}]", out)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            _walk(schema["items"], item, f"{path}[{i}]", out)


@cache
def load_crds(directory: Path = CRD_DIR) -> dict[str, Crd]:
    """The CRDs in ``directory`` by kind (``NodePool``, ``EC2NodeClass``, ``NodeOverlay``)."""
    crds = [Crd(directory / name) for name in CRD_FILES]
    return {crd.kind: crd for crd in crds}


def crd_errors(obj: dict[str, Any], directory: Path = CRD_DIR) -> list[str]:
    """Everything Karpenter's CRD (schema, then CEL) refuses in the object ``obj``.

    Raises:
        KeyError: ``obj`` is not a NodePool, EC2NodeClass or NodeOverlay.
    """
    crd = load_crds(directory)[obj["kind"]]
    assert obj.get("apiVersion") == crd.api_version, (obj.get("apiVersion"), crd.api_version)
    return crd.errors(obj)
