"""The SDK's own schema inference (``pulumi.provider.experimental``'s analyzer), run in-process on the
provider: what ``pulumi package add`` would receive from ``GetSchema`` and generate an SDK from."""

from __future__ import annotations

import pytest

from gpu_node_pool.k8s.taints import TaintEffect
from gpu_node_pool.k8s.wellknown import (
    DCGM_EXPORTER_TYPE,
    EFA_DEVICE_PLUGIN_TYPE,
    GPU_NODE_POOL_TYPE,
    GPU_OPERATOR_TYPE,
    NVIDIA_DEVICE_PLUGIN_TYPE,
)
from gpu_node_pool.registry import all_backends


@pytest.fixture(scope="module")
def schema():
    from gpu_node_pool.provider.host import schema

    return schema()


def _type(schema, ref: str) -> dict:
    return schema["types"][ref.removeprefix("#/types/")]


def test_every_component_is_a_resource_under_its_python_type_token(schema):
    from gpu_node_pool.admission.component import TYPE_TOKEN as ADMISSION_TYPE

    tokens = {GPU_NODE_POOL_TYPE, NVIDIA_DEVICE_PLUGIN_TYPE, GPU_OPERATOR_TYPE, DCGM_EXPORTER_TYPE,
              EFA_DEVICE_PLUGIN_TYPE, ADMISSION_TYPE}
    assert set(schema["resources"]) == tokens
    assert all(schema["resources"][t]["isComponent"] for t in tokens)


def test_the_package_is_named_as_the_type_tokens_and_versioned_from_version_py(schema):
    from gpu_node_pool._version import __version__

    assert schema["name"] == GPU_NODE_POOL_TYPE.split(":")[0] == "gpu-node-pools"
    assert schema["version"] == __version__


def test_pool_backend_is_an_enum_of_every_registered_backend(schema):
    pool_ref = schema["resources"][GPU_NODE_POOL_TYPE]["inputProperties"]["pool"]["$ref"]
    pool = _type(schema, pool_ref)
    backend = _type(schema, pool["properties"]["backend"]["$ref"])
    assert backend["type"] == "string"
    assert [e["value"] for e in backend["enum"]] == [b.name for b in all_backends()]
    assert set(pool["required"]) == {"name", "backend"}


def test_taints_are_a_typed_list_of_objects_whose_effect_is_an_enum(schema):
    pool = _type(schema, schema["resources"][GPU_NODE_POOL_TYPE]["inputProperties"]["pool"]["$ref"])
    taints = pool["properties"]["taints"]
    assert taints["type"] == "array"
    taint = _type(schema, taints["items"]["$ref"])
    assert set(taint["properties"]) == {"key", "value", "effect"}
    assert taint["properties"]["key"]["type"] == "string"
    effect = _type(schema, taint["properties"]["effect"]["$ref"])
    assert [e["value"] for e in effect["enum"]] == [e.value for e in TaintEffect]


def test_each_backend_block_holds_its_own_fields_typed(schema):
    pool = _type(schema, schema["resources"][GPU_NODE_POOL_TYPE]["inputProperties"]["pool"]["$ref"])
    eks = _type(schema, pool["properties"]["eksManaged"]["$ref"])
    assert eks["properties"]["instanceTypes"]["type"] == "array"
    assert eks["properties"]["instanceTypes"]["items"]["type"] == "string"
    assert "instanceTypes" in eks["required"]
    capacity = _type(schema, eks["properties"]["capacityType"]["$ref"])
    assert {e["value"] for e in capacity["enum"]} == {"ON_DEMAND", "SPOT", "CAPACITY_BLOCK"}
    scaling = _type(schema, eks["properties"]["scaling"]["$ref"])
    assert scaling["properties"]["maxSize"]["type"] == "integer" and "maxSize" in scaling["required"]
    assert "machineType" not in eks["properties"]  # gke's field is in the gke block only
    gke = _type(schema, pool["properties"]["gke"]["$ref"])
    assert "machineType" in gke["properties"] and "instanceTypes" not in gke["properties"]


def test_only_the_cluster_identity_takes_outputs_every_judged_value_is_plain(schema):
    inputs = schema["resources"][GPU_NODE_POOL_TYPE]["inputProperties"]
    cluster = _type(schema, inputs["cluster"]["$ref"])
    assert "plain" not in cluster["properties"]["name"]  # cluster.name may be an EKS cluster's output
    assert "plain" not in cluster["properties"]["subnetIds"]
    assert cluster["properties"]["kubernetesVersion"].get("plain") is True
    assert inputs["pool"]["plain"] is True


def test_outputs_are_typed(schema):
    pool = schema["resources"][GPU_NODE_POOL_TYPE]["properties"]
    tolerations = pool["workloadTolerations"]
    assert tolerations["type"] == "array"
    toleration = _type(schema, tolerations["items"]["$ref"])
    assert {"key", "operator", "value", "effect", "tolerationSeconds"} == set(toleration["properties"])
    assert pool["workloadNodeSelector"]["additionalProperties"]["type"] == "string"
    for name in ("nodeGroupName", "nodePoolName", "nodepoolName", "taints", "labels"):
        assert name in pool, name
    for token in (NVIDIA_DEVICE_PLUGIN_TYPE, GPU_OPERATOR_TYPE, DCGM_EXPORTER_TYPE, EFA_DEVICE_PLUGIN_TYPE):
        agent = schema["resources"][token]["properties"]
        assert agent["namespace"]["type"] == "string", token
        assert agent["tolerations"]["items"]["$ref"] == tolerations["items"]["$ref"], token


def test_the_config_models_descriptions_reach_the_schema(schema):
    pool = _type(schema, schema["resources"][GPU_NODE_POOL_TYPE]["inputProperties"]["pool"]["$ref"])
    assert "lower-case DNS label" in pool["properties"]["name"]["description"]
