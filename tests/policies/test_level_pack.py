"""The per-level layout of the pack: through pulumi_policy's own analyzer, each rule reports exactly
what the runner reports, at its configured level, with its id in every message.

The analyzer is driven in-process with the messages a preview sends (bench/analyzer.py builds
them): ``Configure`` with the level policies' defaults plus the user's entries by rule id, one
``Analyze`` per resource, one ``AnalyzeStack``.
"""

from __future__ import annotations

import collections
import sys

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import analyzer  # noqa: E402
from pulumi_policy import EnforcementLevel  # noqa: E402

import stacks  # noqa: E402
from gpu_node_pool.policies import PACK_NAME, POLICIES, PolicyConfigError, evaluate  # noqa: E402
from gpu_node_pool.policies.level_pack import LEVEL_POLICY_NAMES, LevelSettings, check_config, level_policies  # noqa: E402
from gpu_node_pool.sdk.analyzer_config import analyzer_servicer  # noqa: E402

PROJECT = "gpu-node-pools"
_LEVEL = {0: "advisory", 1: "mandatory", 2: "disabled", 3: "remediate"}


def _configure(user: dict) -> object:
    """The ``ConfigureAnalyzerRequest`` the engine sends: the pack's policies with their levels, then the user's entries."""
    from google.protobuf import struct_pb2
    from pulumi.runtime.proto import analyzer_pb2 as pb

    def entry(level: str, props: dict) -> object:
        s = struct_pb2.Struct()
        s.update(props)
        return pb.PolicyConfig(enforcementLevel={v: k for k, v in _LEVEL.items()}[level], properties=s)

    every = user.get("all")  # the engine applies all's level to every policy of the pack (applyConfig)
    config = {name: entry(every or level.value, {}) for level, name in LEVEL_POLICY_NAMES.items()}
    for name, value in user.items():
        if isinstance(value, str):
            config[name] = entry(value, {})
        else:
            config[name] = entry(value["enforcementLevel"], {k: v for k, v in value.items() if k != "enforcementLevel"})
    return pb.ConfigureAnalyzerRequest(policyConfig=config)


def _through_the_sdk(stack: list, user: dict) -> list[tuple[str, str, str, str]]:
    """``(rule, level, urn, message)`` of every diagnostic the per-level pack gives through the analyzer."""
    settings = LevelSettings()
    servicer = analyzer_servicer(lambda entries: check_config(settings, entries), PACK_NAME, "0.0.1",
                                 level_policies(settings))
    servicer.Configure(_configure(user), None)
    _, single, many = analyzer.requests(stack, [_props(r) for r in stack], "bench", PROJECT)
    assert not [d for r in single for d in servicer.Analyze(r, None).diagnostics]  # no resource policy
    out = []
    for d in servicer.AnalyzeStack(many, None).diagnostics:
        assert d.policyName in LEVEL_POLICY_NAMES.values()
        text = d.message.split("\n", 1)[1]  # after the level policy's description
        rule, _, message = text.partition("] ")
        assert rule.startswith("["), f"a message that names no rule: {d.message!r}"
        out.append((rule[1:], _LEVEL[d.enforcementLevel], d.urn, message))
    return out


def _props(resource):
    from gpu_node_pool.k8s.wellknown import UNKNOWN
    from gpu_node_pool.sdk.policy_props import to_policy_props

    return to_policy_props(resource.inputs, UNKNOWN)


def _by_runner(stack: list, config: dict) -> list[tuple[str, str, str, str]]:
    return [(f["policy"], f["enforcement"], "" if f["resource"] == "stack" else f["urn"], f["message"])
            for f in evaluate(stack, config, stack="bench", project=PROJECT)]


@pytest.fixture(scope="module")
def stack():
    return stacks.policy_stack(300, 40, 6)


@pytest.fixture(scope="module")
def default_levels(stack):
    return _by_runner(stack, {}), _through_the_sdk(stack, {})


