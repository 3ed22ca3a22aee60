"""A karpenter pool's config warnings are every NodePool pool's warnings (zones, the GPU limit, startup taints: the
same as an eks-auto pool's) extended with its own (AMI alias, catalog, EFA, NodeOverlay): each said once, none lost,
and a warning added for every NodePool pool reaches the karpenter backend too."""

from __future__ import annotations

from collections import Counter
from typing import Any

from gpu_node_pool.backends._shared.nodepool_config import NodePoolBase
from gpu_node_pool.backends._shared.nodepool_startup import StartupTaintsPool
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.config.warnings import stack_warnings

ZONE = "topology.kubernetes.io/zone"
CLUSTER = {"name": "ml-prod", "nodeRoleArn": "arn:aws:iam::444455556666:role/ml-prod-gpu-node",
           "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}
POOL = {"name": "burst", "backend": "karpenter", "instanceFamilies": ["g6e"], "nodeClass": {},
        "taints": ["nvidia.com/gpu=present:NoSchedule"]}


def karpenter_pool(**fields: Any) -> Any:
    """A karpenter pool with one warning of each kind a NodePool pool and the karpenter backend give."""
    pool = {**POOL, "instanceFamilies": None, "instanceTypes": ["g6e.2xlarge", "g6.3xlarge"],
            "allowUnknownInstanceTypes": True,  # the catalog's warning
            "limits": {"nvidia.com/gpu": "2k"},  # the GPU limit's
            "requirements": [{"key": ZONE, "operator": "NotIn", "values": ["eu-west-1a"]}],  # the zones'
            "startupTaints": [{"key": "example.com/boot", "effect": "NoSchedule"}],  # the startup taints'
            "nodeClass": {"amiAlias": "bottlerocket@1.42.0-a1b2c3d4"}}  # the AMI alias's
    pool = {k: v for k, v in {**pool, **fields}.items() if v is not None}
    return validate_stack_config({"cluster": CLUSTER, "pools": [pool]}, aws_region="us-east-1").pools[0]


def test_every_warning_is_said_once_and_the_shared_ones_are_all_there():
    pool = karpenter_pool()
    warnings = pool.config_warnings()
    assert [w for w, n in Counter(warnings).items() if n > 1] == []
    shared = StartupTaintsPool.config_warnings(pool)
    assert {path for path, _ in shared} == {"requirements[0].values", "limits", "startupTaints[0]"}
    assert all(warnings.count(w) == 1 for w in shared)
    own = {path for path, _ in warnings} - {path for path, _ in shared}
    assert {"nodeClass.amiAlias", "instanceTypes"} <= own
    assert warnings[0][0] == "nodeClass.amiAlias"  # the backend's first warning stays first


def test_the_stack_warnings_of_a_karpenter_pool_name_each_path_once():
    stack = validate_stack_config({"cluster": CLUSTER, "pools": [{
        **POOL, "limits": {"nvidia.com/gpu": "2k"},
        "requirements": [{"key": ZONE, "operator": "NotIn", "values": ["eu-west-1a"]}]}]}, aws_region="us-east-1")
    paths = [w.path for w in stack_warnings(stack)]
    assert paths.count("pools[0].requirements[0].values") == 1, paths
    assert paths.count("pools[0].limits") == 1, paths


def test_a_warning_every_nodepool_pool_gets_reaches_the_karpenter_pool(monkeypatch):
    """The karpenter pool's warnings are its parents' list plus its own, so a NodePool warning added in
    ``NodePoolBase`` is the karpenter pool's too, once."""
    added = ("weight", "a warning of every NodePool pool")
    shared = NodePoolBase.config_warnings
    monkeypatch.setattr(NodePoolBase, "config_warnings", lambda self: [*shared(self), added])
    warnings = karpenter_pool().config_warnings()
    assert warnings.count(added) == 1, warnings
