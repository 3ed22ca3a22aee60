"""The ``config:`` block of ``Pulumi.yaml``: the defaults and values a project gives every stack.

What the Pulumi CLI does before it runs a program (pulumi/pulumi ``sdk/go/common/workspace/project.go``
``RewriteShorthandConfigValues`` and ``config.go`` ``mergeConfig``;
https://www.pulumi.com/docs/iac/concepts/projects/project-file/#config-options), applied to a stack's
config offline:

* a key with no namespace, or the project's, is the project's (``instanceSize`` is ``<project>:instanceSize``);
* a short value (a string, integer, boolean or list) is the *default* of a project key and the *value* of
  another namespace's key (``aws:region: us-west-2``); an object declares ``type``, ``description``,
  ``items``, ``default``, ``value`` and ``secret``;
* a key the stack file does not set takes the project's ``default`` (else its ``value``); a project key
  with neither that the stack file does not set stops the run ("Stack 'dev' is missing configuration
  value 'k'");
* a *typed* key's stack value must be of its ``type``, and a ``secure:`` value when it is declared
  ``secret: true`` (also when the stack leaves it to its plain default).

A declaration is checked as the CLI checks it when it loads the project (``project.go`` ``Validate``: a
``default`` of its declared ``type``, ``items`` for an ``array``, no ``type`` or ``default`` on another
namespace's key).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..config import ConfigError, ConfigIssue
from ..k8s.integers import in_int64
from ..text.terminal import shown

__all__ = ["ProjectKey", "apply_project_config", "project_keys"]

_SOURCE = "Pulumi.yaml"
#: The sources the messages cite.
_MERGE = " (pulumi/pulumi sdk/go/common/workspace/config.go, mergeConfig)"
_SCHEMA = " (pulumi/pulumi sdk/go/common/workspace/project.json, config)"
_VALIDATE = " (pulumi/pulumi sdk/go/common/workspace/project.go, Validate)"
_DECLARATION_KEYS = {"type", "description", "items", "default", "value", "secret"}


@dataclass(frozen=True)
class ProjectKey:
    """One key of ``Pulumi.yaml``'s ``config:``: ``key`` with its namespace, the ``given`` value (its
    default, else its value; ``None`` with ``has_given`` False when it has neither), ``secret``, whether it is
    the project's (``project_namespace``), and its declared ``kind`` (``type``) and ``items``, None when untyped."""

    key: str
    given: Any
    has_given: bool
    secret: bool
    project_namespace: bool
    kind: str | None = None
    items: Any = None


def project_keys(doc: Mapping[str, Any], project: str) -> list[ProjectKey]:
    """The keys of ``doc``'s (a ``Pulumi.yaml`` read) ``config:`` mapping, in file order; [] when it has none
    or it is the old spelling of ``stackConfigDir`` (a string). A ``default`` or ``value`` of null counts as
    not given (pulumi/pulumi ``mergeConfig`` tests them against nil).

    Raises:
        ConfigError: what the Pulumi CLI refuses before it runs a program (``project.go`` ``Validate``), each
            issue at ``Pulumi.yaml: config.<key>``: ``config:`` neither a mapping nor a string, a key that is not a
            string, an unknown declaration key, ``secret`` not a boolean, both ``default`` and ``value``, an
            ``array`` without ``items``, a ``default`` not of its declared ``type``, another namespace's key with
            a ``type`` or ``default`` or without ``value``; and a value YAML reads as no JSON value (a date,
            ``!!binary``, a set), which Pulumi's config cannot hold.
    """
    block = doc.get("config")
    if block is None or isinstance(block, str):
        return []
    if not isinstance(block, Mapping):
        raise ConfigError([ConfigIssue(f"{_SOURCE}: config", f"{shown(block)} must be a mapping of config keys to "
                                       "their values or declarations (or a directory, the old stackConfigDir)")], _SOURCE)
    keys, issues = [], []
    # in the order mergeConfig takes them (sort.Strings): `foo` before `<project>:foo`, so the first one set wins
    for name, declared in sorted(block.items(), key=lambda item: str(item[0])):
        where = f"{_SOURCE}: config.{name}"
        if not isinstance(name, str) or not name:
            issues.append(ConfigIssue(f"{_SOURCE}: config", f"key {shown(name)} must be a config key such as "
                                      f"{project}:instanceSize or aws:region"))
            continue
        own = ":" not in name or name.startswith(f"{project}:")
        full = name if ":" in name else f"{project}:{name}"
        try:
            problem = _not_json(declared)
        except RecursionError:
            problem = "nests lists or mappings deeper than a config value can be read; flatten it"
        if problem:
            issues.append(ConfigIssue(where, problem + _SCHEMA))
            continue
        if not isinstance(declared, Mapping):  # the short form: a project key's default, another's value
            if isinstance(declared, float):  # project.json: a short value is a string, integer, boolean (or list)
                issues.append(ConfigIssue(where, f"{declared!r}: a short config value is a string, an integer, a "
                                          f"boolean or a list; quote it ('{declared!r}'){_SCHEMA}"))
                continue
            if declared is None and not own:
                issues.append(ConfigIssue(where, "is not the project's key and gives no value; write it as key: <value>"))
                continue
            keys.append(ProjectKey(full, declared, declared is not None, False, own))
            continue
        problem = _declaration_problem(name, declared, own)
        if problem:
            issues.append(ConfigIssue(where, problem + _VALIDATE))
            continue
        given = declared.get("default")
        if given is None:
            given = declared.get("value")
        keys.append(ProjectKey(full, given, given is not None, declared.get("secret", False), own,
                               declared.get("type"), declared.get("items")))
    if issues:
        raise ConfigError(issues, _SOURCE)
    return keys


