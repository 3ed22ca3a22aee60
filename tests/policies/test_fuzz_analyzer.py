"""The pack never fails a preview on bad data: hostile values through pulumi-policy's own analyzer.

During ``pulumi preview --policy-pack`` the engine calls the pack's analyzer servicer
(``pulumi_policy.policy._PolicyAnalyzerServicer``) with one ``AnalyzeRequest`` per resource and one
``AnalyzeStackRequest``; an exception from a rule fails the preview, a rule that never returns
hangs it. Here the servicer is built as ``PolicyPack`` builds it and called in-process with those
protobuf messages (as ``tests/policies/test_policies_plan.py`` and ``bench/analyzer.py`` do).

Each case is the real prod stack with 1-3 values replaced, at a path the rules read, by a hostile
value: malformed and huge user data (MIME parts with YAML typos, YAML alias bombs, a gzip bomb,
megabyte shell lines, Bottlerocket TOML of the wrong shape), quantities of thousands of digits or
an exponent past int32, megabyte strings, long lists, wrong types. Required: no exception from
either call, every diagnostic well-formed, and each case within the hypothesis ``deadline``
(:data:`CASE_DEADLINE`, a bound on a hang, far above what a case takes).
"""

from __future__ import annotations

import base64
import gzip
from datetime import timedelta

import pytest
from google.protobuf import struct_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pulumi.runtime.proto import analyzer_pb2
from pulumi_policy import EnforcementLevel
from pulumi_policy.policy import _PolicyAnalyzerServicer

from gpu_node_pool.k8s.wellknown import UNKNOWN
from gpu_node_pool.policies import PACK_NAME, POLICIES
from gpu_node_pool.sdk.policy_props import to_policy_props

#: Generated cases per CI run (quoted in RELIABILITY.md).
ANALYZER_FUZZ_EXAMPLES = 40
#: Most time one case (every resource analysed, then the stack) may take: a bound on a hang.
CASE_DEADLINE = timedelta(seconds=60)


def _b64(data: bytes | str) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


def _mime(part_type: str, body: str) -> str:
    return (f'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n\n--B\nContent-Type: {part_type}\n\n'
            f"{body}\n--B--\n")


_BOMB = "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True))
def _nested(depth):
    value = "deep"
    for _ in range(depth):
        value = [value]
    return value


USER_DATA = [
    _mime("application/node.eks.aws", "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec: {kubelet: ["),
    _mime("application/node.eks.aws", "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec: {kubelet: [1, 2]}"),
    _mime("application/node.eks.aws", "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n"
          "spec: {kubelet: {config: {registerWithTaints: oops}, flags: 7}}"),
    _mime("application/node.eks.aws", "kind: NodeConfig\na: &a [x, x, x, x, x, x, x, x, x, x]\n" + _BOMB),
    _b64(gzip.compress(b"#!/bin/bash\n" + b"x" * (64 << 20))),  # a 64 MiB gzip bomb in 64 KiB
    _b64(gzip.compress(("#!/bin/bash\nKUBELET_EXTRA_ARGS='" + "--a=b " * 200_000 + "'\n").encode())),
    "#!/bin/bash\n" + "'\"" * 30_000 + "\n",
    "[settings.kubernetes]\nnode-taints = 5\n",
    "[settings.kubernetes.node-taints]\n'nvidia.com/gpu' = [1, 2]\n",
    "apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\nnodeRegistration: {taints: oops, kubeletExtraArgs: [1]}\n",
    "kind: KubeletConfiguration\nregisterWithTaints: [{key: 1, effect: []}]\n",
    "%%% not base64 %%%",
    _b64(b"\xff\xfe\x00 not utf-8 \x9b[2J"),
]
#: Indexes in USER_DATA of texts that bootstrap no kubelet (a script of quotes, not base64, not UTF-8).
NOT_A_BOOTSTRAP = {6, 11, 12}
QUANTITIES = ["9" * 5000, "1e9999999999", "1e4294967297", "1e-4294967297", "lots", " 1", "١", "1Ki" * 300, "-1",
              "NaN", "Infinity", 1e308, -(10**30)]
HOSTILE = [
    *USER_DATA,
    *QUANTITIES,
    "a" * (1 << 20),
    "nvidia.com/gpu=present:NoSchedule\n" * 20_000,
    "\x1b]0;owned\x07\n[mandatory] forged: exit 0",
    [{"key": f"k{i}", "operator": "Exists"} for i in range(2000)],
    [{"key": "nvidia.com/gpu", "value": "v" * 100_000, "effect": "NoSchedule"}],
    _nested(40),
    {"oops": None},
    [],
    None,
    True,
    7,
    "",
    UNKNOWN,
]
#: Field names the rules read; a value at one of them is replaced (any path ending in it).
READ_KEYS = {"userData", "taints", "tolerations", "labels", "instanceTypes", "instanceType", "amiType", "limits",
             "requests", "nvidia.com/gpu", "nodeSelector", "affinity", "requirements", "startupTaints", "tags",
             "scalingConfig", "minSize", "maxSize", "desiredSize", "values", "create", "update", "command", "args",
             "spec", "template", "metadata", "key", "value", "effect", "operator", "guestAccelerators",
             "nodeConfig", "launchTemplate", "mixedInstancesPolicy", "containers", "resources", "chart", "yaml",
             "kubelet", "blockDeviceMappings", "nodeClassRef", "name", "namespace"}


