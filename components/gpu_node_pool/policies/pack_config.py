"""The ``--policy-pack-config`` file a preview takes, read and checked as the Pulumi CLI reads it.

Format: ``{"all": "<level>" | {"enforcementLevel": "<level>"}, "<policy>": "<level>" | {"enforcementLevel": "<level>", <props>}}``
(pulumi/pulumi ``parsePolicyPackConfig`` reads every entry, ``all`` included, as a level or an object);
a policy's level beats ``all``; ``remediate`` counts as ``mandatory``; ``disabled`` skips it.
Each policy's properties are checked against its config schema (``jsonschema``), with no property
beyond the schema's. Source: https://www.pulumi.com/docs/iac/using-pulumi/crossguard/configuration/

:func:`resolve_config` is the one check of a config, whoever reads it: ``gpupool plan``/``check``
(``--policy-pack-config``), and both layouts of the pack in a preview through
:func:`check_engine_config`, which reads the entries the engine sends the pack's ``Configure``
(:mod:`gpu_node_pool.sdk.analyzer_config` says what the engine sends and checks: not an unknown
name, nor a property its schema does not list).

The per-level layout's two policies (:data:`LEVEL_POLICIES`) take a level too, as Pulumi Cloud's
policy groups set it: ``{"gpu-node-pools-mandatory": "disabled"}`` applies to the rules whose own
default level is mandatory (here: none of them runs), ``"advisory"`` makes them advisory. A level
on a rule id beats it, and it beats ``all`` (the precedence Pulumi gives a policy's level over
``all``). The per-rule layout has no such policies and refuses the names.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pulumi_policy import EnforcementLevel

from ..text.suggest import closest
from .rules import PACK_NAME, POLICIES
from .rules._shared import PATTERN_RULES

__all__ = [
    "LAYOUTS",
    "LEVEL_POLICIES",
    "PolicyConfigError",
    "PolicyPackConfig",
    "check_engine_config",
    "engine_config",
    "load_policy_pack_config",
    "refused",
    "resolve_config",
    "resolve_engine_config",
]

_LEVELS = {level.value: level for level in EnforcementLevel}

#: The pack's layouts (``gpupool policy-pack --layout``).
LAYOUTS = ("per-rule", "per-level")

#: The policies of the per-level layout (:mod:`gpu_node_pool.policies.level_pack`), by name: the default
#: level of the rules a level set on it applies to (module docstring).
LEVEL_POLICIES = {
    f"{PACK_NAME}-mandatory": EnforcementLevel.MANDATORY,
    f"{PACK_NAME}-advisory": EnforcementLevel.ADVISORY,
}


def _runs_at(level: EnforcementLevel) -> EnforcementLevel:
    return EnforcementLevel.MANDATORY if level == EnforcementLevel.REMEDIATE else level


class PolicyConfigError(ValueError):
    """The policy pack config is invalid; the message names the file (when read from one), the policy, the
    property, the rule and, for a misspelt name, the closest one."""


class PolicyPackConfig(dict):  # type: ignore[type-arg]
    """A ``--policy-pack-config`` read from a file: the JSON object, with ``source`` the path it was read from,
    which :func:`resolve_config` names in its errors."""

    def __init__(self, data: Mapping[str, Any], source: str) -> None:
        super().__init__(data)
        self.source = source


#: Where Pulumi says what a config entry may be; the CLI refuses any other (pulumi/pulumi
#: ``pkg/resource/plugin`` ``parsePolicyPackConfig``: a string level, or an object whose ``enforcementLevel`` is a
#: string; a number, ``null``, a list or a boolean is "not a valid enforcement level").
_SOURCE = "https://www.pulumi.com/docs/iac/using-pulumi/crossguard/configuration/"


def _shown_value(value: Any) -> str:
    """``value`` as the config file spells it: a string quoted, anything else as JSON (``["mandatory"]``, ``null``)."""
    if isinstance(value, str):
        return repr(value)
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _did_you_mean(given: Any, names: Sequence[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest of ``names`` to ``given`` (:func:`~gpu_node_pool.text.suggest.closest`),
    else ``""``."""
    close = closest(str(given), names)
    return f"; did you mean {close!r}?" if close else ""


