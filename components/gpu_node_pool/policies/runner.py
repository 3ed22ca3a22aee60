"""Run the pack in-process over recorded resources, the way ``pulumi preview --policy-pack`` does.

Used by ``gpupool plan`` and the tests. What matches a real preview:

* every resource policy sees each resource's inputs (camelCase) wrapped with
  ``unknown_checking_proxy``; values unknown at preview are the wire sentinel (the plan's
  :data:`gpu_node_pool.k8s.wellknown.UNKNOWN` marker is mapped to it), so reading one raises
  ``UnknownValueError``. (The runner builds these proxies lazily and once per resource, shared
  by every policy: :func:`gpu_node_pool.sdk.policy_props.policy_props` behaves as ``unknown_checking_proxy(to_policy_props(...))``
  without copying the whole stack once per policy; policies never write to props.)
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
import gc
import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
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
from pulumi_policy.proxy import UnknownValueError

from ..k8s.wellknown import UNKNOWN as _UNKNOWN
from ..sdk.policy_props import policy_props
from ..sdk.props import fixes_of
from ..sdk.record import Resource
from ..sdk.secrets import judged_inputs, mask, secret_texts
from .imperative import user_data_texts
from .pack_config import resolve_config
from .rules import JUDGES, POLICIES
from .workloads import judge_on_kube_version

#: The record the runner takes: the one record type (``plan`` records the same).
StackResource = Resource

__all__ = [
    "StackResource",
    "evaluate",
    "evaluate_policy_resources",
    "policy_resources",
    "secret_derived_texts",
]


def _run(result: Any) -> None:
    if result is not None and inspect.isawaitable(result):  # validators return None but may be async
        asyncio.run(_await(result))


async def _await(result: Any) -> None:
    await result


def _stack_resources(resources: list[Any], urns: list[str], props: list[Any],
                     opts: PolicyResourceOptions) -> list[PolicyResource]:
    """The ``PolicyResource`` of every resource, with parent and dependencies resolved to resources."""
    stack_resources = [
        PolicyResource(res.type, p, urn, res.name, opts, None, None, [], {})
        for res, urn, p in zip(resources, urns, props, strict=True)
    ]
    by_urn = {r.urn: r for r in stack_resources}
    for res, pres in zip(resources, stack_resources, strict=True):
        parent = getattr(res, "parent", "")
        pres.parent = by_urn.get(parent) if parent else None
        deps = getattr(res, "dependencies", None)
        if deps:
            pres.dependencies = [by_urn[d] for d in deps if d in by_urn]
        prop_deps = getattr(res, "property_dependencies", None)
        if prop_deps:
            pres.property_dependencies = {k: [by_urn[d] for d in v if d in by_urn] for k, v in prop_deps.items()}
    return stack_resources


def policy_resources(resources: Iterable[Any], *, stack: str = "stack", project: str = "project",
                     unknown_marker: str | None = None) -> list[PolicyResource]:
    """The ``PolicyResource`` list a stack policy would get for ``resources`` (as :func:`evaluate`
    takes them, secrets' plain values included), e.g. for :func:`gpu_node_pool.policies.pools.find_gpu_pools`
    outside a policy; a report built from them cuts the secrets' texts (:mod:`gpu_node_pool.sdk.secrets`)."""
    resources = list(resources)
    marker = _UNKNOWN if unknown_marker is None else unknown_marker
    opts = PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [])
    urns = [_urn(r, stack, project) for r in resources]
    return _stack_resources(resources, urns, [policy_props(judged_inputs(r), marker) for r in resources], opts)


def _urn(res: Any, stack: str, project: str) -> str:
    return getattr(res, "urn", "") or f"urn:pulumi:{stack}::{project}::{res.type}::{res.name}"


def _adopted(resources: Sequence[PolicyResource], urns: list[str], props: list[Any],
             opts: PolicyResourceOptions) -> list[PolicyResource]:
    """``resources`` themselves (their relations already resolved among them), given ``props``, ``urns`` and
    the options and provider the runner gives every resource: what :func:`_stack_resources` makes of records
    of them, without a second object per resource."""
    for res, urn, p in zip(resources, urns, props, strict=True):
        res.props, res.urn, res.opts, res.provider = p, urn, opts, None
    return list(resources)


