"""The pack as ``gpupool policy-pack`` writes it, configured as a preview configures it.

Each layout's written ``__main__.py`` is run as the language host runs it, up to the analyzer it would
serve (the gRPC server is not started); that analyzer gets the ``ConfigureAnalyzerRequest`` the engine
sends: the pack's policies with their levels and schema defaults (from the analyzer's own
``GetAnalyzerInfo``), then every entry of the user's config on top, names that are no policy of the pack
included (``createConfigWithDefaults``/``applyConfig`` in pulumi/pulumi ``pkg/resource/analyzer/config.go``).
A config the pack refuses fails the preview with gRPC ``INVALID_ARGUMENT`` and the pack's message.
"""

from __future__ import annotations

import collections
import gc
import runpy
import sys

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import analyzer  # noqa: E402
from pulumi_policy import EnforcementLevel  # noqa: E402

import stacks  # noqa: E402
from gpu_node_pool import __version__  # noqa: E402
from gpu_node_pool.cli import commands as cli  # noqa: E402
from gpu_node_pool.policies import POLICIES, PolicyConfigError, evaluate, resolve_config  # noqa: E402
from gpu_node_pool.policies.level_pack import LEVEL_POLICY_NAMES  # noqa: E402
from gpu_node_pool.sdk import analyzer_config  # noqa: E402

PROJECT = "gpu-node-pools"
_LEVEL = {0: "advisory", 1: "mandatory", 2: "disabled", 3: "remediate"}
MANDATORY_POLICY = LEVEL_POLICY_NAMES[EnforcementLevel.MANDATORY]
ADVISORY_POLICY = LEVEL_POLICY_NAMES[EnforcementLevel.ADVISORY]


class PreviewFails(Exception):
    """What the engine gets when the pack aborts ``Configure``: the preview stops with this."""


class _Context:
    def abort(self, code, details):
        raise PreviewFails(f"{code.name}: {details}")


@pytest.fixture
def served(tmp_path, monkeypatch, capsys):
    """``served(layout)``: the analyzer the pack that ``gpupool policy-pack --layout <layout>`` writes would serve."""
    from pulumi_policy import policy as sdk_policy

    from gpu_node_pool.sdk import process

    monkeypatch.setattr(sdk_policy, "_PolicyAnalyzerServicer", sdk_policy._PolicyAnalyzerServicer)  # restored after
    monkeypatch.setattr(process, "_owned", process._owned)
    monkeypatch.setattr(sdk_policy.grpc, "server", lambda *args, **kwargs: None)
    thresholds = gc.get_threshold()

    class Served(Exception):
        pass

    def capture(servicer, server):
        raise Served(servicer)

    monkeypatch.setattr(sdk_policy.analyzer_pb2_grpc, "add_AnalyzerServicer_to_server", capture)

    def serve(layout: str):
        out = tmp_path / layout
        assert cli.main(["policy-pack", "--out", str(out), "--layout", layout]) == 0
        capsys.readouterr()
        try:
            runpy.run_path(str(out / "__main__.py"), run_name="__main__")
        except Served as served_:
            return served_.args[0]
        finally:
            gc.set_threshold(*thresholds)
        raise AssertionError("the pack's __main__ built no analyzer")

    return serve


def configure(servicer, user: dict):
    """Send ``servicer`` the engine's ``Configure`` for the user's config ``user``; returns the request."""
    from google.protobuf import json_format, struct_pb2
    from pulumi.runtime.proto import analyzer_pb2 as pb

    levels = {name: number for number, name in _LEVEL.items()}
    info = servicer.GetAnalyzerInfo(None, None)
    result = {}
    for policy in info.policies:  # createConfigWithDefaults
        schema = json_format.MessageToDict(policy.configSchema.properties)
        result[policy.name] = (_LEVEL[policy.enforcementLevel],
                               {k: v["default"] for k, v in schema.items() if "default" in v})
    given = {}
    for name, value in user.items():  # parsePolicyPackConfig
        if isinstance(value, str):
            given[name] = (value, {})
        else:
            given[name] = (value.get("enforcementLevel", ""), {k: v for k, v in value.items() if k != "enforcementLevel"})
    if given.get("all", ("",))[0]:  # applyConfig: all, then each entry
        result = {name: (given["all"][0], props) for name, (_, props) in result.items()}
    for name, (level, props) in given.items():
        old_level, old_props = result.get(name, ("", {}))
        result[name] = (level or old_level, {**old_props, **props})
    config = {}
    for name, (level, props) in result.items():
        assert level, f"the engine refuses {name!r} itself: no enforcement level"
        struct = struct_pb2.Struct()
        struct.update(props)
        config[name] = pb.PolicyConfig(enforcementLevel=levels[level], properties=struct)
    request = pb.ConfigureAnalyzerRequest(policyConfig=config)
    servicer.Configure(request, _Context())
    return request


def _plan_error(config: dict) -> str:
    with pytest.raises(PolicyConfigError) as err:
        resolve_config(config)
    return str(err.value)


