"""One reading of a Kubernetes ``core/v1`` Taint object: ``Taint.from_k8s``, which every reader of a NodePool's taints,
a kubelet's ``registerWithTaints`` and a Node's ``spec.taints`` asks.

``key``, ``value`` and ``effect`` are strings (``Key string``, ``Value string``, ``Effect TaintEffect`` in
k8s.io/api core/v1 types.go; the NodePool CRD types them ``string``), so the API server refuses a YAML ``false``,
``0`` or ``1.5`` there: none is read as another value (``false`` and ``0`` as the empty value)."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import base

from gpu_node_pool.backends._shared.nodepool_detect import nodepool_taint_lists
from gpu_node_pool.backends.eks_auto import read as eks_auto_read
from gpu_node_pool.backends.karpenter import read as karpenter_read
from gpu_node_pool.config import ConfigError, validate_stack_config
from gpu_node_pool.k8s.taints import Taint, TaintError, k8s_taint_problems

NOT_STRINGS = [0, False, True, 1.5, 7, [], {}]


def nodepool(taints: list[Any], startup: list[Any] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"taints": taints}
    if startup is not None:
        spec["startupTaints"] = startup
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "gpu"},
            "spec": {"template": {"spec": spec}}}


@pytest.mark.parametrize("value", NOT_STRINGS, ids=repr)
def test_a_nodepool_taint_value_that_is_no_string_is_refused_not_read_as_another_value(value):
    pool = nodepool([{"key": "example.com/team", "value": value, "effect": "NoSchedule"}])
    lists = nodepool_taint_lists(pool)
    assert lists.taints == [] and lists.unreadable == ("spec.template.spec.taints",)
    assert lists.problem.startswith(f"spec.template.spec.taints[0].value {value!r} is not a string")
    startup = nodepool_taint_lists(nodepool([], [{"key": "example.com/boot", "value": value, "effect": "NoExecute"}]))
    assert startup.startup_taints == [] and startup.unreadable == ("spec.template.spec.startupTaints",)
    assert startup.problem.startswith(f"spec.template.spec.startupTaints[0].value {value!r} is not a string")


def test_a_nodepool_s_taint_lists_have_one_reader_for_both_backends():
    """``nodepool_taint_lists`` reads a NodePool's ``taints`` and ``startupTaints`` for the karpenter and eks-auto
    backends alike (their plan summaries and their detection of hand-written NodePools); neither backend's ``read``
    module holds a second taint reader that could part from it."""
    for module in (karpenter_read, eks_auto_read):
        readers = [name for name in vars(module) if "taint" in name.lower()]
        assert readers == [], f"{module.__name__} reads taints too: {readers}"


def test_a_user_data_taint_value_that_is_no_string_is_refused_not_merged_with_an_empty_value():
    """A nodeadm NodeConfig's ``value: false`` in a karpenter pool's userData: the kubelet refuses it, so the component
    does not merge ``example.com/team:NoSchedule`` into the NodePool."""
    user_data = ("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\n"
                 "Content-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n"
                 "spec:\n  kubelet:\n    config:\n      registerWithTaints:\n"
                 "        - {key: example.com/team, value: false, effect: NoSchedule}\n--//--\n")
    cfg = base()
    cfg["pools"] = [{"name": "train", "backend": "karpenter", "instanceTypes": ["g6e.12xlarge"],
                     "taints": ["nvidia.com/gpu=present:NoSchedule"], "limits": {"nvidia.com/gpu": 16},
                     "nodeClass": {"amiAlias": "al2023@latest", "userData": user_data}}]
    with pytest.raises(ConfigError) as refused:
        validate_stack_config(cfg)
    [issue] = refused.value.issues
    assert issue.path == "pools[0].nodeClass.userData"
    assert "taint value False is not a string" in issue.message


@pytest.mark.parametrize(("field", "given", "fix"), [
    ("key", 7, "write the key as a string"),
    ("key", ["a"], "write the key as a string"),
    ("value", 0, 'quote it: value: "0"'),
    ("value", False, 'quote it: value: "false"'),
    ("value", 1.5, 'quote it: value: "1.5"'),
    ("value", {"a": 1}, "write the value as a string"),
    ("effect", 0, "write one of NoSchedule, PreferNoSchedule, NoExecute"),
])
def test_a_field_that_is_no_string_is_refused_with_the_field_the_value_the_rule_and_the_fix(field, given, fix):
    obj = {"key": "example.com/team", "value": "ml", "effect": "NoSchedule", field: given}
    with pytest.raises(TaintError) as caught:
        Taint.from_k8s(obj)
    message = str(caught.value)
    assert message.startswith(f"taint {field} {given!r} is not a string")
    assert "k8s.io/api core/v1 types.go" in message and fix in message
    assert "spec." not in message  # path-free: the caller says where the object is
    assert caught.value.problems == tuple(k8s_taint_problems(obj, "a core/v1 Taint"))


@pytest.mark.parametrize("obj", [
    {"key": "k", "effect": "NoSchedule"}, {"key": "k", "value": None, "effect": "NoSchedule"},
    {"key": "k", "value": "", "effect": "NoSchedule"}, {"key": "k", "value": 0, "effect": "NoSchedule"},
    {"key": "k", "value": False, "effect": "NoSchedule"}, {"key": "", "effect": "NoSchedule"}, {"key": "k"},
    {"key": "k", "effect": "NO_SCHEDULE"}, {"key": "a b", "value": "a b", "effect": "Sometimes"}, "k:NoSchedule",
])
def test_the_reader_refuses_exactly_what_the_rules_name(obj):
    problems = k8s_taint_problems(obj, "a NodePool")
    try:
        Taint.from_k8s(obj, "a NodePool")
    except TaintError as err:
        assert err.problems == tuple(problems) and problems
    else:
        assert problems == []


def test_every_problem_of_one_object_is_named():
    with pytest.raises(TaintError) as caught:
        Taint.from_k8s({"key": "a b", "value": "a b", "effect": "NO_SCHEDULE"}, "a NodePool")
    message = str(caught.value)
    assert message.startswith("taint key 'a b' ")
    assert "; taint value 'a b' " in message
    assert ("; taint effect 'NO_SCHEDULE' is the EKS/GKE API spelling; a NodePool takes the Kubernetes spelling: "
            "write NoSchedule") in message


def test_a_kubelet_config_taint_value_that_is_no_string_is_refused_not_taken_as_empty():
    cfg = base()
    cfg["pools"][0]["kubelet"] = {"config": {"registerWithTaints": [{"key": "a", "value": 0, "effect": "NoSchedule"}]}}
    with pytest.raises(ConfigError) as refused:
        validate_stack_config(cfg)
    [issue] = refused.value.issues
    assert issue.path == "pools[0].kubelet.config.registerWithTaints[0]"
    assert issue.message.startswith('taint value 0 is not a string (a core/v1 Taint\'s value is a string, k8s.io/api '
                                    'core/v1 types.go, and the API server refuses any other type): quote it: value: "0"')