def evaluate_policy_resources(resources: Sequence[PolicyResource], config: Mapping[str, Any] | None = None, *,
                              policies: Sequence[Any] = POLICIES, stack: str = "stack", project: str = "project",
                              unknown_marker: str | None = None) -> list[dict[str, str]]:
    """:func:`evaluate` over the ``PolicyResource`` list a stack policy got from pulumi_policy's analyzer
    (``resource_type``, ``name``, ``urn``, ``props``; ``parent``, ``dependencies`` and
    ``property_dependencies`` resolved to resources of the list): the same findings as :func:`evaluate`
    over records of them whose relations are those resources' URNs, without the round trip through URNs.

    The resources are the caller's to give away (the analyzer decodes them for one policy call): the stack
    policies judge them themselves, their ``props`` replaced by the runner's view of the same values and
    their ``opts`` and ``provider`` by the ones the runner gives every resource.

    Raises:
        PolicyConfigError: ``config`` is invalid.
    """
    resources = list(resources)
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _evaluate([r.resource_type for r in resources], [r.name for r in resources],
                         [getattr(r, "urn", "") or f"urn:pulumi:{stack}::{project}::{r.resource_type}::{r.name}"
                          for r in resources],
                         [r.props for r in resources],
                         lambda urns, props, opts: _adopted(resources, urns, props, opts),
                         config, policies, stack, project, unknown_marker)
    finally:
        judge_on_kube_version(None)  # the stack's declared version holds for its own evaluation only
        if collecting:
            gc.enable()


def evaluate(resources: Iterable[Any], config: Mapping[str, Any] | None = None, *,
             policies: Sequence[Any] = POLICIES, stack: str = "stack", project: str = "project",
             unknown_marker: str | None = None) -> list[dict[str, str]]:
    """Evaluate ``policies`` over a stack's ``resources``; returns the findings.

    Args:
        resources: objects with ``type``, ``name``, ``inputs`` and optionally ``urn``,
            ``parent``, ``dependencies``, ``property_dependencies`` (:class:`StackResource`,
            the plan's ``Recorded``), and ``secret_inputs``: then the rules judge those, the plain
            values of the program's secrets, and their texts are cut from every message
            (:mod:`gpu_node_pool.sdk.secrets`).
        config: a ``--policy-pack-config`` mapping (see :func:`resolve_config`).
        stack, project: used to synthesize URNs for resources that have none.
        unknown_marker: the string that stands for "unknown at preview" in ``inputs``
            (default: the plan's :data:`~gpu_node_pool.plan.UNKNOWN`).

    Returns:
        ``[{"policy", "enforcement", "resource", "urn", "message"}]`` in policy order; ``enforcement``
        is ``mandatory`` or ``advisory``; ``resource`` is ``"<type> <name>"`` or ``"stack"``;
        ``urn`` is that resource's URN, or the stack's (``urn:pulumi:<stack>::<project>::pulumi:pulumi:Stack::<project>-<stack>``,
        the root resource ``pulumi up`` creates) for a stack-level finding.

    Raises:
        PolicyConfigError: ``config`` is invalid.
    """
    # The policies make no reference cycles worth collecting, and a full collection walks every
    # input of the stack: on a 50k-resource stack the collector took more time than the policies.
    collecting = gc.isenabled()
    gc.disable()
    try:
        resources = list(resources)
        findings = _evaluate([r.type for r in resources], [r.name for r in resources],
                             [_urn(r, stack, project) for r in resources], [judged_inputs(r) for r in resources],
                             lambda urns, props, opts: _stack_resources(resources, urns, props, opts),
                             config, policies, stack, project, unknown_marker)
        _mask_secrets(findings, resources)
        return findings
    finally:
        judge_on_kube_version(None)  # the stack's declared version holds for its own evaluation only
        if collecting:
            gc.enable()


def _mask_secrets(findings: list[dict[str, str]], resources: list[Any]) -> None:
    """Cut every secret's texts from the findings (:mod:`gpu_node_pool.sdk.secrets`): the rules judged the plain
    values, and a finding about one resource may quote another's (a pool's secret taint in a DaemonSet's)."""
    texts = secret_texts(resources, secret_derived_texts)
    if texts:
        for finding in findings:
            finding["message"] = mask(finding["message"], texts)


def secret_derived_texts(text: str) -> list[str]:
    """What a rule may read inside a secret string and quote: the decoded user data and its MIME parts
    (``no-imperative-taints`` quotes their command lines)."""
    return [t for t in user_data_texts(text) if t]


