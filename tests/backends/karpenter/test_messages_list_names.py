"""Karpenter's messages name several instance types, taints, labels or capacity types as the rest of the product
does (``a, b and 3 more``), never as a Python list (``['p5.48xlarge']``)."""

from __future__ import annotations

import re
from typing import Any

from builders import config_error_text
from conftest import base

from gpu_node_pool.backends.karpenter import node_overlay
from gpu_node_pool.backends.karpenter.render import nodepool_manifest
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.config.warnings import stack_warnings
from gpu_node_pool.text.listing import listed, listed_counts

EKS = {"name": "ml", "nodeRoleArn": "arn:aws:iam::123456789012:role/n", "karpenterVersion": "1.14"}


def karpenter(**kw: Any) -> dict[str, Any]:
    pool = {"name": "burst", "backend": "karpenter", "instanceFamilies": ["g6e"], "nodeClass": {},
            "limits": {"nvidia.com/gpu": 64}} | kw
    return {"cluster": EKS, "pools": [pool]}


def no_python_list(text: str) -> bool:
    """No ``['a', ...]`` or ``{'a': ...}`` (a path such as ``limits['nvidia.com/gpu']`` is not a list)."""
    return re.search(r"(^|[\s(])[\[{]'", text) is None


def test_listed_joins_names_and_says_how_many_more():
    assert listed(["g6.xlarge"]) == "g6.xlarge"
    assert listed(["g6.xlarge", "g6.2xlarge", "g6.4xlarge"], 2) == "g6.xlarge, g6.2xlarge and 1 more"
    assert listed(["ON_DEMAND", "SPOT"], quote=True) == "'ON_DEMAND', 'SPOT'"
    assert listed_counts({"p5en.48xlarge": 16, "p5.48xlarge": 32}) == "p5.48xlarge: 32, p5en.48xlarge: 16"


def test_the_mixed_mig_sentence_names_the_types_without_list_syntax():
    pool = {"name": "burst", "backend": "karpenter", "instanceFamilies": ["p5"], "gpuCounts": [8], "nodeClass": {},
            "limits": {"nvidia.com/gpu": 64}, "mig": {"strategy": "mixed", "profile": "1g.10gb"},
            "nodeOverlay": {"enabled": True}}
    stack = validate_stack_config({"cluster": EKS, "devicePlugin": {"provider": "gpu-operator"}, "pools": [pool]})
    p = stack.pools[0]
    view = node_overlay.karpenter_view(p, nodepool_manifest(p, stack.cluster),
                                       [(o["metadata"]["name"], o) for o in node_overlay.manifests(p)])
    (sentence,) = view["differs"]
    assert " on p5.48xlarge while the node advertises " in sentence and no_python_list(sentence)
    warnings = " ".join(w.message for w in stack_warnings(stack))
    assert " on p5.48xlarge while " in warnings and no_python_list(warnings)


def test_a_time_sliced_overlay_names_four_types_and_how_many_more():
    sentence = node_overlay.differs_sentence(
        None, {"nvidia.com/gpu": 1}, {"nvidia.com/gpu": 4},
        ["g6.xlarge", "g6.2xlarge", "g6.4xlarge", "g6.8xlarge", "g6.12xlarge", "g6.16xlarge"])
    assert sentence is not None
    assert " on g6.12xlarge, g6.16xlarge, g6.2xlarge, g6.4xlarge and 2 more while " in sentence


def test_capacity_types_are_named_quoted_and_joined():
    text = config_error_text(karpenter(capacityTypes=["ON_DEMAND", "SPOT"]))
    assert "'ON_DEMAND', 'SPOT' are not capacity types; allowed: " in text and no_python_list(text)
    text = config_error_text(karpenter(capacityTypes=["spot", "spot"]))
    assert "lists 'spot' more than once; list each capacity type once" in text


def test_efa_types_and_counts_are_named_without_list_syntax():
    efa = {"enabled": True, "placementGroup": {"name": "pg"}}
    cfg = base()
    cfg["pools"] = [{"name": "train", "backend": "karpenter", "instanceFamilies": ["g6e", "g6", "g5"], "nodeClass": {},
                     "zones": ["us-east-1a"], "limits": {"nvidia.com/gpu": 64}, "efa": efa}]
    text = config_error_text(cfg)
    assert "efa: the NodePool can launch " in text and " more) with 0 or no sourced EFA interfaces" in text
    assert no_python_list(text)
    cfg["pools"][0] |= {"instanceFamilies": None, "instanceTypes": ["p5.48xlarge", "p5en.48xlarge"]}
    cfg["pools"][0] = {k: v for k, v in cfg["pools"][0].items() if v is not None}
    text = config_error_text(cfg)
    assert "different EFA interface counts (p5.48xlarge: " in text and no_python_list(text)


def test_the_user_data_taints_and_the_label_keys_are_named_without_list_syntax():
    user_data = "#!/bin/bash\n/etc/eks/bootstrap.sh ml --kubelet-extra-args '--register-with-taints=a=b:NoSchedule'\n"
    text = config_error_text(karpenter(nodeClass={"userData": user_data}, taints=["nvidia.com/gpu=present:NoSchedule"]))
    assert "without the NodePool's taints nvidia.com/gpu=present:NoSchedule: " in text and no_python_list(text)
    cfg = karpenter(labels={"node-role.kubernetes.io/gpu": "true", "kubernetes.io/role": "gpu"})
    cfg["cluster"] = EKS | {"karpenterVersion": "1.8"}
    text = config_error_text(cfg)
    assert "labels kubernetes.io/role, node-role.kubernetes.io/gpu: cluster.karpenterVersion '1.8'" in text
    assert no_python_list(text)


def test_an_overlaid_limit_names_the_types_without_list_syntax():
    pool = {"instanceFamilies": ["g6e"], "gpuCounts": [8], "limits": {"nvidia.com/gpu": 8},
            "gpuSharing": {"strategy": "timeSlicing", "replicas": 4}, "nodeOverlay": {"enabled": True}}
    text = config_error_text(karpenter(**pool))
    assert "nodeOverlay: limits.nvidia.com/gpu is 8 but a node of g6e.48xlarge counts 32" in text, text
    assert no_python_list(text)
