"""One rule, two enforcement points, the same verdict.

The preview rule (``gpu_node_pool.policies.evaluate``) and the ValidatingAdmissionPolicy the program
installs (evaluated with cel-python, :mod:`cel_admission`) judge the same objects. Pools, taints and
the VAP objects come from one run of the real program on one stack config: no second source.
"""

from __future__ import annotations

import copy
from functools import cache

from cel_admission import admit
from conftest import base
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_node_pool.component.program import build
from gpu_node_pool.config.loading import validate_stack_config
from gpu_node_pool.plan.run import record
from gpu_node_pool.policies import StackResource, evaluate
from gpu_node_pool.policies import rules as d

VAP = "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy"
BINDING = "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding"
POD_RESOURCE = {"group": "", "version": "v1", "resource": "pods"}
NODE_RESOURCE = {"group": "", "version": "v1", "resource": "nodes"}


def stack_config(action: str = "deny", taints=("nvidia.com/gpu=present:NoSchedule",)) -> dict:
    raw = base()
    raw["cluster"]["kubernetesVersion"] = "1.31"
    raw["pools"][0]["taints"] = list(taints)
    second = copy.deepcopy(raw["pools"][0])
    second.update(name="training", taints=["nvidia.com/gpu=present:NoSchedule", "team=ml:NoExecute"])
    raw["pools"].append(second)
    raw["admission"] = {"enabled": True, "action": action, "exempt": {"users": ["ops-bot"], "groups": ["node-admins"]}}
    return raw


@cache
def recorded(action: str = "deny", taints=("nvidia.com/gpu=present:NoSchedule",)):
    stack = validate_stack_config(stack_config(action, taints))
    resources, _ = record(lambda: build(stack))
    return tuple(resources)


def policies(resources) -> dict:
    out = {}
    for r in resources:
        if r.type == VAP:
            out[r.inputs["metadata"]["name"]] = {"kind": "ValidatingAdmissionPolicy", **r.inputs}
    return out


def bindings(resources) -> dict:
    return {r.inputs["spec"]["policyName"]: r.inputs["spec"]["validationActions"] for r in resources if r.type == BINDING}


TOLERATION_POLICY = "gpu-node-pools-gpu-toleration-allowlist"
NODE_POLICY = "gpu-node-pools-no-imperative-taints"


def pod(namespace: str, tolerations: list, limits: dict | None = None, name: str = "p") -> dict:
    container = {"name": "c", "image": "busybox"}
    if limits is not None:
        container["resources"] = {"limits": limits}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace},
            "spec": {"containers": [container], "tolerations": tolerations}}


def preview_refuses(resources, obj: dict) -> list[str]:
    found = evaluate([*resources, StackResource("kubernetes:core/v1:Pod", "probe", obj)],
                     policies=[d.gpu_toleration_allowlist.POLICY])
    return [f["message"] for f in found if f["resource"].endswith(" probe")]


def cel_refuses(resources, obj: dict, user: str = "alice") -> list[str]:
    request = {"operation": "CREATE", "namespace": obj["metadata"]["namespace"], "resource": POD_RESOURCE,
               "userInfo": {"username": user, "groups": ["system:authenticated"]}, "object": obj, "oldObject": None}
    return admit(policies(resources)[TOLERATION_POLICY], request) or []