def load_policy_pack_config(path: str | Path) -> PolicyPackConfig:
    """Read a ``--policy-pack-config`` JSON file: its object as a :class:`PolicyPackConfig` naming ``path``.

    Raises:
        PolicyConfigError: unreadable, not a regular file (a FIFO would block the read), not
            UTF-8 (JSON exchanged between systems must be UTF-8: RFC 8259 section 8.1,
            https://www.rfc-editor.org/rfc/rfc8259#section-8.1), not JSON, or not a JSON object.
    """
    from ..sdk.files import NotRegularFileError, read_input_text

    try:
        text, not_utf8 = read_input_text(path, option="--policy-pack-config", fix="give the path of a JSON file "
                                         "(as for pulumi preview --policy-pack-config)")
        data = json.loads(text)
    except NotRegularFileError as err:
        raise PolicyConfigError(str(err)) from None
    except json.JSONDecodeError as err:
        what = "is empty" if not err.doc.strip() else f"is not valid JSON at {path}:{err.lineno}:{err.colno} ({err.msg})"
        raise PolicyConfigError(f"policy pack config {path} {what}; write a JSON object keyed by policy name or 'all', "
                                'e.g. {"all": "advisory"} (as for pulumi preview --policy-pack-config)') from None
    except OSError as err:
        raise PolicyConfigError(f"policy pack config {path}: {err.strerror or err}; give the path of a readable JSON "
                                "file (as for pulumi preview --policy-pack-config)") from None
    except RecursionError:
        raise PolicyConfigError(f"policy pack config {path}: nests too deep to be a policy pack config; "
                                "give a JSON object keyed by policy name or 'all'") from None
    if not_utf8:
        raise PolicyConfigError(f"policy pack config: {not_utf8}; JSON must be UTF-8 (RFC 8259 section 8.1); "
                                "save the file as UTF-8")
    if not isinstance(data, dict):
        raise PolicyConfigError(f"policy pack config {path}: must be a JSON object keyed by policy name or 'all'")
    return PolicyPackConfig(data, str(path))