def _declaration_problem(name: str, declared: Mapping[str, Any], own: bool) -> str | None:
    """Why the Pulumi CLI refuses the declaration of config key ``name`` (``own``: the project's), or None."""
    unknown = sorted(str(k) for k in declared if k not in _DECLARATION_KEYS)
    if unknown:
        return f"{', '.join(unknown)}: not a key of a config declaration; use {', '.join(sorted(_DECLARATION_KEYS))}"
    secret = declared.get("secret", False)
    if not isinstance(secret, bool):
        return f"secret: {shown(secret)} must be true or false"
    if "description" in declared and not isinstance(declared["description"], str):
        return f"description: {shown(declared['description'])} must be text"
    default, value, kind = declared.get("default"), declared.get("value"), declared.get("type")
    if default is not None and value is not None:
        return "cannot have both a 'default' and a 'value'; keep one (the Pulumi CLI refuses the project)"
    if not own:
        if kind is not None:
            return "is not the project's key and declares a type; only the project's keys have types: give it a 'value'"
        if default is not None:
            return "is not the project's key and gives a 'default'; did you mean 'value'?"
        if value is None:
            return "is not the project's key and gives no 'value'; write it as key: <value>"
        return None
    if kind is None:
        return None
    if kind not in _TYPES:
        return f"type: {shown(kind)} is no config type; use one of {', '.join(_TYPES)}"
    items = declared.get("items")
    problem = _items_problem(kind, items)
    if problem:
        return problem
    if default is not None and not _fits(kind, items, default):
        return f"default {shown(default)} is not of its declared type {_type_name(kind, items)}; fix one of them"
    return None


#: What Go's ``strconv.Atoi`` reads as an int (``ValidateConfigValue`` uses it): a sign, then ASCII digits.
_ATOI = re.compile(r"[+-]?[0-9]+")
#: The config types a declaration may name (pulumi/pulumi project.json ``simpleConfigType``).
_TYPES = ("string", "integer", "boolean", "array")


def _items_problem(kind: str, items: Any) -> str | None:
    if kind != "array":
        return None
    if not isinstance(items, Mapping) or items.get("type") not in _TYPES:
        return ("type array needs items: {type: string|integer|boolean|array} (the type of its elements), e.g. "
                "items: {type: string}")
    return _items_problem(items["type"], items.get("items"))


def _type_name(kind: str, items: Any) -> str:
    return f"array<{_type_name(items['type'], items.get('items'))}>" if kind == "array" else kind


def _fits(kind: str, items: Any, value: Any) -> bool:
    """Whether ``value`` is of config type ``kind`` as pulumi/pulumi ``ValidateConfigValue`` reads it: a string;
    an integer, a whole float or a string of digits; a boolean or "true"/"false"; a list of ``items``."""
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        if isinstance(value, bool):
            return False
        if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
            return True
        return isinstance(value, str) and _ATOI.fullmatch(value) is not None and in_int64(int(value))
    if kind == "boolean":
        return isinstance(value, bool) or value in ("true", "false")
    return isinstance(value, list) and all(_fits(items["type"], items.get("items"), v) for v in value)