@pytest.mark.parametrize("rule", [p.name for p in POLICIES])
def test_each_rule_reports_through_the_sdk_what_the_runner_reports(default_levels, rule):
    ours, sdk = default_levels
    assert sum(1 for f in ours if f[1] != "advisory") > 0 and sum(1 for f in ours if f[1] == "advisory") > 0
    assert collections.Counter(f for f in sdk if f[0] == rule) == collections.Counter(f for f in ours if f[0] == rule)


def test_levels_set_per_rule_move_rules_between_the_level_policies(stack):
    user = {"gpu-pool-declares-taint": "advisory", "gpu-workloads-select-gpu-nodes": "mandatory",
            "device-plugin-covers-gpu-pools": "disabled",
            "resources-judged": {"enforcementLevel": "mandatory", "strict": True}}
    ours, sdk = _by_runner(stack, user), _through_the_sdk(stack, user)
    assert collections.Counter(sdk) == collections.Counter(ours)
    assert not [f for f in sdk if f[0] == "device-plugin-covers-gpu-pools"]
    assert {f[1] for f in sdk if f[0] == "gpu-pool-declares-taint"} <= {"advisory"}


def test_a_level_no_rule_uses_is_disabled_so_the_stack_is_decoded_once():
    settings = LevelSettings()
    levels = check_config(settings, {"all": ("advisory", {})})
    assert levels == {LEVEL_POLICY_NAMES[level]: value for level, value in
                      ((k, "advisory" if k.value == "advisory" else "disabled") for k in LEVEL_POLICY_NAMES)}
    assert check_config(LevelSettings(), {}) == {name: level.value for level, name in LEVEL_POLICY_NAMES.items()}


def test_an_unknown_rule_id_or_property_fails_the_configuration_naming_it():
    settings = LevelSettings()
    with pytest.raises(ValueError, match="no-such-rule: no such policy"):
        check_config(settings, {"no-such-rule": ("mandatory", {})})
    with pytest.raises(PolicyConfigError, match="resources-judged.strict"):
        settings.configure({"resources-judged": ("advisory", {"strict": "yes"})})


def test_the_engines_config_error_reaches_the_preview_as_invalid_argument():
    settings = LevelSettings()
    servicer = analyzer_servicer(lambda entries: check_config(settings, entries), PACK_NAME, "0.0.1",
                                 level_policies(settings))

    class Context:
        def abort(self, code, details):
            raise RuntimeError(f"{code.name}: {details}")

    with pytest.raises(RuntimeError, match="(?s)INVALID_ARGUMENT: policy pack gpu-node-pools .*no-such-rule"):
        servicer.Configure(_configure({"no-such-rule": "mandatory"}), Context())


def test_cant_run_notes_stay_advisory_and_name_their_rules():
    """A node group whose taints are unknown at preview: the rules that read them cannot run. The
    advisory rules' notes come one by one; the mandatory rules' as one advisory note naming each."""
    from gpu_node_pool.k8s.wellknown import UNKNOWN
    from gpu_node_pool.sdk.record import Resource

    stack = [Resource("aws:eks/nodeGroup:NodeGroup", "gpu", {
        "taints": UNKNOWN, "instanceTypes": ["g6.xlarge"], "clusterName": "ml",
        "scalingConfig": {"minSize": 1, "maxSize": 2, "desiredSize": 1}})]
    notes = {f["policy"]: f["message"] for f in evaluate(stack, stack="bench", project=PROJECT)
             if f["message"].startswith("can't run")}
    levels = LevelSettings()
    mandatory = {r.name for r in levels.rules_at(levels.resolved["gpu-pool-declares-taint"][0])}
    assert set(notes) & mandatory and set(notes) - mandatory  # both kinds present

    settings = LevelSettings()
    servicer = analyzer_servicer(lambda entries: check_config(settings, entries), PACK_NAME, "0.0.1",
                                 level_policies(settings))
    servicer.Configure(_configure({}), None)
    _, _, many = analyzer.requests(stack, [_props(r) for r in stack], "bench", PROJECT)
    diagnostics = list(servicer.AnalyzeStack(many, None).diagnostics)
    assert {_LEVEL[d.enforcementLevel] for d in diagnostics} == {"advisory"}
    combined = [d.message for d in diagnostics if d.policyName == LEVEL_POLICY_NAMES[EnforcementLevel.MANDATORY]]
    assert len(combined) == 1
    for rule in set(notes) & mandatory:
        assert f"[{rule}] {notes[rule]}" in combined[0]
    singles = {d.message.split("\n", 1)[1] for d in diagnostics if d.policyName != LEVEL_POLICY_NAMES[EnforcementLevel.MANDATORY]}
    assert singles == {f"[{rule}] {notes[rule]}" for rule in set(notes) - mandatory}


