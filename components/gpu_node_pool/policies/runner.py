"""Run the pack in-process over recorded resources, the way ``pulumi preview --policy-pack`` does.

Used by ``gpupool plan`` and the tests. What matches a real preview:

* every resource policy sees each resource's inputs (camelCase) wrapped with
  ``unknown_checking_proxy``; values unknown at preview are the wire sentinel (the plan's
  :data:`gpu_node_pool.plan.UNKNOWN` marker is mapped to it), so reading one raises
  ``UnknownValueError``;
* every stack policy sees all resources (inputs stand for outputs at preview), with
  ``parent``, ``dependencies`` and ``property_dependencies`` resolved to resources;
* a policy that raises ``UnknownValueError`` yields an *advisory* "can't run policy ...
  during preview" finding (as the SDK's analyzer does); ``args.not_applicable()`` yields
  nothing;
* the policy pack config has the ``--policy-pack-config`` JSON format:
  ``{"all": "<level>", "<policy>": "<level>" | {"enforcementLevel": "<level>", <props>}}``;
  a policy's level beats ``all``; ``remediate`` counts as ``mandatory``; ``disabled`` skips it.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.policy import _NotApplicableError
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError, unknown_checking_proxy

from .definitions import PACK_NAME, POLICIES

__all__ = [
    "StackResource",
    "PolicyConfigError",
    "load_policy_pack_config",
    "resolve_config",
    "to_policy_props",
    "evaluate",
]

_LEVELS = {level.value: level for level in EnforcementLevel}


@dataclass
class StackResource:
    """A resource of a stack as the runner takes it (``gpu_node_pool.plan.Recorded`` has the same fields).

    Attributes:
        type: Pulumi type token, e.g. ``kubernetes:apps/v1:DaemonSet``.
        name: Pulumi resource name.
        inputs: camelCase inputs; unknowns as the plan's marker or the SDK sentinel.
        urn, parent: URNs (empty: synthesized from type and name / no parent).
        dependencies: URNs this resource depends on; ``property_dependencies`` per input key.
    """

    type: str
    name: str
    inputs: dict[str, Any]
    custom: bool = True
    urn: str = ""
    parent: str = ""
    dependencies: list[str] = field(default_factory=list)
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)


class PolicyConfigError(ValueError):
    """The policy pack config is invalid; the message names the policy, the property and the rule."""


def load_policy_pack_config(path: str | Path) -> dict[str, Any]:
    """Read a ``--policy-pack-config`` JSON file.

    Raises:
        PolicyConfigError: unreadable, not JSON, or not a JSON object.
    """
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise PolicyConfigError(f"policy pack config {path}: {err}") from None
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
    import jsonschema

    config = dict(config or {})
    by_name = {p.name: p for p in policies}
    errors = []
    all_level = None
    if "all" in config:
        all_level = _LEVELS.get(config["all"]) if isinstance(config["all"], str) else None
        if all_level is None:
            errors.append(f"all: {config['all']!r} is not an enforcement level ({', '.join(_LEVELS)})")
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


def to_policy_props(value: Any, unknown_marker: str | None = None) -> Any:
    """A plain copy of ``value`` with the plan's unknown marker replaced by the SDK's unknown sentinel.

    At preview the engine sends every unknown as one string sentinel
    (``pulumi.runtime.rpc.UNKNOWN`` == ``pulumi_policy.proxy.UNKNOWN_STRING_VALUE``).
    """
    if unknown_marker is None:
        from ..plan import UNKNOWN as unknown_marker
    if isinstance(value, Mapping):
        return {k: to_policy_props(v, unknown_marker) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_policy_props(v, unknown_marker) for v in value]
    if isinstance(value, str) and value == unknown_marker:
        return UNKNOWN_STRING_VALUE
    return value


def _run(result: Any) -> None:
    if inspect.isawaitable(result):
        asyncio.run(_await(result))


async def _await(result: Any) -> None:
    await result


def _urn(res: Any, stack: str, project: str) -> str:
    return getattr(res, "urn", "") or f"urn:pulumi:{stack}::{project}::{res.type}::{res.name}"


def evaluate(resources: Iterable[Any], config: Mapping[str, Any] | None = None, *,
             policies: Sequence[Any] = POLICIES, stack: str = "stack", project: str = "project",
             unknown_marker: str | None = None) -> list[dict[str, str]]:
    """Evaluate ``policies`` over a stack's ``resources``; returns the findings.

    Args:
        resources: objects with ``type``, ``name``, ``inputs`` and optionally ``urn``,
            ``parent``, ``dependencies``, ``property_dependencies`` (:class:`StackResource`,
            the plan's ``Recorded``).
        config: a ``--policy-pack-config`` mapping (see :func:`resolve_config`).
        stack, project: used to synthesize URNs for resources that have none.
        unknown_marker: the string that stands for "unknown at preview" in ``inputs``
            (default: the plan's :data:`~gpu_node_pool.plan.UNKNOWN`).

    Returns:
        ``[{"policy", "enforcement", "resource", "message"}]`` in policy order; ``enforcement``
        is ``mandatory`` or ``advisory``; ``resource`` is ``"<type> <name>"`` or ``"stack"``.

    Raises:
        PolicyConfigError: ``config`` is invalid.
    """
    settings = resolve_config(config, policies)
    resources = list(resources)
    urns = [_urn(r, stack, project) for r in resources]
    display = {urn: f"{r.type} {r.name}" for urn, r in zip(urns, resources, strict=True)}
    props = [to_policy_props(r.inputs, unknown_marker) for r in resources]
    opts = PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [])
    findings: list[dict[str, str]] = []

    def reporter(policy: Any, level: EnforcementLevel, default_resource: str):
        def report(message: str, urn: str | None = None) -> None:
            findings.append(
                {
                    "policy": policy.name,
                    "enforcement": level.value,
                    "resource": display.get(urn or "", default_resource) if urn else default_resource,
                    "message": message,
                }
            )

        return report

    def cannot_run(policy: Any, resource: str, err: UnknownValueError) -> None:
        findings.append(
            {
                "policy": policy.name,
                "enforcement": EnforcementLevel.ADVISORY.value,
                "resource": resource,
                "message": f"can't run policy '{policy.name}' during preview: {err.message}",
            }
        )

    for policy in policies:
        level, policy_config = settings[policy.name]
        if level == EnforcementLevel.DISABLED:
            continue
        if level == EnforcementLevel.REMEDIATE:
            level = EnforcementLevel.MANDATORY
        if isinstance(policy, ResourceValidationPolicy):
            for res, urn, p in zip(resources, urns, props, strict=True):
                args = ResourceValidationArgs(
                    res.type, unknown_checking_proxy(p), urn, res.name, opts, None, dict(policy_config)
                )
                try:
                    _run(policy.validate(args, reporter(policy, level, display[urn])))
                except UnknownValueError as err:
                    cannot_run(policy, display[urn], err)
                except _NotApplicableError:
                    pass
        elif isinstance(policy, StackValidationPolicy):
            stack_resources = [
                PolicyResource(res.type, unknown_checking_proxy(p), urn, res.name, opts, None, None, [], {})
                for res, urn, p in zip(resources, urns, props, strict=True)
            ]
            by_urn = {r.urn: r for r in stack_resources}
            for res, pres in zip(resources, stack_resources, strict=True):
                pres.parent = by_urn.get(getattr(res, "parent", "") or "")
                pres.dependencies = [by_urn[d] for d in getattr(res, "dependencies", None) or [] if d in by_urn]
                pres.property_dependencies = {
                    k: [by_urn[d] for d in v if d in by_urn]
                    for k, v in (getattr(res, "property_dependencies", None) or {}).items()
                }
            args = StackValidationArgs(stack_resources, dict(policy_config))
            try:
                _run(policy.validate(args, reporter(policy, level, "stack")))
            except UnknownValueError as err:
                cannot_run(policy, "stack", err)
            except _NotApplicableError:
                pass
    return findings
