"""Construct's arguments judged before the SDK maps them: a taint written as the Python and stack-file string is
refused with the object to write (README, "Every Pulumi language": the string is Python and stack-file only), a
block of another backend is named before that block's own required fields, and the schema describes what the
provider takes (the taint object, Karpenter limits as quantity strings)."""

from __future__ import annotations

import pytest
from pulumi.errors import InputPropertiesError
from typescript_inputs import wire

from gpu_node_pool.plan.run import record

CLUSTER = {"name": "ml-dev", "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-dev-gpu-node",
           "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}
EKS = {"instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 4}}
KARPENTER = {"instanceFamilies": ["g6"], "limits": {"nvidia.com/gpu": "16"}, "nodeClass": {"role": "KarpenterNodeRole"}}


@pytest.fixture(scope="module")
def provider():
    from gpu_node_pool.provider.host import GpuNodePoolsProvider

    return GpuNodePoolsProvider()


def _construct(provider, pool: dict):
    registered: list = []
    construct = lambda: provider.construct("inference", "gpu-node-pools:index:GpuNodePool",  # noqa: E731
                                           wire({"cluster": CLUSTER, "pool": pool}), None)
    try:
        record(construct, sink=registered)
    except InputPropertiesError as err:
        assert [r for r in registered if r.name == "inference"] == []  # refused before anything registered
        return err
    return registered


def test_a_taint_string_is_refused_with_the_object_to_write(provider):
    pool = {"name": "inference", "backend": "eks-managed", "taints": ["nvidia.com/gpu=present:NoSchedule"],
            "eksManaged": EKS}
    err = _construct(provider, pool)
    assert isinstance(err, InputPropertiesError)
    (error,) = err.errors
    assert error["property_path"] == "pool.taints[0]"
    assert "taken only by Python (GpuNodePoolArgs) and the stack file" in error["reason"]
    assert error["reason"].endswith("write {key: nvidia.com/gpu, value: present, effect: NoSchedule}")
    assert "Missing required input" not in str(err)


def test_a_startup_taint_string_without_value_is_refused_with_its_object(provider):
    pool = {"name": "burst", "backend": "karpenter",
            "karpenter": {**KARPENTER, "startupTaints": ["node.cilium.io/agent-not-ready:NoExecute"]}}
    (error,) = _construct(provider, pool).errors
    assert error["property_path"] == "pool.karpenter.startupTaints[0]"
    assert error["reason"].endswith("write {key: node.cilium.io/agent-not-ready, effect: NoExecute}")


@pytest.mark.parametrize("block, fields", [("karpenter", {"instanceFamilies": ["g6"]}),
                                           ("gke", {"machineType": "g2-standard-8"})])
def test_a_block_of_another_backend_is_named_before_its_own_missing_fields(provider, block, fields):
    pool = {"name": "inference", "backend": "eks-managed", block: fields}
    (error,) = _construct(provider, pool).errors
    assert error["property_path"] == f"pool.{block}"
    assert error["reason"] == (f"is the {block} block, but backend is 'eks-managed'; move these fields to the "
                               f"eksManaged block or set backend: {block}")


def test_a_63_character_karpenter_pool_name_is_taken(provider):
    registered = _construct(provider, {"name": "gpu-" + "x" * 59, "backend": "karpenter", "karpenter": KARPENTER})
    assert any(r.type == "kubernetes:karpenter.sh/v1:NodePool" for r in registered), registered


def test_the_schema_describes_the_taint_object_and_quantity_strings():
    from gpu_node_pool.provider.host import schema

    types = schema()["types"]
    taint = types["gpu-node-pools:index:TaintArgs"]["description"]
    assert taint.startswith("One taint, the object {key, value, effect}")
    assert "the string key=value:Effect is taken only by Python and the stack file" in taint
    limits = types["gpu-node-pools:index:KarpenterPoolArgs"]["properties"]["limits"]
    assert limits["additionalProperties"]["type"] == "string"
    assert '{nvidia.com/gpu: "32"}' in limits["description"]