# --- the per-rule pack (the default layout) --------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "line"),
    [
        ({"gpu-workloads-select-gpu-node": "mandatory"}, "gpu-workloads-select-gpu-node: no such policy in pack gpu-node-pools"),
        ({"gpu-toleration-allowlist": {"enforcementLevel": "mandatory", "allowedNamespace": ["ml"]}},
         "gpu-toleration-allowlist.allowedNamespace: no such property of policy gpu-toleration-allowlist"),
        ({"no-imperative-taints": {"enforcementLevel": "mandatory", "strict": True}},
         "no-imperative-taints: takes no properties (got strict)"),
    ],
    ids=["typo-rule-id", "typo-property", "property-of-a-policy-without-config"],
)
def test_the_per_rule_pack_fails_the_preview_on_what_gpupool_plan_refuses(served, config, line):
    """The engine forwards an unknown name and checks no property beyond a policy's schema: the pack refuses
    them in Configure, with the line ``gpupool plan --policy-pack-config`` prints for the same file."""
    servicer = served("per-rule")
    with pytest.raises(PreviewFails) as err:
        configure(servicer, config)
    assert str(err.value).startswith("INVALID_ARGUMENT: policy pack gpu-node-pools (per-rule layout): invalid policy pack config:")
    assert line in str(err.value)
    assert line in _plan_error(config)


def test_the_per_rule_pack_refuses_the_per_level_policies_names_saying_what_to_set(served):
    servicer = served("per-rule")
    with pytest.raises(PreviewFails, match=f"{MANDATORY_POLICY}: a policy of the per-level layout .*set the level "
                       "on the rule ids"):
        configure(servicer, {MANDATORY_POLICY: "disabled"})


def test_the_per_rule_pack_takes_a_valid_config_and_the_analyzer_keeps_its_levels(served):
    import json

    servicer = served("per-rule")
    example = json.loads((ROOT / "policy" / "config.example.json").read_text())
    configure(servicer, {"all": "advisory", **example, "resources-judged": {"enforcementLevel": "mandatory",
                                                                            "strict": True}})
    levels = {p.name: servicer._get_enforcement_level(p).value for p in POLICIES}
    assert levels["gpu-toleration-allowlist"] == levels["resources-judged"] == "mandatory"
    assert levels["no-imperative-taints"] == "advisory"
    configure(servicer, {})
    assert {p.name: servicer._get_enforcement_level(p) for p in POLICIES} == {p.name: p.enforcement_level for p in POLICIES}


def test_the_per_rule_pack_serves_the_analyzers_own_analyze_methods(served):
    """Only Configure is the pack's: the per-resource and per-stack path is pulumi_policy's, unchanged."""
    from pulumi_policy import policy as sdk_policy

    servicer = served("per-rule")
    base = servicer._gpupool_base
    assert base is getattr(sdk_policy._PolicyAnalyzerServicer, "_gpupool_base", base)
    for method in ("Analyze", "AnalyzeStack", "_get_enforcement_level"):
        assert getattr(type(servicer), method) is getattr(base, method), method


# --- the per-level pack ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stack():
    return stacks.policy_stack(300, 40, 6)


def _diagnostics(response) -> list[tuple[str, str, str, str]]:
    out = []
    for d in response.diagnostics:
        rule, _, message = d.message.split("\n", 1)[1].partition("] ")
        out.append((rule[1:], _LEVEL[d.enforcementLevel], d.urn, message))
    return out


def _through_the_pack(servicer, stack, user: dict) -> list[tuple[str, str, str, str]]:
    from gpu_node_pool.k8s.wellknown import UNKNOWN
    from gpu_node_pool.sdk.policy_props import to_policy_props

    configure(servicer, user)
    many = analyzer.requests(stack, [to_policy_props(r.inputs, UNKNOWN) for r in stack], "bench", PROJECT)[2]
    return _diagnostics(servicer.AnalyzeStack(many, None))


def _by_the_runner(stack, config: dict) -> list[tuple[str, str, str, str]]:
    return [(f["policy"], f["enforcement"], "" if f["resource"] == "stack" else f["urn"], f["message"])
            for f in evaluate(stack, config, stack="bench", project=PROJECT)]


_DEFAULT_MANDATORY = {p.name for p in POLICIES if p.enforcement_level == EnforcementLevel.MANDATORY}


def test_disabling_the_per_level_mandatory_policy_runs_none_of_its_rules(served, stack):
    """What Pulumi Cloud's policy group shows of this pack is its two policies: a level set on one applies to
    the rules of that default level, as ``gpupool plan`` applies the same config."""
    got = _through_the_pack(served("per-level"), stack, {MANDATORY_POLICY: "disabled"})
    assert got and not [f for f in got if f[0] in _DEFAULT_MANDATORY]
    assert {f[1] for f in got} == {"advisory"}
    assert collections.Counter(got) == collections.Counter(_by_the_runner(stack, {MANDATORY_POLICY: "disabled"}))
    assert [f for f in _by_the_runner(stack, {}) if f[0] in _DEFAULT_MANDATORY and f[1] == "mandatory"]  # there were some