def resolve_config(config: Mapping[str, Any] | None, policies: Sequence[Any] = POLICIES, *,
                   layout: str | None = None) -> dict[str, tuple[EnforcementLevel, dict[str, Any]]]:
    """Per policy: ``(enforcement level, config properties with schema defaults applied)``.

    ``layout``: the pack the config is for, ``per-rule`` (the per-level policies' names are refused) or
    ``per-level``; None (``gpupool plan``, which judges a config for either) takes the per-level names.

    Raises:
        PolicyConfigError: an unknown policy name, an unknown level, or properties that break
            the policy's JSON schema (checked with ``jsonschema``), one line each under a first line naming
            the file (``config.source`` of a :class:`PolicyPackConfig`); a misspelt policy name, level,
            property or key inside one gets the closest one (:func:`~gpu_node_pool.text.suggest.closest`), and a
            property's line names its path (``<policy>.exemptions[0].namespce``), the value, the keys or form
            allowed there and the fix.
    """
    source = getattr(config, "source", None)
    config = dict(config or {})
    by_name = {p.name: p for p in policies}
    errors = []
    all_level = None
    if "all" in config:
        given = config["all"]
        if isinstance(given, Mapping) and set(given) == {"enforcementLevel"}:  # the CLI's parser takes this form too
            given = given["enforcementLevel"]
        all_level = _LEVELS.get(given) if isinstance(given, str) else None
        if all_level is None:
            errors.append(f"all: {_shown_value(config['all'])} is not an enforcement level ({', '.join(_LEVELS)}), nor "
                          f"{{\"enforcementLevel\": <level>}}{_did_you_mean(given, list(_LEVELS))}")
    groups: dict[EnforcementLevel, EnforcementLevel] = {}  # a rule's default level -> the level set on its level policy
    for key in config:
        if key == "all" or key in by_name:
            continue
        if key not in LEVEL_POLICIES:
            hint = _did_you_mean(key, [*by_name, "all", *([] if layout == "per-rule" else LEVEL_POLICIES)])
            errors.append(f"{key}: no such policy in pack {PACK_NAME}{hint}" if hint
                          else f"{key}: no such policy in pack {PACK_NAME} ({', '.join(by_name)})")
        elif layout == "per-rule":
            errors.append(f"{key}: a policy of the per-level layout (gpupool policy-pack --layout per-level); this "
                          "pack has one policy per rule: set the level on the rule ids (or all)")
        else:
            given = config[key]
            if isinstance(given, Mapping) and set(given) <= {"enforcementLevel"}:
                given = given.get("enforcementLevel")
            if isinstance(given, str) and given in _LEVELS:
                groups[LEVEL_POLICIES[key]] = _LEVELS[given]
            else:
                default = LEVEL_POLICIES[key].value
                errors.append(f"{key}: {_shown_value(config[key])} is not an enforcement level ({', '.join(_LEVELS)}) nor "
                              f"{{\"enforcementLevel\": <level>}}: it sets the level of the rules {default} by "
                              "default; give properties on the rule ids")
    out: dict[str, tuple[EnforcementLevel, dict[str, Any]]] = {}
    for name, policy in by_name.items():
        default = policy.enforcement_level or EnforcementLevel.ADVISORY
        level = groups.get(_runs_at(default), default if all_level is None else all_level)
        props: dict[str, Any] = {}
        entry = config.get(name)
        if isinstance(entry, str):
            if entry not in _LEVELS:
                errors.append(f"{name}: {entry!r} is not an enforcement level ({', '.join(_LEVELS)})"
                              f"{_did_you_mean(entry, list(_LEVELS))}")
            else:
                level = _LEVELS[entry]
        elif isinstance(entry, Mapping):
            props = {k: v for k, v in entry.items() if k != "enforcementLevel"}
            if "enforcementLevel" in entry:
                given = entry["enforcementLevel"]
                if not isinstance(given, str):
                    errors.append(f"{name}.enforcementLevel: {_shown_value(given)} is not an enforcement level: give "
                                  f"one of {', '.join(_LEVELS)} as a string, e.g. \"enforcementLevel\": \"mandatory\""
                                  f" ({_SOURCE})")
                elif given not in _LEVELS:
                    errors.append(f"{name}.enforcementLevel: {given!r} is not an enforcement level "
                                  f"({', '.join(_LEVELS)}){_did_you_mean(given, list(_LEVELS))}")
                else:
                    level = _LEVELS[given]
        elif name in config:
            errors.append(f"{name}: {_shown_value(entry)} is neither an enforcement level nor an object: give a "
                          f"level as a string (\"{name}\": \"mandatory\") or an object "
                          f"(\"{name}\": {{\"enforcementLevel\": \"mandatory\", ...}}) ({_SOURCE})")
        schema = policy.config_schema
        if schema is not None:
            full = {"type": "object", "properties": schema.properties, "additionalProperties": False}
            if schema.required:
                full["required"] = schema.required
            if props or schema.required:  # no property given and none required: nothing can break the schema
                import jsonschema

                errors += _schema_problems(name, schema, list(jsonschema.Draft7Validator(full).iter_errors(props)))
            for key, prop in schema.properties.items():
                if key not in props and "default" in prop:
                    props[key] = json.loads(json.dumps(prop["default"]))
        elif props:
            errors.append(f"{name}: takes no properties (got {', '.join(props)})")
        out[name] = (level, props)
    if errors:
        raise PolicyConfigError(f"invalid policy pack config{' ' + source if source else ''}:\n  " + "\n  ".join(errors))
    return out


def _path(name: str, path: Sequence[Any]) -> str:
    """``name`` and the keys and indexes below it as the product writes a path: ``p.exemptions[0].namespace``."""
    return name + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def _where(name: str, path: Sequence[Any]) -> str:
    """What holds the keys at ``path`` of policy ``name``'s properties, for a message: ``policy <name>`` at the top,
    ``an item of <property>`` in a list, else ``<property>``."""
    if not path:
        return f"policy {name}"
    return f"an item of {path[-2]}" if isinstance(path[-1], int) and len(path) > 1 else str(path[-1])


_TYPE_NOUNS = {"array": "a list", "object": "an object", "string": "a string", "boolean": "true or false",
               "integer": "a whole number", "number": "a number"}


