"""The pack as one stack policy per enforcement level: the same rules, ids, levels and findings.

pulumi_policy's analyzer decodes every resource once per resource policy and the whole stack
once per stack policy (``_PolicyAnalyzerServicer.Analyze`` / ``AnalyzeStack``); with the 16 rules
as 16 policies that decoding is most of a preview's policy time (BENCHMARKS.md). This layout
declares two stack policies, ``gpu-node-pools-mandatory`` and ``gpu-node-pools-advisory``; each
reports the rules configured at its level, judged by :func:`gpu_node_pool.policies.runner.evaluate_policy_resources` over
the stack the analyzer decoded. A level no rule uses is disabled. Served by the hooked analyzer
(:mod:`gpu_node_pool.sdk.analyzer_config`), one ``AnalyzeStack`` call judges every rule in use once
(the first level policy called does it) and decodes the stack once: the advisory policy reports
from that judgment after the analyzer's pass. Served by pulumi_policy's own analyzer class, each
level policy judges its own rules over its own decoding (the same findings).

Configuration stays per rule: ``--policy-pack-config`` names rules by id
(``{"all": ..., "<rule>": "<level>" | {"enforcementLevel": ..., <props>}}``, checked as
:func:`gpu_node_pool.policies.resolve_config` checks it). The engine forwards entries of names
that are no policy of the pack; :mod:`gpu_node_pool.sdk.analyzer_config` reads them. A level set on
a level policy itself (what Pulumi Cloud's policy group shows: these two policies) applies to the
rules whose default level is that policy's: ``{"gpu-node-pools-mandatory": "disabled"}`` runs none
of them, ``"advisory"`` reports them under ``gpu-node-pools-advisory``; a rule id's level beats it
(:mod:`gpu_node_pool.policies.pack_config`). Every message
starts with ``[<rule id>]``; a finding on a resource carries that resource's URN, a finding on
the stack none (as the per-rule pack reports them). What differs from the per-rule layout
(README, Policy pack): Pulumi lists two policies, not one per rule; a rule's "can't run during
preview" notes are advisory in both, but under ``gpu-node-pools-mandatory`` they come as one
note naming each rule; and a rule entry must give its ``enforcementLevel`` (the engine knows no
default for a name that is not one of the pack's policies).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Mapping, Sequence
from typing import Any

from pulumi_policy import EnforcementLevel, StackValidationPolicy
from pulumi_policy.proxy import UnknownValueError

from ..sdk.analyzer_config import SHARED_JUDGMENT, current_stack_call
from .pack_config import LEVEL_POLICIES, PolicyConfigError, refused, resolve_config, resolve_engine_config
from .rules import PACK_NAME, POLICIES
from .runner import evaluate_policy_resources

__all__ = ["LEVEL_POLICY_NAMES", "LevelSettings", "level_policies"]

#: The pack's policies in this layout, by the level whose rules each runs.
LEVEL_POLICY_NAMES = {level: name for name, level in LEVEL_POLICIES.items()}


class LevelSettings:
    """Each rule's level and config, as the last ``Configure`` gave them (the rules' defaults before).

    Attributes:
        rules: the rules, in pack order.
        resolved: rule id -> ``(level, properties)``; ``remediate`` is kept as given and runs as mandatory.
        config: the ``--policy-pack-config`` the engine's entries stand for
            (:func:`gpu_node_pool.policies.pack_config.engine_config`).
        rule_config: rule id -> its entry with its resolved level, ``all``'s and the level policies' applied:
            what the runner gets.
        judged: ``(call, findings by level)`` of the last ``AnalyzeStack`` call that judged the stack
            (the call's token, :func:`gpu_node_pool.sdk.analyzer_config.current_stack_call`), or None.
    """

    def __init__(self, rules: Sequence[Any] = POLICIES) -> None:
        self.rules = list(rules)
        self.config: dict[str, Any] = {}
        self.resolved = resolve_config(None, self.rules)
        self.rule_config: dict[str, Any] = {}
        self.judged: tuple[object, dict[EnforcementLevel, list[dict[str, str]]]] | None = None

    def configure(self, entries: Mapping[str, tuple[str, Mapping[str, Any]]]) -> dict[str, str]:
        """Take the engine's config (every name it sent -> ``(level, properties)``); returns the level
        of each level policy: its own while some rule runs at it, else ``disabled``.

        The rules are configured by id; a level policy's own entry counts only when its level is not
        the one the engine sends anyway (:func:`gpu_node_pool.policies.pack_config.engine_config`), and
        then sets the level of the rules whose default level is its own.

        Raises:
            PolicyConfigError: an unknown rule id, level or property (the message lists each).
        """
        config, self.resolved = resolve_engine_config(entries, "per-level", self.rules)
        self.config = config
        self.rule_config = {}
        for rule in self.rules:
            level, entry = self.resolved[rule.name][0].value, config.get(rule.name)
            self.rule_config[rule.name] = {**entry, "enforcementLevel": level} if isinstance(entry, Mapping) else level
        self.judged = None
        used = {_runs_at(level) for level, _ in self.resolved.values()} - {EnforcementLevel.DISABLED}
        return {name: (level.value if level in used else EnforcementLevel.DISABLED.value)
                for level, name in LEVEL_POLICY_NAMES.items()}

    def rules_at(self, level: EnforcementLevel) -> list[Any]:
        """The rules that run at ``level`` (mandatory includes remediate), in pack order."""
        return [rule for rule in self.rules if _runs_at(self.resolved[rule.name][0]) == level]


def _runs_at(level: EnforcementLevel) -> EnforcementLevel:
    return EnforcementLevel.MANDATORY if level == EnforcementLevel.REMEDIATE else level


class _CannotRunNotes(UnknownValueError):
    """The "can't run during preview" notes of the mandatory rules, one advisory diagnostic for all."""

    def __init__(self, notes: Sequence[str]) -> None:
        Exception.__init__(self)
        self.unknown_type_sentinel, self.props = "", []
        self.message = "; ".join(notes)


def _judge(settings: LevelSettings, rules: Sequence[Any], resources: Sequence[Any]) -> list[dict[str, str]]:
    """The runner's findings of ``rules`` over the stack a level policy got, with the rules' configured levels."""
    stack, project = os.environ.get("PULUMI_STACK", "stack"), os.environ.get("PULUMI_PROJECT", "project")
    config = {rule.name: settings.rule_config[rule.name] for rule in rules if rule.name in settings.rule_config}
    if current_stack_call() is not None:
        # the runner's objects live until the analyzer lets go of the stack: the collector stays off until
        # then, and the marked call turns it back on (the runner alone would turn it on while they live)
        gc.disable()
    return evaluate_policy_resources(resources, config, policies=rules, stack=stack, project=project)


def _findings_at(settings: LevelSettings, level: EnforcementLevel, resources: Sequence[Any]) -> list[dict[str, str]]:
    """The findings of the rules at ``level``: during one ``AnalyzeStack`` call every rule in use is
    judged once, by the first level policy the analyzer calls, and the others take their part (the
    analyzer decodes the same request for each; the rules need one pass). Outside a marked call
    (:func:`gpu_node_pool.sdk.analyzer_config.current_stack_call` None) only ``level``'s rules run."""
    call = current_stack_call()
    if call is None:
        return _judge(settings, settings.rules_at(level), resources)
    kept = settings.judged
    if kept is None or kept[0] is not call:
        runs_at = {rule.name: _runs_at(settings.resolved[rule.name][0]) for rule in settings.rules}
        in_use = [rule for rule in settings.rules if runs_at[rule.name] != EnforcementLevel.DISABLED]
        split: dict[EnforcementLevel, list[dict[str, str]]] = {}
        for finding in _judge(settings, in_use, resources):
            split.setdefault(runs_at[finding["policy"]], []).append(finding)
        kept = settings.judged = (call, split)
    return kept[1].get(level, [])


def _report(level: EnforcementLevel, findings: Sequence[dict[str, str]], report: Any) -> None:
    """Report the findings of ``level``'s rules as its level policy: ``[<rule>] <message>``, on the resource's URN."""
    notes = []
    own, advisory = level.value, level == EnforcementLevel.ADVISORY
    for finding in findings:
        message = f"[{finding['policy']}] {finding['message']}"
        if finding["enforcement"] != own:  # a rule's "can't run during preview" note
            if advisory:
                report(message, None if finding["resource"] == "stack" else finding["urn"])
            else:
                notes.append(message)
            continue
        report(message, None if finding["resource"] == "stack" else finding["urn"])
    if notes:
        raise _CannotRunNotes(notes)


def _validator(settings: LevelSettings, level: EnforcementLevel):
    def validate(args: Any, report: Any) -> None:
        if not settings.rules_at(level):
            if current_stack_call() is not None:  # called first in a marked call: judge for the level policies after it
                _findings_at(settings, level, args.resources)
            return
        _report(level, _findings_at(settings, level, args.resources), report)

    return validate


def _from_call(settings: LevelSettings, level: EnforcementLevel):
    """The advisory policy's :data:`~gpu_node_pool.sdk.analyzer_config.SHARED_JUDGMENT`: its findings from the
    judgment the mandatory policy made in this ``AnalyzeStack`` call (the analyzer then decodes the stack once)."""

    def report_from_call(report: Any) -> None:
        if not settings.rules_at(level):
            return
        kept, call = settings.judged, current_stack_call()
        if call is None or kept is None or kept[0] is not call:
            raise RuntimeError(
                f"policy pack {PACK_NAME} (per-level layout): {LEVEL_POLICY_NAMES[level]} was asked for the findings "
                "of a stack no level policy judged in this AnalyzeStack call; write the pack with "
                "`gpupool policy-pack --layout per-rule` and report this"
            )
        _report(level, kept[1].get(level, []), report)

    return report_from_call


def level_policies(settings: LevelSettings) -> list[Any]:
    """The pack's policies in this layout: one stack policy per level, each running ``settings``' rules of its level.

    The advisory one carries :data:`~gpu_node_pool.sdk.analyzer_config.SHARED_JUDGMENT`: served by the hooked
    analyzer with both levels in use, it reports from the mandatory policy's judgment of the same call and
    the stack is decoded once (:mod:`gpu_node_pool.sdk.analyzer_config`).
    """
    described = {
        EnforcementLevel.MANDATORY: "The gpu-node-pools rules configured mandatory (each message names its rule).",
        EnforcementLevel.ADVISORY: "The gpu-node-pools rules configured advisory (each message names its rule).",
    }
    policies = []
    for level, name in LEVEL_POLICY_NAMES.items():
        policy = StackValidationPolicy(name, described[level], _validator(settings, level), level)
        if level == EnforcementLevel.ADVISORY:
            setattr(policy, SHARED_JUDGMENT, _from_call(settings, level))
        policies.append(policy)
    return policies


def check_config(settings: LevelSettings, entries: Mapping[str, tuple[str, Mapping[str, Any]]]) -> dict[str, str]:
    """:meth:`LevelSettings.configure`, its error as ``ValueError`` with the pack's name (what the preview shows)."""
    try:
        return settings.configure(entries)
    except PolicyConfigError as err:
        raise refused("per-level", err) from None
