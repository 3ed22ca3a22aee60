"""Karpenter pools whose requirements on one key Karpenter reduces to DoesNotExist (kubernetes-sigs/karpenter
``pkg/scheduling/requirement.go`` ``Intersection``, no error): refused on a key every offering carries, a warning
on a custom label."""

from __future__ import annotations

from builders import config_issues
from conftest import base

from gpu_node_pool.config import validate_stack_config


def req(key: str, op: str, *values: str) -> dict:
    return {"key": key, "operator": op, **({"values": list(values)} if values else {})}


def stack(requirements: list[dict]) -> dict:
    cfg = base()
    cfg["pools"] = [{"name": "burst", "backend": "karpenter", "instanceFamilies": ["g6e"], "nodeClass": {},
                     "taints": ["nvidia.com/gpu=present:NoSchedule"], "limits": {"nvidia.com/gpu": "16"},
                     "requirements": requirements}]
    return cfg


def test_a_key_every_offering_carries_reduced_to_does_not_exist_is_refused_at_the_requirement():
    issues = config_issues(stack([req("topology.kubernetes.io/region", "In", "us-east-1"), req("example.com/team", "In", "a"),
                                  req("topology.kubernetes.io/region", "NotIn", "us-east-1")]))
    (path, message), = issues
    assert path == "pools[0].requirements[2]"
    assert message.startswith("requirements[0] topology.kubernetes.io/region In [us-east-1], requirements[2] "
                              "topology.kubernetes.io/region NotIn [us-east-1]: Karpenter reduces these requirements to "
                              "DoesNotExist without an error")
    assert "pkg/scheduling/requirement.go" in message and "the NodePool launches no node" in message
    assert "so that some value meets them all (e.g. drop requirements[2])" in message
    (path, message), = config_issues(stack([req("kubernetes.io/os", "Exists"), req("kubernetes.io/os", "DoesNotExist")]))
    assert path == "pools[0].requirements[1]" and "every instance type or offering carries kubernetes.io/os" in message


def test_a_custom_key_reduced_to_does_not_exist_is_a_warning_that_the_nodes_never_carry_it():
    for pair in ([req("example.com/x", "In", "a"), req("example.com/x", "NotIn", "a")],
                 [req("example.com/x", "Gt", "5"), req("example.com/x", "Lt", "3")]):
        pool = validate_stack_config(stack(pair)).pools[0]
        (found,) = [(at, w) for at, w in pool.config_warnings() if "DoesNotExist" in w]
        assert found[0] == "requirements[1]"
        assert found[1].startswith("Karpenter reduces these requirements to DoesNotExist: the pool's nodes never carry "
                                   "example.com/x (requirements[0] example.com/x ")
        assert "pkg/scheduling/requirement.go" in found[1] and "drop requirements[1]" in found[1]
    overlapping = validate_stack_config(stack([req("example.com/x", "In", "a", "b"), req("example.com/x", "NotIn", "b")]))
    assert not [w for _, w in overlapping.pools[0].config_warnings() if "DoesNotExist" in w]