def _schema_problems(name: str, schema: Any, found: Sequence[Any]) -> list[str]:
    """The lines for ``found``, the ``jsonschema`` errors of policy ``name``'s properties against its config
    ``schema``, worded as the misspelt policy names are: the path (``name.exemptions[0].namespce``), the value, the
    keys or form allowed there with the property's description, the closest key
    (:func:`~gpu_node_pool.text.suggest.closest`) and the fix. A key that is missing (``required``) is not said
    again when a misspelt key beside it is taken for it."""
    lines: list[str] = []
    taken: set[tuple[tuple[Any, ...], str]] = set()  # (path, required key) a misspelt key was taken for
    for err in found:
        if err.validator != "additionalProperties":
            continue
        at = tuple(err.absolute_path)
        known = list(err.schema.get("properties") or {})
        for key in sorted(k for k in err.instance if k not in known):
            value = err.instance[key]
            near = closest(str(key), known)
            head = (f"{_path(name, (*at, key))}: no such key of {_where(name, at)} (it takes {', '.join(known)})"
                    if at else f"{_path(name, (key,))}: no such property of policy {name} (it takes {', '.join(known)})")
            if near:
                taken.add((at, near))
                lines.append(f"{head}; did you mean {near!r}? write {json.dumps(near)}: {_json(value)}")
            else:
                lines.append(f"{head}; remove it, or set one of those")
    for err in found:
        at = tuple(err.absolute_path)
        top = schema.properties.get(at[0], {}) if at else {}
        about = f" ({top['description'].rstrip('.')})" if top.get("description") else ""
        if err.validator == "additionalProperties":
            continue
        if err.validator == "required":
            missing = next((str(k) for k in err.validator_value if k not in err.instance), "")
            if (at, missing) in taken:
                continue
            lines.append(f"{_path(name, at)}: {_json(err.instance)} has no {missing!r}, which {_where(name, at)} needs "
                         f"(it takes {', '.join(err.schema.get('properties') or {})}); add "
                         f"{json.dumps(missing)}: <{missing}>")
        elif err.validator == "type":
            kinds = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
            noun = " or ".join(_TYPE_NOUNS.get(k, k) for k in kinds)
            lines.append(f"{_path(name, at)}: {_json(err.instance)} is not {noun}{about}; give {noun}")
        elif err.validator == "pattern":
            rule = PATTERN_RULES.get(err.validator_value)
            lines.append(f"{_path(name, at)}: {_json(err.instance)} is not {rule}{about}; fix or remove it" if rule else
                         f"{_path(name, at)}: {_json(err.instance)} is not of the form the property takes{about}; "
                         "write it in that form")
        else:
            lines.append(f"{_path(name, at)}: {err.message}{about}")
    return lines


def _json(value: Any) -> str:
    """``value`` as the config file spells it (JSON), cut for a message (:func:`~gpu_node_pool.text.terminal.shown`)."""
    from ..text.terminal import shown

    try:
        return shown(json.dumps(value), quote=False)
    except (TypeError, ValueError):
        return shown(value)


def engine_config(entries: Mapping[str, tuple[str, Mapping[str, Any]]], layout: str) -> dict[str, Any]:
    """The ``--policy-pack-config`` that the entries the engine sends a pack's ``Configure`` stand for.

    ``entries``: every name the engine sent -> ``(level, properties)``, as
    :func:`gpu_node_pool.sdk.analyzer_config.install_configure_hook` gives them: the pack's own policies
    (their defaults, ``all``'s level, the user's entry) and every other entry of the user's config.
    Each becomes a ``--policy-pack-config`` entry; in the per-level layout a level policy's own entry
    only when its level is not the one the engine gives it anyway (its default, else ``all``'s), for
    only then did the user set it (and the same level would change nothing).
    """
    all_level = entries["all"][0] if "all" in entries else None
    config: dict[str, Any] = {}
    for name, (level, props) in entries.items():
        if (layout == "per-level" and name in LEVEL_POLICIES and not props
                and level == (all_level or LEVEL_POLICIES[name].value)):
            continue
        config[name] = {"enforcementLevel": level, **props} if props else level
    return config


def resolve_engine_config(entries: Mapping[str, tuple[str, Mapping[str, Any]]], layout: str,
                          policies: Sequence[Any] = POLICIES) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(config, resolved)``: :func:`engine_config` of ``entries`` and its :func:`resolve_config` for ``layout``.

    Raises:
        PolicyConfigError: as :func:`resolve_config`.
    """
    config = engine_config(entries, layout)
    return config, resolve_config(config, policies, layout=layout)


def check_engine_config(entries: Mapping[str, tuple[str, Mapping[str, Any]]], layout: str,
                        policies: Sequence[Any] = POLICIES) -> dict[str, str]:
    """The ``Configure`` hook of the per-rule pack (``install_configure_hook``): checks the entries as
    :func:`resolve_config` checks a ``--policy-pack-config``; sets no level (returns ``{}``).

    Raises:
        ValueError: the config is refused; the message names the pack, its layout and each mistake
            (what the preview shows).
    """
    try:
        resolve_engine_config(entries, layout, policies)
    except PolicyConfigError as err:
        raise refused(layout, err) from None
    return {}


def refused(layout: str, err: PolicyConfigError) -> ValueError:
    """The error a preview shows for a config ``layout``'s pack refuses in ``Configure``."""
    return ValueError(f"policy pack {PACK_NAME} ({layout} layout): {err}")