def test_the_per_level_mandatory_policy_set_advisory_reports_its_rules_as_advisory(served, stack):
    servicer = served("per-level")
    got = _through_the_pack(servicer, stack, {MANDATORY_POLICY: "advisory"})
    as_advisory = {name: "advisory" for name in _DEFAULT_MANDATORY}
    assert collections.Counter(got) == collections.Counter(_by_the_runner(stack, as_advisory))
    assert {f[1] for f in got} == {"advisory"} and {f[0] for f in got} & _DEFAULT_MANDATORY
    assert collections.Counter(got) == collections.Counter(_by_the_runner(stack, {MANDATORY_POLICY: "advisory"}))


def test_a_rule_ids_level_beats_its_level_policys_and_that_beats_all(served, stack):
    user = {"all": "advisory", ADVISORY_POLICY: "mandatory", "gpu-pool-declares-taint": "disabled",
            MANDATORY_POLICY: "advisory", "gpu-workloads-select-gpu-nodes": "advisory"}
    got = _through_the_pack(served("per-level"), stack, user)
    levels = {name: level.value for name, (level, _) in resolve_config(user).items()}
    assert levels["gpu-pool-declares-taint"] == "disabled" and levels["gpu-workloads-select-gpu-nodes"] == "advisory"
    assert levels["noexecute-gpu-taint"] == "mandatory" and levels["no-imperative-taints"] == "advisory"
    assert collections.Counter(got) == collections.Counter(_by_the_runner(stack, user))


def test_the_per_level_pack_refuses_properties_on_its_own_policies(served):
    with pytest.raises(PreviewFails, match=f"(?s)per-level layout.*{MANDATORY_POLICY}: .*give properties on the rule ids"):
        configure(served("per-level"), {MANDATORY_POLICY: {"enforcementLevel": "mandatory", "strict": True}})


def test_the_per_level_pack_refuses_a_typo_as_the_per_rule_pack_does(served):
    with pytest.raises(PreviewFails, match="per-level layout.*\n.*gpu-workloads-select-gpu-node: no such policy"):
        configure(served("per-level"), {"gpu-workloads-select-gpu-node": "mandatory"})


# --- the pulumi-policy the packs run with ------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["per-rule", "per-level"])
def test_each_layouts_requirements_pin_the_pulumi_policy_its_hook_was_written_for(tmp_path, capsys, layout):
    """The package allows pulumi-policy >=1.21,<2; the hook refuses another minor version, so the pack pins it."""
    from importlib.metadata import version

    from packaging.requirements import Requirement

    assert cli.main(["policy-pack", "--out", str(tmp_path / "p"), "--layout", layout]) == 0
    capsys.readouterr()
    lines = [line for line in (tmp_path / "p" / "requirements.txt").read_text().splitlines() if not line.startswith("#")]
    assert lines == [f"gpu-node-pool=={__version__}", "pulumi-policy==1.21.*"]
    assert lines[1] == analyzer_config.PULUMI_POLICY_REQUIREMENT
    assert Requirement(lines[1]).specifier.contains(version("pulumi_policy"))


def test_the_hook_refuses_another_pulumi_policy_minor_version_naming_the_line_to_pin(monkeypatch):
    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "version", lambda name: "1.22.0")
    with pytest.raises(analyzer_config.AnalyzerHookError, match=r"1\.22\.0 is installed\. Add the line "
                       r"pulumi-policy==1\.21\.\* to the pack's requirements\.txt"):
        analyzer_config.install_configure_hook(lambda entries: {})
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "1.21.3")
    analyzer_config.analyzer_servicer(lambda entries: {}, "p", "0.0.1", list(POLICIES), one_decoding=False)


def test_the_level_pack_docstring_counts_the_rules():
    from gpu_node_pool.policies import level_pack

    assert f"with the {len(POLICIES)} rules\nas {len(POLICIES)} policies" in level_pack.__doc__


def test_the_policies_docstring_lists_every_rule_in_pack_order():
    import re

    from pulumi_policy import StackValidationPolicy

    import gpu_node_pool.policies as policies

    listed = re.findall(r"^\d+\. ``([a-z-]+)`` \((\w+)(, stack)?\)$", policies.__doc__, re.M)
    assert listed == [(p.name, p.enforcement_level.value, ", stack" if isinstance(p, StackValidationPolicy) else "")
                      for p in POLICIES]


def test_on_another_pulumi_policy_the_per_rule_pack_serves_its_rules_and_warns(served, monkeypatch, capsys):
    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "version", lambda name: "1.22.0")
    servicer = served("per-rule")  # no traceback: the analyzer is still built
    assert "warning: config mistakes are not checked:" in capsys.readouterr().err
    configure(servicer, {"gpu-workloads-select-gpu-node": "mandatory"})  # not refused: nothing checks it


def test_on_another_pulumi_policy_the_per_level_pack_exits_with_the_line_to_pin(served, monkeypatch, capsys):
    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "version", lambda name: "1.22.0")
    with pytest.raises(SystemExit) as ended:
        served("per-level")
    assert ended.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("error: the gpu-node-pools policy pack") and "pulumi-policy==1.21.*" in err
