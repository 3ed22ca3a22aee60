"""A NodePool read once per resource (kept in the runner's per-resource cache) still gives every caller its
own pool, completed from that caller's view of the stack: the resource policies' (no node classes) and the
stack's (node classes and their user data)."""

from __future__ import annotations

from gpu_node_pool.backends.karpenter.detect import NodeClassBootstrap, detect
from gpu_node_pool.sdk.policy_props import policy_props
from gpu_node_pool.sdk.props import derived

NODEPOOL = "kubernetes:karpenter.sh/v1:NodePool"


def _nodepool(taint: str = "nvidia.com/gpu") -> dict:
    return {
        "metadata": {"name": "gpu"},
        "spec": {"template": {"metadata": {"labels": {"team": "a"}}, "spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu-class"},
            "taints": [{"key": taint, "value": "present", "effect": "NoSchedule"}],
            "requirements": [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6"]}],
        }}},
    }


USER_DATA = """apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  kubelet:
    flags:
      - --register-with-taints=hidden=x:NoSchedule
      - --node-labels=from-user-data=yes
"""


def test_each_caller_gets_its_own_pool_from_one_reading():
    props = policy_props(_nodepool())
    assert derived(props) is not None  # the runner's proxies offer the cache this test is about
    alone = detect(NODEPOOL, props, "gpu", "urn:gpu", {})
    stack = {"node_classes": {"gpu-class": True},
             "node_class_bootstraps": {"gpu-class": NodeClassBootstrap("al2023", USER_DATA)}}
    whole = detect(NODEPOOL, props, "gpu", "urn:gpu", stack)
    again = detect(NODEPOOL, props, "gpu", "urn:gpu", {})
    assert not alone.ships_own_device_plugin and whole.ships_own_device_plugin
    assert [str(t) for t in alone.taints] == ["nvidia.com/gpu=present:NoSchedule"]
    assert [str(t) for t in whole.taints] == ["nvidia.com/gpu=present:NoSchedule", "hidden=x:NoSchedule"]
    assert "from-user-data" in whole.labels and "from-user-data" not in alone.labels
    assert again.taints == alone.taints and again.labels == alone.labels and "hidden_registration_taints" not in again.extra
    assert again.taints is not alone.taints and again.labels is not alone.labels  # the stack's reading adds to its own


def test_another_resource_is_read_on_its_own():
    one, other = policy_props(_nodepool()), policy_props(_nodepool("other"))
    assert [t.key for t in detect(NODEPOOL, one, "a", "", {}).taints] == ["nvidia.com/gpu"]
    assert [t.key for t in detect(NODEPOOL, other, "b", "", {}).taints] == ["other"]
    cpu = _nodepool()
    cpu["spec"]["template"]["spec"]["requirements"][0]["values"] = ["m5"]
    assert detect(NODEPOOL, policy_props(cpu), "c", "", {}) is None
