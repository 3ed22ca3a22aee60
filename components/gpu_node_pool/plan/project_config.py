"""The ``config:`` block of ``Pulumi.yaml``: the defaults and values a project gives every stack.

What the Pulumi CLI does before it runs a program (pulumi/pulumi ``sdk/go/common/workspace/project.go``
``RewriteShorthandConfigValues`` and ``config.go`` ``mergeConfig``;
https://www.pulumi.com/docs/iac/concepts/projects/project-file/#config-options), applied to a stack's
config offline:

* a key with no namespace, or the project's, is the project's (``instanceSize`` is ``<project>:instanceSize``);
* a short value (a string, number, boolean or list) is the *default* of a project key and the *value* of
  another namespace's key (``aws:region: us-west-2``); an object declares ``type``, ``description``,
  ``items``, ``default``, ``value`` and ``secret``;
* a key the stack file does not set takes the project's ``default`` (else its ``value``); a project key
  with neither that the stack file does not set stops the run ("Stack 'dev' is missing configuration
  value 'k'");
* a key declared ``secret: true`` must be a ``secure:`` value in the stack file.

Not done here: checking a stack value against the declared ``type`` (the program's own ``Config`` getters
still refuse a wrong one when they read it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..config import ConfigError, ConfigIssue
from ..text.terminal import shown

__all__ = ["ProjectKey", "apply_project_config", "project_keys"]

_SOURCE = "Pulumi.yaml"
_DECLARATION_KEYS = {"type", "description", "items", "default", "value", "secret"}
_NOTHING = object()


@dataclass(frozen=True)
class ProjectKey:
    """One key of ``Pulumi.yaml``'s ``config:``: ``key`` with its namespace, the ``given`` value (its
    default, else its value; :data:`None` with ``has_given`` False when it has neither), ``secret``."""

    key: str
    given: Any
    has_given: bool
    secret: bool
    project_namespace: bool


def project_keys(doc: Mapping[str, Any], project: str) -> list[ProjectKey]:
    """The keys of ``doc``'s (a ``Pulumi.yaml`` read) ``config:`` mapping, in file order; [] when it has none
    or it is the old spelling of ``stackConfigDir`` (a string).

    Raises:
        ConfigError: ``config:`` is neither a mapping nor a string, or a key's declaration is malformed
            (a key that is not a string, ``secret`` that is not a boolean), each issue at ``Pulumi.yaml: config.<key>``.
    """
    block = doc.get("config")
    if block is None or isinstance(block, str):
        return []
    if not isinstance(block, Mapping):
        raise ConfigError([ConfigIssue(f"{_SOURCE}: config", f"{shown(block)} must be a mapping of config keys to "
                                       "their values or declarations (or a directory, the old stackConfigDir)")], _SOURCE)
    keys, issues = [], []
    for name, declared in block.items():
        where = f"{_SOURCE}: config.{name}"
        if not isinstance(name, str) or not name:
            issues.append(ConfigIssue(f"{_SOURCE}: config", f"key {shown(name)} must be a config key such as "
                                      f"{project}:instanceSize or aws:region"))
            continue
        own = ":" not in name or name.split(":", 1)[0] == project
        full = name if ":" in name else f"{project}:{name}"
        if not isinstance(declared, Mapping):  # the short form
            keys.append(ProjectKey(full, declared, True, False, own))
            continue
        unknown = sorted(str(k) for k in declared if k not in _DECLARATION_KEYS)
        if unknown:
            issues.append(ConfigIssue(where, f"{', '.join(unknown)}: not a key of a config declaration; use "
                                      f"{', '.join(sorted(_DECLARATION_KEYS))}"))
            continue
        secret = declared.get("secret", False)
        if not isinstance(secret, bool):
            issues.append(ConfigIssue(f"{where}.secret", f"{shown(secret)} must be true or false"))
            continue
        given = declared.get("default", _NOTHING)
        if given is _NOTHING:
            given = declared.get("value", _NOTHING)
        keys.append(ProjectKey(full, None if given is _NOTHING else given, given is not _NOTHING, secret, own))
    if issues:
        raise ConfigError(issues, _SOURCE)
    return keys


def apply_project_config(config: dict[str, Any], secrets: list[str], doc: Mapping[str, Any], project: str,
                         stack: str) -> None:
    """Give ``config`` (a stack's runtime config, ``{"<ns>:<key>": "<text or JSON>"}``, its ``secure:`` keys in
    ``secrets``) what ``doc``'s ``config:`` block gives a key the stack file does not set, as ``pulumi preview``
    does.

    Raises:
        ConfigError: a project key with no default or value that the stack file does not set, or a key
            declared ``secret: true`` that the stack file sets in plain text (the messages the CLI gives), or
            a malformed ``config:`` block (:func:`project_keys`).
    """
    issues = []
    for key in project_keys(doc, project):
        if key.key in config:
            if key.secret and key.key not in secrets:
                issues.append(ConfigIssue(key.key, f"must be encrypted as it's secret (Pulumi.yaml declares it secret: "
                                          f"true); set it with `pulumi config set --secret {key.key} ...` in stack "
                                          f"{stack!r}"))
            continue
        if key.has_given:
            config[key.key] = key.given if isinstance(key.given, str) else json.dumps(key.given)
        elif key.project_namespace:
            issues.append(ConfigIssue(key.key, f"stack {stack!r} is missing this configuration value, which "
                                      f"Pulumi.yaml declares with no default; set it with `pulumi config set "
                                      f"{key.key} ...` or give it a default in Pulumi.yaml"))
    if issues:
        raise ConfigError(issues, f"stack {stack!r}")