@pytest.fixture(scope="module")
def all_mandatory(stack):
    return _by_runner(stack, {"all": "mandatory"}), _through_the_sdk(stack, {"all": "mandatory"})


@pytest.mark.parametrize("rule", [p.name for p in POLICIES])
def test_with_every_rule_mandatory_each_rule_reports_through_the_sdk_what_the_runner_reports(all_mandatory, rule):
    """One level in use (the bench's one-level row): one level policy runs every rule."""
    ours, sdk = all_mandatory
    assert {f[1] for f in ours if not f[3].startswith("can't run")} == {"mandatory"}
    assert collections.Counter(f for f in sdk if f[0] == rule) == collections.Counter(f for f in ours if f[0] == rule)


def _servicer(settings: LevelSettings, user: dict):
    servicer = analyzer_servicer(lambda entries: check_config(settings, entries), PACK_NAME, "0.0.1",
                                 level_policies(settings))
    servicer.Configure(_configure(user), None)
    return servicer


def _diagnostics(response) -> list[tuple[str, str, str, str]]:
    out = []
    for d in response.diagnostics:
        rule, _, message = d.message.split("\n", 1)[1].partition("] ")
        out.append((rule[1:], _LEVEL[d.enforcementLevel], d.urn, message))
    return out


def test_each_stack_a_process_analyses_is_judged_afresh_never_from_the_previous_call(stack):
    """The level policies share one judgment per AnalyzeStack call: a second, different stack in the same
    process (as `pulumi up` sends preview then update, or two stacks in turn) gets its own findings, and
    the first stack again gets the first's."""
    from gpu_node_pool.sdk.record import Resource

    other = [Resource("kubernetes:apps/v1:DaemonSet", "logs", {
        "metadata": {"name": "logs", "namespace": "ops"},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "fluent-bit"}]}}}}), *stack[:40]]
    servicer = _servicer(LevelSettings(), {})
    stacks_ = {"first": stack, "other": other}
    requests = {name: analyzer.requests(s, [_props(r) for r in s], "bench", PROJECT)[2] for name, s in stacks_.items()}
    for name in ("first", "other", "first"):
        got = _diagnostics(servicer.AnalyzeStack(requests[name], None))
        assert collections.Counter(got) == collections.Counter(_by_runner(stacks_[name], {})), name
    assert collections.Counter(_by_runner(other, {})) != collections.Counter(_by_runner(stack, {}))  # they differ


def test_both_level_policies_take_their_findings_from_one_judgment_of_the_stack(stack, monkeypatch):
    """Two levels in use: the rules run once per AnalyzeStack call (every rule in use), not once per level policy."""
    from gpu_node_pool.policies import level_pack

    calls = []
    real = level_pack.evaluate_policy_resources

    def counting(resources, config=None, **kw):
        calls.append(sorted(p.name for p in kw["policies"]))
        return real(resources, config, **kw)

    monkeypatch.setattr(level_pack, "evaluate_policy_resources", counting)
    settings = LevelSettings()
    servicer = _servicer(settings, {})
    assert settings.rules_at(EnforcementLevel.MANDATORY) and settings.rules_at(EnforcementLevel.ADVISORY)
    many = analyzer.requests(stack, [_props(r) for r in stack], "bench", PROJECT)[2]
    for _ in range(2):
        servicer.AnalyzeStack(many, None)
    in_use = sorted(p.name for p in POLICIES if settings.resolved[p.name][0] != EnforcementLevel.DISABLED)
    assert calls == [in_use, in_use]


