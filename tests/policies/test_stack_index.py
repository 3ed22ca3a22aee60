"""The shortcuts that keep the pack linear in the stack's size never change a verdict.

* ``policies/stack.py``: a stack policy reads the DaemonSets, workloads, charts... from a
  :class:`StackIndex` built once per evaluation, in stack order, instead of walking every resource.
* ``rules.JUDGES``: the runner does not call a resource policy for resource types it never reads.

Both are checked against the long way round: the same generated and mutated stacks evaluated with
the predicates switched off give the same findings, in the same order.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from pulumi_policy import StackValidationArgs
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE as UNKNOWN
from test_fuzz_policies import POLICY_FUZZ_EXAMPLES, mutated_real_stack, resources

from gpu_node_pool.policies import runner
from gpu_node_pool.policies.rules import JUDGES, POLICIES
from gpu_node_pool.policies.runner import StackResource, evaluate, policy_resources
from gpu_node_pool.policies.stack import StackIndex, stack_index
from gpu_node_pool.sdk import policy_props as props_view
from gpu_node_pool.sdk.policy_props import policy_props


def _long_way(stack, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(runner, "JUDGES", {})
        return evaluate(stack)


@settings(max_examples=POLICY_FUZZ_EXAMPLES // 3, derandomize=True, deadline=None, database=None)
@given(resources())
def test_skipping_types_a_policy_never_reads_changes_no_finding(stack):
    with pytest.MonkeyPatch.context() as mp:
        assert evaluate(stack) == _long_way(stack, mp)


@settings(max_examples=POLICY_FUZZ_EXAMPLES // 6, derandomize=True, deadline=None, database=None)
@given(mutated_real_stack())
def test_skipping_types_changes_no_finding_on_mutated_real_stacks(stack):
    with pytest.MonkeyPatch.context() as mp:
        assert evaluate(stack) == _long_way(stack, mp)


def test_every_resource_policy_says_which_types_it_reads():
    resource_policies = [p for p in POLICIES if type(p).__name__ == "ResourceValidationPolicy"]
    assert {p.name for p in resource_policies} == set(JUDGES)
    for policy in resource_policies:
        owner, reads = JUDGES[policy.name]
        assert owner is policy
        assert not reads("aws:s3/bucketV2:BucketV2")
    assert JUDGES["gpu-pool-declares-taint"][1]("aws:eks/nodeGroup:NodeGroup")
    assert JUDGES["gpu-limits-well-formed"][1]("kubernetes:batch/v1:CronJob")
    assert not JUDGES["gpu-limits-well-formed"][1]("kubernetes:core/v1:ConfigMap")
    assert JUDGES["no-imperative-taints"][1]("command:remote:Command")


def test_a_policy_of_the_same_name_that_is_not_the_packs_is_called_for_every_resource():
    from pulumi_policy import EnforcementLevel, ResourceValidationPolicy

    seen = []
    impostor = ResourceValidationPolicy(
        name="gpu-limits-well-formed", description="reads everything",
        validate=lambda args, report: seen.append(args.resource_type), enforcement_level=EnforcementLevel.ADVISORY,
    )
    evaluate([StackResource("aws:s3/bucketV2:BucketV2", "b", {}), StackResource("kubernetes:core/v1:ConfigMap", "c", {})],
             policies=[impostor])
    assert seen == ["aws:s3/bucketV2:BucketV2", "kubernetes:core/v1:ConfigMap"]


def _ds(name, **spec):
    return StackResource("kubernetes:apps/v1:DaemonSet", name,
                         {"metadata": {"name": name, "namespace": "ops"}, "spec": {"template": {"spec": spec}}})


def test_the_index_keeps_stack_order_and_reads_each_workload_once():
    stack = [
        _ds("a"),
        StackResource("kubernetes:helm.sh/v4:Chart", "chart", {"chart": "nvidia-device-plugin"}),
        StackResource("kubernetes:apps/v1:Deployment", "web", {"metadata": {"name": "web"}, "spec": UNKNOWN}),
        StackResource("aws:s3/bucketV2:BucketV2", "bucket", {}),
        StackResource("kubernetes:extensions/v1beta1:DaemonSet", "old", {"metadata": {"name": "old"}}),
        _ds("b"),
    ]
    index = StackIndex(policy_resources(stack))
    assert [r.name for r in index.daemonsets()] == ["a", "old", "b"]
    assert [r.name for r in index.of_types(("kubernetes:helm.sh/v4:Chart", "aws:s3/bucketV2:BucketV2"))] == ["chart", "bucket"]
    entries = index.workloads()
    assert [(r.name, w.name if w else None, type(e).__name__ if e else None) for r, w, e in entries] == [
        ("a", "a", None), ("web", None, "UnknownValueError"), ("old", "old", None), ("b", "b", None)]
    assert index.workloads() is entries  # read once
    assert index.parent_urns() == frozenset()


def test_the_index_is_built_once_per_evaluation_and_per_policy_under_the_sdk():
    resources = policy_resources([_ds("a")])
    shared = StackValidationArgs(resources, {})
    shared.derived = {}
    assert stack_index(shared) is stack_index(shared)
    sdk = StackValidationArgs(resources, {})  # the SDK's args carry no cache: a fresh index each time
    assert stack_index(sdk) is not stack_index(sdk)
    assert [r.name for r in stack_index(sdk).daemonsets()] == ["a"]


def test_every_resource_policy_still_reports_on_the_types_it_reads(monkeypatch):
    import builders

    stack = [
        *builders.IMPERATIVE_TAINTS,
        builders.node_group("bare", taints=()),
        builders.node_group("evicting", taints=("nvidia.com/gpu=present:NoExecute",)),
        builders.job("odd", resources={"limits": {"nvidia.com/gpu": "1.5"}}),
        StackResource("aws:s3/bucketV2:BucketV2", "bucket", {"bucket": "kubectl taint nodes x a=b:NoSchedule"}),
    ]
    findings = evaluate(stack)
    reported = {f["policy"] for f in findings}
    assert set(JUDGES) <= reported, reported
    assert findings == _long_way(stack, monkeypatch)


def _copy(value, *, fast):
    from gpu_node_pool.sdk.props import UnknownValueError, plain

    with pytest.MonkeyPatch.context() as mp:
        if not fast:
            mp.setattr(props_view, "_WRITES", [1])  # the generic copy through the proxies
        try:
            return "copy", plain(policy_props(value))
        except UnknownValueError as err:
            return "unknown", err.unknown_type_sentinel, err.props


@settings(max_examples=POLICY_FUZZ_EXAMPLES, derandomize=True, deadline=None, database=None)
@given(resources())
def test_the_fast_plain_copy_equals_the_copy_through_the_proxies(stack):
    for res in stack:
        for value in (res.inputs, {"spec": res.inputs, "n": [1.0, 2.5, res.inputs]}):
            assert _copy(value, fast=True) == _copy(value, fast=False)


def test_the_fast_plain_copy_names_the_path_of_the_first_unknown():
    value = {"spec": {"a": [1, {"b": "x"}, {"c": UNKNOWN}], "z": UNKNOWN}, "n": 3.0}
    assert _copy(value, fast=True) == ("unknown", UNKNOWN, ["spec", "a", "2", "c"]) == _copy(value, fast=False)
    assert _copy({"n": 3.0, "m": [2.5]}, fast=True) == ("copy", {"n": 3, "m": [2.5]})


def test_a_proxy_shown_in_a_message_shows_its_value_not_its_address():
    shown = repr(policy_props({"taints": [{"key": "a"}], "n": 1})["taints"])
    assert shown == "[{'key': 'a'}]"
    assert "object at 0x" not in repr(policy_props({"a": {"b": 1}})["a"])