def _servicer():
    return _PolicyAnalyzerServicer(PACK_NAME, "0.1.0", POLICIES, EnforcementLevel.ADVISORY)


def _struct(value):
    out = struct_pb2.Struct()
    out.update(value)
    return out


REAL: list | None = None


def _real():
    global REAL
    if REAL is None:
        from conftest import ROOT

        from gpu_node_pool.plan import plan_stack

        REAL = [(r.type, r.name, getattr(r, "urn", "") or f"urn:{r.name}", to_policy_props(r.inputs, UNKNOWN))
                for r in plan_stack("prod", ROOT).resources]
    return REAL


def _paths(value, prefix=()):
    if prefix and prefix[-1] in READ_KEYS:
        yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:3]):
            yield from _paths(v, (*prefix, i))


def _replace(value, path, new):
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: (_replace(v, rest, new) if k == head else v) for k, v in value.items()}
    return [(_replace(v, rest, new) if i == head else v) for i, v in enumerate(value)]


@st.composite
def hostile_stacks(draw):
    stack = list(_real())
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(stack) - 1))
        type_, name, urn, props = stack[i]
        paths = list(_paths(props)) or [("spec",)]
        path = draw(st.sampled_from(paths))
        new = _replace(props, path, draw(st.sampled_from(HOSTILE)))
        stack[i] = (type_, name, urn, new if isinstance(new, dict) else {"spec": new})
    return stack


def _well_formed(diagnostics):
    names = {p.name for p in POLICIES}
    for d in diagnostics:
        assert d.policyName in names and d.message


@pytest.fixture(scope="module")
def servicer():
    return _servicer()


@settings(max_examples=ANALYZER_FUZZ_EXAMPLES, derandomize=True, deadline=CASE_DEADLINE, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(stack=hostile_stacks())
def test_the_analyzer_never_raises_on_hostile_values(servicer, stack):
    many = []
    for type_, name, urn, props in stack:
        struct = _struct(props)
        _well_formed(servicer.Analyze(analyzer_pb2.AnalyzeRequest(type=type_, properties=struct, urn=urn, name=name),
                                      None).diagnostics)
        many.append(analyzer_pb2.AnalyzerResource(type=type_, properties=struct, urn=urn, name=name))
    _well_formed(servicer.AnalyzeStack(analyzer_pb2.AnalyzeStackRequest(resources=many), None).diagnostics)


@pytest.mark.parametrize("user_data", USER_DATA, ids=[f"user-data-{i}" for i in range(len(USER_DATA))])
def test_every_hostile_user_data_on_a_gpu_launch_template_is_analysed(servicer, user_data):
    """Each user data above on a self-managed GPU launch template, one at a time (the fuzz draws
    from them; here each is sure to run): the analyzer answers, and what cannot be read is said."""
    lt = analyzer_pb2.AnalyzerResource(type="aws:ec2/launchTemplate:LaunchTemplate", name="gpu", urn="urn:lt",
                                       properties=_struct({"instanceType": "g6.xlarge", "userData": user_data}))
    diagnostics = servicer.Analyze(analyzer_pb2.AnalyzeRequest(type=lt.type, properties=lt.properties, urn=lt.urn,
                                                               name=lt.name), None).diagnostics
    _well_formed(diagnostics)
    _well_formed(servicer.AnalyzeStack(analyzer_pb2.AnalyzeStackRequest(resources=[lt]), None).diagnostics)
    if USER_DATA.index(user_data) in NOT_A_BOOTSTRAP:
        assert diagnostics == []  # no kubelet joins with it: not a GPU pool, nothing to judge
    else:
        [d] = diagnostics
        assert d.policyName == "gpu-pool-declares-taint" and "its taints are not valid (" in d.message


@pytest.mark.parametrize("value", QUANTITIES, ids=[f"quantity-{i}" for i in range(len(QUANTITIES))])
def test_every_hostile_gpu_quantity_in_a_pod_is_analysed(servicer, value):
    pod = analyzer_pb2.AnalyzerResource(type="kubernetes:core/v1:Pod", name="p", urn="urn:p", properties=_struct({
        "metadata": {"name": "p", "namespace": "ml"},
        "spec": {"containers": [{"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": value},
                                                                           "requests": {"nvidia.com/gpu": value}}}]}}))
    _well_formed(servicer.Analyze(analyzer_pb2.AnalyzeRequest(type=pod.type, properties=pod.properties, urn=pod.urn,
                                                              name=pod.name), None).diagnostics)
    _well_formed(servicer.AnalyzeStack(analyzer_pb2.AnalyzeStackRequest(resources=[pod]), None).diagnostics)