def test_outside_a_marked_call_each_level_policy_runs_its_own_rules_with_the_same_findings(stack):
    """The plain path: pulumi_policy's own analyzer class (no hook, so no call marker) serving the level
    policies; each judges its level's rules and the findings are still the runner's."""
    from pulumi_policy.policy import _PolicyAnalyzerServicer

    from gpu_node_pool.sdk.analyzer_config import current_stack_call

    settings = LevelSettings()
    check_config(settings, {})
    base = getattr(_PolicyAnalyzerServicer, "_gpupool_base", _PolicyAnalyzerServicer)
    servicer = base(PACK_NAME, "0.0.1", level_policies(settings), EnforcementLevel.ADVISORY)
    servicer.Configure(_configure({}), None)
    many = analyzer.requests(stack, [_props(r) for r in stack], "bench", PROJECT)[2]
    assert current_stack_call() is None
    assert collections.Counter(_diagnostics(servicer.AnalyzeStack(many, None))) == collections.Counter(_by_runner(stack, {}))
    assert settings.judged is None  # nothing kept: no call to keep it for


def test_the_call_marker_is_new_per_call_and_gone_after_it():
    from gpu_node_pool.sdk import analyzer_config

    seen = []
    from pulumi_policy import StackValidationPolicy

    def look(args, report):
        seen.append(analyzer_config.current_stack_call())

    servicer = analyzer_servicer(lambda entries: {}, PACK_NAME, "0.0.1",
                                 [StackValidationPolicy("look", "looks", look, EnforcementLevel.ADVISORY)])
    servicer.Configure(_configure({}), None)
    many = analyzer.requests([], [], "bench", PROJECT)[2]
    servicer.AnalyzeStack(many, None)
    servicer.AnalyzeStack(many, None)
    assert len(seen) == 2 and None not in seen and seen[0] is not seen[1]
    assert analyzer_config.current_stack_call() is None


def _count_decodings(monkeypatch) -> list[int]:
    """Counts the resources the analyzer decodes (``deserialize_properties`` of each resource's properties)."""
    from pulumi_policy import policy as sdk_policy

    count = [0]
    real = sdk_policy.deserialize_properties

    def counting(props, *args, **kwargs):
        count[0] += 1
        return real(props, *args, **kwargs)

    monkeypatch.setattr(sdk_policy, "deserialize_properties", counting)
    return count


def test_with_both_levels_in_use_the_analyzer_decodes_the_stack_once_and_reports_both_levels(stack, monkeypatch):
    settings = LevelSettings()
    servicer = _servicer(settings, {})
    assert settings.rules_at(EnforcementLevel.MANDATORY) and settings.rules_at(EnforcementLevel.ADVISORY)
    many = analyzer.requests(stack, [_props(r) for r in stack], "bench", PROJECT)[2]
    decoded = _count_decodings(monkeypatch)
    response = servicer.AnalyzeStack(many, None)
    assert decoded[0] == len(stack)  # once, not once per level policy
    got = _diagnostics(response)
    assert collections.Counter(got) == collections.Counter(_by_runner(stack, {}))
    by_policy = {d.policyName for d in response.diagnostics}
    assert by_policy == set(LEVEL_POLICY_NAMES.values())
    names = [d.policyName for d in response.diagnostics]  # the analyzer's order: mandatory's, then advisory's
    assert names == sorted(names, key=lambda n: n != LEVEL_POLICY_NAMES[EnforcementLevel.MANDATORY])


