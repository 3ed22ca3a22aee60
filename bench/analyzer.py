"""The pack on the path ``pulumi preview --policy-pack`` takes: pulumi_policy's own analyzer.

During a preview the engine starts the pack's Python process, which serves
``pulumi_policy.policy._PolicyAnalyzerServicer`` over gRPC. The engine sends one
``ConfigureAnalyzerRequest`` (each policy's enforcement level and config, its schema defaults
applied), then one ``AnalyzeRequest`` per resource (resource policies) and one
``AnalyzeStackRequest`` with every resource (stack policies). Here the same servicer is built
as ``PolicyPack`` builds it and its methods are called in-process with those protobuf messages:
no gRPC server, no CLI, no engine. The messages are built before the clock starts (the
engine's side); decoding them is the SDK's work and is timed.

``_PolicyAnalyzerServicer`` is private API: this module was written against pulumi-policy
:data:`PINNED` and refuses to run against another version (:func:`check_version`) rather than
time something else.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

import adapter

#: The pulumi-policy version whose private analyzer servicer this module calls.
PINNED = "1.21.0"
PACK_VERSION = "0.0.1"


def check_version() -> None:
    """Raises SystemExit naming both versions if the installed pulumi-policy is not :data:`PINNED`."""
    found = version("pulumi_policy")
    if found != PINNED:
        raise SystemExit(
            f"bench/analyzer.py calls pulumi_policy.policy._PolicyAnalyzerServicer (private API) as of "
            f"pulumi-policy {PINNED}; {found} is installed. Check Analyze/AnalyzeStack/Configure in "
            f"pulumi_policy/policy.py of {found} still take these messages, then update PINNED."
        )


def _struct(value: dict[str, Any]) -> Any:
    from google.protobuf import struct_pb2

    out = struct_pb2.Struct()
    out.update(value)
    return out


def requests(resources: list[Any], props: list[dict[str, Any]], stack: str, project: str) -> tuple[Any, list[Any], Any]:
    """``(ConfigureAnalyzerRequest, [AnalyzeRequest], AnalyzeStackRequest)`` for a stack.

    ``resources``: objects with ``type``, ``name``, ``urn``, ``parent``, ``dependencies``,
    ``property_dependencies``; ``props``: their inputs with unknowns as the wire sentinel.
    """
    from pulumi.runtime.proto import analyzer_pb2 as pb

    configure = pb.ConfigureAnalyzerRequest(policyConfig={
        name: pb.PolicyConfig(enforcementLevel=_LEVELS[level.value], properties=_struct(config))
        for name, (level, config) in adapter.resolved_config().items()
    })
    single, many = [], []
    for r, p in zip(resources, props, strict=True):
        urn = r.urn or f"urn:pulumi:{stack}::{project}::{r.type}::{r.name}"
        struct = _struct(p)
        options = pb.AnalyzerResourceOptions(parent=r.parent or "")
        single.append(pb.AnalyzeRequest(type=r.type, properties=struct, urn=urn, name=r.name, options=options))
        many.append(pb.AnalyzerResource(
            type=r.type, properties=struct, urn=urn, name=r.name, options=options, parent=r.parent or "",
            dependencies=list(r.dependencies),
            propertyDependencies={k: pb.AnalyzerPropertyDependencies(urns=v) for k, v in r.property_dependencies.items()},
        ))
    return configure, single, pb.AnalyzeStackRequest(resources=many)


_LEVELS = {"advisory": 0, "mandatory": 1, "disabled": 2, "remediate": 3}


def noop_policies() -> list[Any]:
    """Policies with the pack's names, kinds and levels that judge nothing: what the SDK's analyzer
    costs by itself (decoding each message once per policy, the proxies) with no policy work."""
    from pulumi_policy import ResourceValidationPolicy, StackValidationPolicy

    def nothing(args: Any, report: Any) -> None:
        return None

    return [
        (StackValidationPolicy if isinstance(p, StackValidationPolicy) else ResourceValidationPolicy)(
            p.name, p.description, nothing, p.enforcement_level)
        for p in adapter.policies()
    ]


def one_noop_stack_policy() -> list[Any]:
    """A pack of one stack policy that judges nothing: the SDK decodes every resource of the
    ``AnalyzeStackRequest`` once and the ``AnalyzeRequest`` s not at all (no resource policy), the
    least any pack that judges the stack pays on this path."""
    from pulumi_policy import EnforcementLevel, StackValidationPolicy

    def nothing(args: Any, report: Any) -> None:
        return None

    return [StackValidationPolicy("noop", "judges nothing", nothing, EnforcementLevel.ADVISORY)]


def two_noop_stack_policies() -> list[Any]:
    """Two stack policies that judge nothing: two decodings of the stack (what two stack policies cost
    on pulumi_policy's own analyzer; the per-level pack's hooked analyzer decodes once for both levels)."""
    from pulumi_policy import EnforcementLevel, StackValidationPolicy

    def nothing(args: Any, report: Any) -> None:
        return None

    return [StackValidationPolicy(f"noop-{i}", "judges nothing", nothing, EnforcementLevel.ADVISORY) for i in (1, 2)]


def level_pack(configure_levels: dict[str, str] | None = None) -> tuple[Any, Any]:
    """``(servicer, ConfigureAnalyzerRequest)`` of the shipped per-level pack (``--layout per-level``),
    built as its ``__main__`` builds it, and configured as the engine would: the two level
    policies with their levels (``all``'s, when given: the engine applies it to every policy of the pack)
    plus the user's entries ``configure_levels`` (rule id or ``all`` -> level)."""
    from pulumi.runtime.proto import analyzer_pb2 as pb

    servicer, names = adapter.level_pack_servicer(PACK_VERSION)
    every = (configure_levels or {}).get("all")
    config = {name: pb.PolicyConfig(enforcementLevel=_LEVELS[every or level]) for name, level in names.items()}
    for rule, level in (configure_levels or {}).items():
        config[rule] = pb.PolicyConfig(enforcementLevel=_LEVELS[level])
    request = pb.ConfigureAnalyzerRequest(policyConfig=config)
    servicer.Configure(request, None)
    return servicer, request


def servicer(configure: Any, policies: list[Any] | None = None) -> Any:
    """The analyzer ``PolicyPack(...)`` would serve for this pack (or for ``policies``), configured
    as the engine configures it."""
    from pulumi.runtime.proto import analyzer_pb2 as pb
    from pulumi_policy import EnforcementLevel
    from pulumi_policy.policy import _PolicyAnalyzerServicer

    assert (pb.ADVISORY, pb.MANDATORY, pb.DISABLED, pb.REMEDIATE) == tuple(_LEVELS.values())
    s = _PolicyAnalyzerServicer(adapter.pack_name(), PACK_VERSION, policies or adapter.policies(), EnforcementLevel.ADVISORY)
    s.Configure(configure, None)
    return s


def analyze(s: Any, single: list[Any], stack_request: Any) -> int:
    """One preview's worth of analysis: every resource, then the stack. Returns the diagnostics."""
    found = 0
    for request in single:
        found += len(s.Analyze(request, None).diagnostics)
    return found + len(s.AnalyzeStack(stack_request, None).diagnostics)
