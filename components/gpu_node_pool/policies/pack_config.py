"""The ``--policy-pack-config`` file a preview takes, read and checked as the Pulumi CLI reads it.

Format: ``{"all": "<level>" | {"enforcementLevel": "<level>"}, "<policy>": "<level>" | {"enforcementLevel": "<level>", <props>}}``
(pulumi/pulumi ``parsePolicyPackConfig`` reads every entry, ``all`` included, as a level or an object);
a policy's level beats ``all``; ``remediate`` counts as ``mandatory``; ``disabled`` skips it.
Each policy's properties are checked against its config schema (``jsonschema``).
Source: https://www.pulumi.com/docs/iac/using-pulumi/crossguard/configuration/
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pulumi_policy import EnforcementLevel

from .rules import PACK_NAME, POLICIES

__all__ = ["PolicyConfigError", "load_policy_pack_config", "resolve_config"]

_LEVELS = {level.value: level for level in EnforcementLevel}




class PolicyConfigError(ValueError):
    """The policy pack config is invalid; the message names the policy, the property and the rule."""


def load_policy_pack_config(path: str | Path) -> dict[str, Any]:
    """Read a ``--policy-pack-config`` JSON file.

    Raises:
        PolicyConfigError: unreadable, not a regular file (a FIFO would block the read), not
            UTF-8 (JSON exchanged between systems must be UTF-8: RFC 8259 section 8.1,
            https://www.rfc-editor.org/rfc/rfc8259#section-8.1), not JSON, or not a JSON object.
    """
    from ..sdk.files import NotRegularFileError, read_input_text

    try:
        text, not_utf8 = read_input_text(path)
        data = json.loads(text)
    except NotRegularFileError as err:
        raise PolicyConfigError(f"policy pack config {path} {err.strerror}; give the path of a JSON file") from None
    except json.JSONDecodeError as err:
        raise PolicyConfigError(f"policy pack config {path}: {err}") from None
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
    return data


def resolve_config(config: Mapping[str, Any] | None,
                   policies: Sequence[Any] = POLICIES) -> dict[str, tuple[EnforcementLevel, dict[str, Any]]]:
    """Per policy: ``(enforcement level, config properties with schema defaults applied)``.

    Raises:
        PolicyConfigError: an unknown policy name, an unknown level, or properties that break
            the policy's JSON schema (checked with ``jsonschema``).
    """
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
            errors.append(f"all: {config['all']!r} is not an enforcement level ({', '.join(_LEVELS)}), nor "
                          "{\"enforcementLevel\": <level>}")
    for key in config:
        if key != "all" and key not in by_name:
            errors.append(f"{key}: no such policy in pack {PACK_NAME} ({', '.join(by_name)})")
    out: dict[str, tuple[EnforcementLevel, dict[str, Any]]] = {}
    for name, policy in by_name.items():
        level = policy.enforcement_level or EnforcementLevel.ADVISORY
        if all_level is not None:
            level = all_level
        props: dict[str, Any] = {}
        entry = config.get(name)
        if isinstance(entry, str):
            if entry not in _LEVELS:
                errors.append(f"{name}: {entry!r} is not an enforcement level ({', '.join(_LEVELS)})")
            else:
                level = _LEVELS[entry]
        elif isinstance(entry, Mapping):
            props = {k: v for k, v in entry.items() if k != "enforcementLevel"}
            if "enforcementLevel" in entry:
                if entry["enforcementLevel"] not in _LEVELS:
                    errors.append(f"{name}.enforcementLevel: {entry['enforcementLevel']!r} is not an enforcement level")
                else:
                    level = _LEVELS[entry["enforcementLevel"]]
        elif entry is not None:
            errors.append(f"{name}: must be an enforcement level or an object")
        schema = policy.config_schema
        if schema is not None:
            full = {"type": "object", "properties": schema.properties, "additionalProperties": False}
            if schema.required:
                full["required"] = schema.required
            if props or schema.required:  # no property given and none required: nothing can break the schema
                import jsonschema

                for err in jsonschema.Draft7Validator(full).iter_errors(props):
                    where = ".".join(str(p) for p in err.absolute_path)
                    errors.append(f"{name}{'.' + where if where else ''}: {err.message}")
            for key, prop in schema.properties.items():
                if key not in props and "default" in prop:
                    props[key] = json.loads(json.dumps(prop["default"]))
        elif props:
            errors.append(f"{name}: takes no properties (got {', '.join(props)})")
        out[name] = (level, props)
    if errors:
        raise PolicyConfigError("invalid policy pack config:\n  " + "\n  ".join(errors))
    return out