GPU_TOL = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def test_a_pod_counts_as_a_daemonsets_only_when_the_daemonset_controller_creates_it():
    resources = recorded()
    shipper = pod("web", [GPU_TOL])
    shipper["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "x", "uid": "1"}]
    assert cel_refuses(resources, shipper, user="system:serviceaccount:kube-system:daemon-set-controller") == []
    (msg,) = cel_refuses(resources, shipper, user="alice")  # an owner reference anyone can write is no proof
    assert "requests no GPU but tolerates the GPU taint nvidia.com/gpu" in msg


def test_acceptance_pods():
    resources = recorded()
    assert bindings(resources)[TOLERATION_POLICY] == ["Deny", "Audit"]
    (msg,) = cel_refuses(resources, pod("web", [GPU_TOL]))
    assert "Pod web/p requests no GPU but tolerates the GPU taint nvidia.com/gpu=present:NoSchedule" in msg
    assert "pool inference, training" in msg and "allowedNamespaces" in msg
    assert preview_refuses(resources, pod("web", [GPU_TOL]))
    assert cel_refuses(resources, pod("kube-system", [GPU_TOL])) == [] == preview_refuses(resources, pod("kube-system", [GPU_TOL]))
    gpu = pod("web", [GPU_TOL], {"nvidia.com/gpu": "1"})
    assert cel_refuses(resources, gpu) == [] == preview_refuses(resources, gpu)


def test_actions_follow_the_setting():
    assert bindings(recorded("audit"))[NODE_POLICY] == ["Audit"]
    assert bindings(recorded("warn"))[NODE_POLICY] == ["Warn", "Audit"]


KEYS = st.sampled_from(["nvidia.com/gpu", "team", "dedicated", "example.com/sla", None])
EFFECTS = st.sampled_from(["NoSchedule", "NoExecute", "PreferNoSchedule", "", None])
VALUES = st.sampled_from(["present", "ml", "true", "950", None])
#: Gt/Lt values the API server accepts (Kubernetes 1.35 with TaintTolerationComparisonOperators on).
NUMBERS = st.sampled_from(["949", "950", "951", "0", "-5"])


@st.composite
def tolerations(draw):
    key = draw(KEYS)
    operator = "Exists" if key is None else draw(st.sampled_from(["Exists", "Equal", "Gt", "Lt", None]))
    tol = {}
    if key is not None:
        tol["key"] = key
    if operator is not None:
        tol["operator"] = operator
    value = draw(NUMBERS if operator in ("Gt", "Lt") else VALUES)
    if value is not None and operator != "Exists":
        tol["value"] = value
    effect = draw(EFFECTS)
    if effect is not None:
        tol["effect"] = effect
    return tol


QUANTITIES = st.sampled_from(["0", "1", "2", "0.5", "500m", "0m", "0.0", "1Ki", 1, 0])
RESOURCES = st.sampled_from(["nvidia.com/gpu", "nvidia.com/gpu.shared", "nvidia.com/mig-1g.10gb", "cpu", "example.com/fpga"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(namespace=st.sampled_from(["web", "kube-system", "gpu-operator", "default"]),
       tols=st.lists(tolerations(), max_size=3),
       limits=st.none() | st.dictionaries(RESOURCES, QUANTITIES, max_size=2))
def test_same_verdict_on_pods(namespace, tols, limits):
    resources = recorded()
    obj = pod(namespace, tols, limits)
    assert bool(cel_refuses(resources, obj)) == bool(preview_refuses(resources, obj))


SLA_TAINTS = ("nvidia.com/gpu=present:NoSchedule", "example.com/sla=950:NoSchedule")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(namespace=st.sampled_from(["web", "kube-system"]), tols=st.lists(tolerations(), max_size=3))
def test_same_verdict_with_numeric_tolerations_of_a_numeric_taint(namespace, tols):
    resources = recorded("deny", SLA_TAINTS)
    obj = pod(namespace, tols)
    assert bool(cel_refuses(resources, obj)) == bool(preview_refuses(resources, obj))


def test_gt_tolerates_only_a_greater_taint_value_in_both():
    resources = recorded("deny", SLA_TAINTS)
    gpu = {"key": "nvidia.com/gpu", "operator": "Exists"}
    for operator, value, tolerated in (("Gt", "949", True), ("Gt", "950", False), ("Lt", "951", True), ("Lt", "950", False)):
        obj = pod("web", [gpu, {"key": "example.com/sla", "operator": operator, "value": value}])
        refused = cel_refuses(resources, obj)
        assert bool(refused) == bool(preview_refuses(resources, obj))
        assert any("example.com/sla" in m for m in refused) is tolerated, (operator, value, refused)


# --- Node updates: declared taints are owned by the pool ------------------------------------------


def node(pool: str | None, taints: list[dict], name: str = "ip-10-0-1-5.ec2.internal") -> dict:
    labels = {"kubernetes.io/hostname": name}
    if pool is not None:
        labels["gpu-node-pools/pool"] = pool
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "spec": {"taints": taints}}


def node_update(resources, old: dict, new: dict, user: str, groups=("system:authenticated",)) -> list[str]:
    request = {"operation": "UPDATE", "namespace": "", "resource": NODE_RESOURCE,
               "userInfo": {"username": user, "groups": list(groups)}, "object": new, "oldObject": old}
    return admit(policies(resources)[NODE_POLICY], request) or []


GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}


def test_acceptance_node_updates():
    resources = recorded()
    old, new = node("inference", [GPU_TAINT]), node("inference", [])
    (msg,) = node_update(resources, old, new, "alice")
    assert "of pool inference" in msg and "nvidia.com/gpu=present:NoSchedule" in msg and "alice" in msg
    assert node_update(resources, old, new, "system:node:ip-10-0-1-5.ec2.internal") == []
    changed = node("inference", [{**GPU_TAINT, "value": "true"}])
    assert node_update(resources, old, changed, "alice") != []  # a changed value is a changed taint
    assert node_update(resources, old, new, "system:node:another-node") != []
    assert node_update(resources, old, new, "system:serviceaccount:kube-system:cluster-autoscaler") == []
    assert node_update(resources, old, new, "ops-bot") == [] == node_update(resources, old, new, "bob", ["node-admins"])
    # other keys are never judged; a node outside the declared pools is never judged
    extra = {"key": "maintenance", "value": "x", "effect": "NoSchedule"}
    assert node_update(resources, node("inference", [GPU_TAINT, extra]), node("inference", [GPU_TAINT]), "alice") == []
    assert node_update(resources, node("other", [GPU_TAINT]), node("other", []), "alice") == []
    assert node_update(resources, node(None, [GPU_TAINT]), node(None, []), "alice") == []


def test_changing_a_pool_taint_in_the_stack_changes_the_policies():
    changed = recorded("deny", ("dedicated=gpu:NoSchedule",))
    old = node("inference", [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])
    (msg,) = node_update(changed, old, node("inference", []), "alice")
    assert "dedicated=gpu:NoSchedule" in msg
    assert node_update(recorded(), old, node("inference", []), "alice") == []  # not declared there
    tol = {"key": "dedicated", "operator": "Exists"}
    assert cel_refuses(changed, pod("web", [tol])) and preview_refuses(changed, pod("web", [tol]))


DECLARED = {"inference": [("nvidia.com/gpu", "present", "NoSchedule")],
            "training": [("nvidia.com/gpu", "present", "NoSchedule"), ("team", "ml", "NoExecute")]}
EXEMPT_USERS = {"ops-bot", "system:serviceaccount:kube-system:cluster-autoscaler",
                "system:serviceaccount:kube-system:karpenter", "system:serviceaccount:karpenter:karpenter"}


def oracle_refuses(old: dict, new: dict, user: str, groups: list[str]) -> bool:
    """The rule in Python: a declared taint of the node's pool present as declared before and not after."""
    pool = old["metadata"]["labels"].get("gpu-node-pools/pool")
    if pool not in DECLARED or user == f"system:node:{old['metadata']['name']}" or user in EXEMPT_USERS:
        return False
    if "node-admins" in groups:
        return False

    def has(n, t):
        return any((x["key"], x.get("value", ""), x["effect"]) == t for x in n["spec"]["taints"])

    return any(has(old, t) and not has(new, t) for t in DECLARED[pool])


TAINTS = st.sampled_from([GPU_TAINT, {"key": "nvidia.com/gpu", "value": "other", "effect": "NoSchedule"},
                          {"key": "nvidia.com/gpu", "effect": "NoExecute"}, {"key": "team", "value": "ml", "effect": "NoExecute"},
                          {"key": "team", "value": "ml", "effect": "NoSchedule"}, {"key": "maintenance", "effect": "NoSchedule"}])


@st.composite
def edited(draw, taints: list[dict]) -> list[dict]:
    """``taints`` as an update leaves them: each kept, dropped, or given another value or effect; maybe one added."""
    out = []
    for t in taints:
        how = draw(st.sampled_from(["keep", "drop", "value", "effect"]))
        if how == "keep":
            out.append(t)
        elif how == "value":
            out.append({**t, "value": draw(st.sampled_from(["present", "other", "ml"]))})
        elif how == "effect":
            out.append({**t, "effect": draw(st.sampled_from(["NoSchedule", "NoExecute", "PreferNoSchedule"]))})
    out += draw(st.lists(TAINTS, max_size=1))
    return list({str(sorted(t.items())): t for t in out}.values())


@st.composite
def updates(draw):
    old = draw(st.lists(TAINTS, max_size=3, unique_by=str))
    return old, draw(edited(old))


@settings(max_examples=300, deadline=None)
@given(pool=st.sampled_from(["inference", "training", "other", None]), change=updates(),
       user=st.sampled_from(["alice", "ops-bot", "system:node:ip-10-0-1-5.ec2.internal", "system:node:x",
                             "system:serviceaccount:kube-system:cluster-autoscaler", "system:serviceaccount:web:app"]),
       groups=st.sampled_from([["system:authenticated"], ["node-admins"], ["system:nodes"]]))
def test_same_verdict_on_node_updates(pool, change, user, groups):
    before, after = node(pool, change[0]), node(pool, change[1])
    assert bool(node_update(recorded(), before, after, user, groups)) == oracle_refuses(before, after, user, groups)