def _stack_value(text: str) -> Any:
    """A stack's runtime config value as the CLI checks it against a type: an object or list is JSON
    (``config.Value.Object()``), anything else its text."""
    if text[:1] in "[{":
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def _not_json(value: Any) -> str | None:
    """Why ``value`` (as :func:`gpu_node_pool.config.pulumi_yaml.load_pulumi_yaml` read it) cannot be a Pulumi
    config value, or None."""
    from ..config.pulumi_scalars import PulumiTimestamp

    if isinstance(value, PulumiTimestamp):
        return value.problem()
    if isinstance(value, float) and not math.isfinite(value):
        return (f"{shown(value)} is a number JSON has no form for, so Pulumi cannot load the config (Go's "
                "encoding/json: unsupported value); write a finite number, or quote it if it is a string")
    if value is None or isinstance(value, str | bool | int | float):
        return None
    if isinstance(value, list):
        return next((p for v in value if (p := _not_json(v))), None)
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            return f"{shown(value)} has a key that is not a string; config objects have string keys"
        return next((p for v in value.values() if (p := _not_json(v))), None)
    return (f"{shown(value)} is read by YAML as a {type(value).__name__}, which a config value cannot hold; "
            "quote it to make it a string")


def apply_project_config(config: dict[str, Any], secrets: list[str], doc: Mapping[str, Any], project: str,
                         stack: str) -> set[str]:
    """Give ``config`` (a stack's runtime config, ``{"<ns>:<key>": "<text or JSON>"}``, its ``secure:`` keys in
    ``secrets``) what ``doc``'s ``config:`` block gives a key the stack file does not set, as ``pulumi preview``
    does; returns the keys it gave.

    Raises:
        ConfigError: a project key with no default or value that the stack file does not set, or a key
            declared ``secret: true`` that the stack file sets in plain text (the messages the CLI gives), or
            a ``config:`` block the CLI refuses (:func:`project_keys`).
    """
    issues, given = [], set()
    for key in project_keys(doc, project):
        if key.key in config:
            # typed keys only: config.go validateStackConfigValues checks IsExplicitlyTyped() declarations
            if key.kind is not None and key.secret and key.key not in secrets:
                issues.append(ConfigIssue(key.key, f"must be encrypted as it's secret (Pulumi.yaml declares it secret: "
                                          f"true); set it with `pulumi config set --secret {key.key} ...` in stack "
                                          f"{stack!r}{_MERGE}"))
            elif key.kind is not None and key.key not in secrets and not _fits(key.kind, key.items,
                                                                                _stack_value(config[key.key])):
                issues.append(ConfigIssue(key.key, f"{shown(config[key.key])} must be of type "
                                          f"{_type_name(key.kind, key.items)}, as Pulumi.yaml declares it; fix the "
                                          f"value in stack {stack!r}{_MERGE}"))
            continue
        if key.has_given:
            try:
                config[key.key] = key.given if isinstance(key.given, str) else json.dumps(key.given)
            except RecursionError:
                issues.append(ConfigIssue(f"{_SOURCE}: config.{key.key}", "nests lists or mappings deeper than a "
                                          f"config value can be written; flatten it{_SCHEMA}"))
                continue
            given.add(key.key)
            if key.kind is not None and key.secret:  # merged in plain text, then checked as a stack value
                issues.append(ConfigIssue(key.key, f"must be encrypted as it's secret, and stack {stack!r} leaves it to "
                                          "its Pulumi.yaml default, which is plain text; set it with `pulumi config "
                                          f"set --secret {key.key} ...`{_MERGE}"))
        elif key.project_namespace:
            issues.append(ConfigIssue(key.key, f"stack {stack!r} is missing this configuration value, which "
                                      f"Pulumi.yaml declares with no default; set it with `pulumi config set "
                                      f"{key.key} ...` or give it a default in Pulumi.yaml{_MERGE}"))
    if issues:
        raise ConfigError(issues, f"stack {stack!r}")
    return given