def test_when_the_analyzers_private_methods_change_it_warns_and_decodes_per_level_with_the_same_findings(
        stack, monkeypatch):
    """The one-decoding path calls two private methods of pulumi_policy's analyzer; a different signature
    (a new pulumi-policy) means: say so loudly and fall back to one decoding per level policy."""
    from pulumi_policy import policy as sdk_policy

    base = getattr(sdk_policy._PolicyAnalyzerServicer, "_gpupool_base", sdk_policy._PolicyAnalyzerServicer)

    class Changed(base):
        def _create_report_violation(self, response, name, description, level, severity=None):  # renamed parameters
            return super()._create_report_violation(response, name, description, level, severity)

    monkeypatch.setattr(sdk_policy, "_PolicyAnalyzerServicer", Changed)
    settings = LevelSettings()
    with pytest.warns(RuntimeWarning, match="_create_report_violation .*decode the stack"):
        servicer = _servicer(settings, {})
    many = analyzer.requests(stack, [_props(r) for r in stack], "bench", PROJECT)[2]
    decoded = _count_decodings(monkeypatch)
    got = _diagnostics(servicer.AnalyzeStack(many, None))
    assert decoded[0] == 2 * len(stack)
    assert collections.Counter(got) == collections.Counter(_by_runner(stack, {}))


def test_when_the_sdks_proxies_change_it_warns_and_reads_them_as_mappings_with_the_same_findings(stack, monkeypatch):
    """The level policies read the containers under the analyzer's proxies (``proxy["__target"]``, private);
    if pulumi_policy.proxy no longer has them so, a warning, and the proxies are read value by value."""
    import types

    from gpu_node_pool.sdk import policy_props

    changed = types.SimpleNamespace(_proxy_helper=lambda value, path: value, _DictProxy=dict, _ListProxy=list)
    with pytest.warns(RuntimeWarning, match="_DictProxy/_ListProxy are not as in pulumi-policy 1.21"):
        kinds = policy_props._sdk_proxy_kinds(changed)
    assert kinds == (policy_props._NoSuchProxy, policy_props._NoSuchProxy)
    monkeypatch.setattr(policy_props, "_SDK_DICT", kinds[0])
    monkeypatch.setattr(policy_props, "_SDK_LIST", kinds[1])
    assert collections.Counter(_through_the_sdk(stack, {})) == collections.Counter(_by_runner(stack, {}))


def test_a_level_policy_left_in_use_without_rules_still_judges_for_the_one_after_it(stack):
    """Should the engine keep the mandatory policy in use although no rule is mandatory (its level not
    set to disabled), the advisory policy, reported after the analyzer's pass, still gets its findings."""
    settings = LevelSettings()
    servicer = analyzer_servicer(lambda entries: (check_config(settings, entries), {})[1], PACK_NAME, "0.0.1",
                                 level_policies(settings))
    servicer.Configure(_configure({"all": "advisory"}), None)
    assert not settings.rules_at(EnforcementLevel.MANDATORY)
    many = analyzer.requests(stack, [_props(r) for r in stack], "bench", PROJECT)[2]
    got = _diagnostics(servicer.AnalyzeStack(many, None))
    assert got and collections.Counter(got) == collections.Counter(_by_runner(stack, {"all": "advisory"}))


def test_the_collector_is_on_again_after_a_marked_call_that_judged_the_stack(stack):
    """The pack keeps the garbage collector off from its judgment until the analyzer returns; not after."""
    import gc

    servicer = _servicer(LevelSettings(), {})
    many = analyzer.requests(stack, [_props(r) for r in stack], "bench", PROJECT)[2]
    assert gc.isenabled()
    assert servicer.AnalyzeStack(many, None).diagnostics
    assert gc.isenabled()
    gc.disable()
    try:  # off when the call began: left off
        servicer.AnalyzeStack(many, None)
        assert not gc.isenabled()
    finally:
        gc.enable()
