"""The plan's karpenter and eks-auto pool entries read the recorded NodePool's taint lists with
``nodepool_taint_lists``, the reading ``gpupool check`` gives a NodePool: what the component renders is shown as it
reads back, and a list the API server refuses is an error naming it, not a list shown some other way."""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import base

from gpu_node_pool.backends.eks_auto import BACKEND as AUTO
from gpu_node_pool.backends.eks_auto import render as auto_render
from gpu_node_pool.backends.eks_auto import summary as auto_summary
from gpu_node_pool.backends.karpenter import BACKEND as KARPENTER
from gpu_node_pool.backends.karpenter import render as karpenter_render
from gpu_node_pool.backends.karpenter import summary as karpenter_summary
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.k8s.taints import TaintError

AUTO_CLUSTER = {"name": "ml-auto", "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-auto-node",
                "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}


def karpenter() -> tuple[Any, Any, dict[str, Any]]:
    cfg = base()
    cfg["pools"] = [{"name": "train", "backend": "karpenter", "instanceTypes": ["g6e.12xlarge"], "nodeClass": {},
                     "taints": ["nvidia.com/gpu=present:NoSchedule"], "limits": {"nvidia.com/gpu": 16},
                     "startupTaints": ["node.cilium.io/agent-not-ready=true:NoExecute"]}]
    stack = validate_stack_config(cfg)
    return karpenter_summary, KARPENTER, {"pool": stack.pools[0],
                                          "inputs": karpenter_render.nodepool_manifest(stack.pools[0], stack.cluster)}


def eks_auto() -> tuple[Any, Any, dict[str, Any]]:
    stack = validate_stack_config({"cluster": AUTO_CLUSTER, "pools": [{
        "name": "inference", "backend": "eks-auto", "instanceFamilies": ["g6e"],
        "taints": ["nvidia.com/gpu=present:NoSchedule"], "limits": {"nvidia.com/gpu": 16},
        "startupTaints": ["node.cilium.io/agent-not-ready=true:NoExecute"]}]})
    return auto_summary, AUTO, {"pool": stack.pools[0],
                                "inputs": auto_render.nodepool_manifest(stack.pools[0], stack.cluster)}


def summarised(module: Any, backend: Any, pool: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    index = {(backend.child_type("nodepool"), backend.child_name("nodepool", pool.name)): SimpleNamespace(inputs=inputs)}
    entry: dict[str, Any] = {}
    module.summarise(pool, entry, index, {}, {})
    return entry


@pytest.mark.parametrize("make", [karpenter, eks_auto], ids=["karpenter", "eks-auto"])
def test_the_rendered_taints_are_shown_as_they_read_back(make):
    module, backend, made = make()
    entry = summarised(module, backend, made["pool"], made["inputs"])
    assert entry["taints"] == [str(t) for t in made["pool"].taint_list] == ["nvidia.com/gpu=present:NoSchedule"]
    assert entry["providerTaints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    assert entry["providerField"] == "NodePool spec.template.spec.taints"
    assert entry["startupTaints"] == ["node.cilium.io/agent-not-ready=true:NoExecute"]


@pytest.mark.parametrize("make", [karpenter, eks_auto], ids=["karpenter", "eks-auto"])
def test_both_nodepool_backends_show_the_startup_taints_in_the_text_plan(make):
    """An eks-auto pool's NodePool carries startupTaints as a karpenter pool's does (both render the same NodePool),
    so the plan shows them for both, and the audit, which reads a pool's declared taints from the plan entry,
    knows them for both."""
    module, backend, made = make()
    _, body = module.report(summarised(module, backend, made["pool"], made["inputs"]))
    assert ("  startup taints  node.cilium.io/agent-not-ready=true:NoExecute  (removed by an agent at boot; never "
            "tolerated by the plugin)") in body


@pytest.mark.parametrize("make", [karpenter, eks_auto], ids=["karpenter", "eks-auto"])
@pytest.mark.parametrize("value", [False, 0])
def test_a_recorded_taint_the_api_server_refuses_is_an_error_naming_it(make, value):
    module, backend, made = make()
    inputs = copy.deepcopy(made["inputs"])
    inputs["spec"]["template"]["spec"]["taints"][0]["value"] = value
    with pytest.raises(TaintError, match=rf"^spec\.template\.spec\.taints\[0\]\.value {value!r} is not a string"):
        summarised(module, backend, made["pool"], inputs)


def test_a_refused_startup_taint_is_an_error_too():
    module, backend, made = karpenter()
    inputs = copy.deepcopy(made["inputs"])
    inputs["spec"]["template"]["spec"]["startupTaints"][0]["effect"] = "NO_EXECUTE"
    with pytest.raises(TaintError, match=r"^spec\.template\.spec\.startupTaints\[0\]\.effect 'NO_EXECUTE' is the EKS"):
        summarised(module, backend, made["pool"], inputs)
