"""Policies never crash: generated resource props of every shape through every policy.

Random JSON-like values (None, wrong types, the preview unknown sentinel, ``Secret``
wrappers, plausible fragments of real shapes) are put at the paths the policies read. The
runner behaves like the SDK's analyzer: a policy may report, or say it cannot decide
("can't run policy ... during preview") when it hits an unknown; no other exception may
escape, and an unknown must never be counted as a pass silently when it decides the verdict.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from pulumi_policy import Secret
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

from gpu_node_pool.policies.rules import POLICIES
from gpu_node_pool.policies.runner import StackResource, evaluate

#: generated (resource props) cases per CI run, quoted in RELIABILITY.md
POLICY_FUZZ_EXAMPLES = 300

TYPES = [
    "aws:autoscaling/group:Group",
    "aws:autoscaling/tag:Tag",
    "aws:ec2/instance:Instance",
    "aws:ec2/launchTemplate:LaunchTemplate",
    "aws:eks/nodeGroup:NodeGroup",
    "command:local:Command",
    "command:remote:Command",
    "gcp:compute/instanceTemplate:InstanceTemplate",
    "gcp:container/nodePool:NodePool",
    "kubernetes:core/v1:Node",
    "kubernetes:core/v1:NodePatch",
    "kubernetes:core/v1:NodeList",
    "kubernetes:core/v1:Pod",
    "kubernetes:apps/v1:DaemonSet",
    "kubernetes:apps/v1:Deployment",
    "kubernetes:batch/v1:Job",
    "kubernetes:batch/v1:CronJob",
    "kubernetes:helm.sh/v4:Chart",
    "kubernetes:helm.sh/v3:Release",
    "kubernetes:karpenter.sh/v1:NodePool",
    "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass",
]

UNKNOWN = UNKNOWN_STRING_VALUE
leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.just(UNKNOWN),
    st.sampled_from(
        ["", "NoSchedule", "NO_SCHEDULE", "NoExecute", "Exists", "Equal", "nvidia.com/gpu", "present", "true",
         "kubectl taint nodes n nvidia.com/gpu=present:NoSchedule", "g6.xlarge", "p5.48xlarge", "3", "1.5", "2Gi",
         "AL2023_x86_64_NVIDIA", "nvidia-l4", "In", "NotIn", "a/b/c", "#!/bin/bash\necho hi"]
    ),
    st.text(max_size=8),
)
KEYS = ["spec", "template", "taints", "tolerations", "key", "value", "effect", "operator", "tolerationSeconds",
        "nodeSelector", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
        "nodeSelectorTerms", "matchExpressions", "values", "containers", "resources", "limits", "requests",
        "nvidia.com/gpu", "image", "metadata", "namespace", "name", "labels", "nodeConfig", "guestAccelerators",
        "instanceTypes", "amiType", "scalingConfig", "minSize", "maxSize", "tags", "tag", "userData", "create",
        "update", "delete", "values", "chart", "requirements", "limits", "startupTaints", "jobTemplate",
        "command", "args", "items", "type", "count", "launchTemplate", "mixedInstancesPolicy", "instanceType"]
shapes = st.recursive(
    leaf,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(KEYS), children, max_size=5),
        children.map(Secret),
    ),
    max_leaves=25,
)


@st.composite
def resources(draw):
    n = draw(st.integers(1, 5))
    out = []
    for i in range(n):
        props = draw(st.one_of(shapes, st.dictionaries(st.sampled_from(KEYS), shapes, max_size=6)))
        out.append(StackResource(type=draw(st.sampled_from(TYPES)), name=f"r{i}", inputs=props))
    return out


@settings(max_examples=POLICY_FUZZ_EXAMPLES, derandomize=True, deadline=None, database=None)
@given(resources())
def test_no_policy_raises_on_generated_props(stack):
    findings = evaluate(stack)
    for f in findings:
        assert set(f) == {"policy", "enforcement", "resource", "urn", "message"}
        assert f["enforcement"] in ("mandatory", "advisory")
        assert f["policy"] in {p.name for p in POLICIES}


def test_an_unknown_taint_list_is_reported_as_undecidable_not_as_a_pass():
    pool = StackResource(
        "aws:eks/nodeGroup:NodeGroup",
        "gpu",
        {"instanceTypes": ["g6.xlarge"], "amiType": "AL2023_x86_64_NVIDIA", "taints": UNKNOWN},
    )
    findings = evaluate([pool])
    declares = [f for f in findings if f["policy"] == "gpu-pool-declares-taint"]
    assert declares, findings
    assert all("can't" in f["message"] or "unknown" in f["message"].lower() for f in declares), declares


def _real_stack():
    from conftest import ROOT

    from gpu_node_pool.plan import plan_stack

    result = plan_stack("prod", ROOT)
    return [StackResource(r.type, r.name, r.inputs, urn=getattr(r, "urn", "")) for r in result.resources]


REAL = None


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


def _replace(value, path, new):
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: (_replace(v, rest, new) if k == head else v) for k, v in value.items()}
    return [(_replace(v, rest, new) if i == head else v) for i, v in enumerate(value)]


@st.composite
def mutated_real_stack(draw):
    global REAL
    if REAL is None:
        REAL = _real_stack()
    stack = list(REAL)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(stack) - 1))
        res = stack[i]
        paths = list(_paths(res.inputs))
        path = draw(st.sampled_from(paths))
        new_inputs = _replace(res.inputs, path, draw(shapes))
        if not isinstance(new_inputs, dict):
            new_inputs = {"spec": new_inputs}
        stack[i] = StackResource(res.type, res.name, new_inputs, urn=res.urn)
    return stack


@settings(max_examples=POLICY_FUZZ_EXAMPLES // 3, derandomize=True, deadline=None, database=None)
@given(mutated_real_stack())
def test_no_policy_raises_on_mutated_real_stacks(stack):
    evaluate(stack)