def _evaluate(types: list[str], names: list[str], urns: list[str], inputs: list[Any],
              stack_of: Callable[[list[str], list[Any], PolicyResourceOptions], list[PolicyResource]],
              config: Mapping[str, Any] | None, policies: Sequence[Any], stack: str,
              project: str, unknown_marker: str | None) -> list[dict[str, str]]:
    """The findings of ``policies`` over the resources ``types``/``names``/``urns``/``inputs`` (one entry each);
    ``stack_of(urns, props, opts)`` gives the ``PolicyResource`` list of them the stack policies see."""
    settings = resolve_config(config, policies)
    display = {urn: f"{t} {name}" for urn, t, name in zip(urns, types, names, strict=True)}
    stack_urn = f"urn:pulumi:{stack}::{project}::pulumi:pulumi:Stack::{project}-{stack}"
    urn_of = {shown: urn for urn, shown in display.items()} | {"stack": stack_urn}
    # One lazily built proxy per resource, shared by every policy (the SDK builds one per policy
    # eagerly: the same values, read the same way; policies do not write to props).
    if unknown_marker is None:
        unknown_marker = _UNKNOWN
    props = [policy_props(value, unknown_marker) for value in inputs]
    opts = PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [])
    stack_resources: list[PolicyResource] | None = None
    by_type: dict[str, list[int]] | None = None  # type token -> positions, for the resource policies' types
    shared: dict[Any, Any] = {}
    findings: list[dict[str, str]] = []

    def reporter(policy: Any, level: EnforcementLevel, default_resource: str):
        name, enforcement = policy.name, level.value  # read once: a stack policy may report thousands of findings
        default_urn = urn_of.get(default_resource, stack_urn)

        def report(message: str, urn: str | None = None) -> None:
            known = bool(urn) and urn in display
            findings.append(
                {
                    "policy": name,
                    "enforcement": enforcement,
                    "resource": display[urn] if known else default_resource,
                    "urn": urn if known else default_urn,
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
                "urn": urn_of.get(resource, stack_urn),
                "message": f"can't run policy '{policy.name}' during preview: {err.message}",
                "fixes": fixes_of(err),  # what the plan's not-judged list shows; finish_plan takes it off
            }
        )

    for policy in policies:
        level, policy_config = settings[policy.name]
        if level == EnforcementLevel.DISABLED:
            continue
        if level == EnforcementLevel.REMEDIATE:
            level = EnforcementLevel.MANDATORY
        if isinstance(policy, ResourceValidationPolicy):
            # One reporter per policy, told which resource is being judged; resources of types the
            # policy does not read (rules.JUDGES) are skipped, decided once per type.
            current = ["", ""]  # the URN and the "<type> <name>" of the resource being judged

            def report(message: str, urn: str | None = None, _name: str = policy.name, _level: str = level.value,
                       _current: list[str] = current) -> None:
                known = bool(urn) and urn in display
                findings.append({"policy": _name, "enforcement": _level,
                                 "resource": display[urn] if known else _current[1],
                                 "urn": urn if known else _current[0],
                                 "message": message})

            judged, reads = JUDGES.get(policy.name, (None, None))
            if judged is not policy or reads is None:
                positions: Iterable[int] = range(len(types))
            else:  # only the resources of the types it reads, in stack order
                if by_type is None:
                    by_type = {}
                    for i, t in enumerate(types):
                        by_type.setdefault(t, []).append(i)
                positions = sorted(i for t, found in by_type.items() if reads(t) for i in found)
            for i in positions:
                urn, p = urns[i], props[i]
                args = ResourceValidationArgs(types[i], p, urn, names[i], opts, None, dict(policy_config))
                current[0], current[1] = urn, display[urn]
                try:
                    _run(policy.validate(args, report))
                except UnknownValueError as err:
                    cannot_run(policy, display[urn], err)
                except _NotApplicableError:
                    pass
        elif isinstance(policy, StackValidationPolicy):
            if stack_resources is None:  # built once; each stack policy gets its own list of them
                stack_resources = stack_of(urns, props, opts)
            args = StackValidationArgs(list(stack_resources), dict(policy_config))
            args.derived = shared  # what the stack policies derive from the stack, found once
            try:
                _run(policy.validate(args, reporter(policy, level, "stack")))
            except UnknownValueError as err:
                cannot_run(policy, "stack", err)
            except _NotApplicableError:
                pass
    return findings
