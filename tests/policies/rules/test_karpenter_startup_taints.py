"""Policy karpenter-startup-taints: Karpenter GPU NodePools declare the boot taints of the agents the stack installs."""

from __future__ import annotations

import pytest
from builders import GPU, daemonset, karpenter_pool, node_group, run

from gpu_node_pool.config import ConfigError, validate_stack_config
from gpu_node_pool.k8s.startup_taints import AGENTS, is_karpenter_ephemeral, startup_taints_for
from gpu_node_pool.k8s.taints import Taint
from gpu_node_pool.policies import StackResource
from gpu_node_pool.policies import rules as d


def chart(name: str, chart_ref: str) -> StackResource:
    return StackResource("kubernetes:helm.sh/v4:Chart", name, {"chart": chart_ref, "namespace": "kube-system"})


def with_startup(pool: StackResource, *taints: str) -> StackResource:
    pool.inputs["spec"]["template"]["spec"]["startupTaints"] = [Taint.parse(t).to_k8s() for t in taints]
    return pool


def test_cilium_without_the_startup_taint_is_the_duplicate_launch_of_6355():
    (found,) = run(d.karpenter_startup_taints.POLICY, [karpenter_pool(taints=(GPU,)), chart("cilium", "cilium")])
    assert "node.cilium.io/agent-not-ready" in found["message"] and "duplicate GPU nodes" in found["message"]
    assert "startupTaintsFor: [cilium]" in found["message"] and found["enforcement"] == "advisory"


def test_declared_entries_pass_and_value_and_effect_do_not_matter():
    pool = with_startup(karpenter_pool(taints=(GPU,)), "node.cilium.io/agent-not-ready:NoSchedule")
    assert run(d.karpenter_startup_taints.POLICY, [pool, chart("cilium", "oci://quay.io/cilium/charts/cilium")]) == []


def test_ebs_add_on_and_istio_image_are_recognised_and_non_karpenter_pools_are_skipped():
    addon = StackResource("aws:eks/addon:Addon", "ebs", {"addonName": "aws-ebs-csi-driver", "clusterName": "c"})
    istio = daemonset("istio-cni-node", "istio-system", image="docker.io/istio/install-cni:1.30.3")
    found = run(d.karpenter_startup_taints.POLICY, [karpenter_pool(taints=(GPU,)), addon, istio])
    assert {f["message"].split("installs ")[1].split(",")[0] for f in found} == {"ebs-csi", "istio-cni"}
    assert all("race" in f["message"] for f in found)
    assert run(d.karpenter_startup_taints.POLICY, [node_group(), addon, istio]) == []
    assert run(d.karpenter_startup_taints.POLICY, [karpenter_pool(taints=(GPU,))]) == []


def test_the_table_lists_no_ephemeral_and_no_permanent_gpu_taint():
    assert not any(is_karpenter_ephemeral(a.entry) or a.entry.key == "nvidia.com/gpu" for a in AGENTS)
    assert [str(t) for t in startup_taints_for(["cilium", "ebs-csi", "cilium"])] == [
        "node.cilium.io/agent-not-ready=true:NoExecute", "ebs.csi.aws.com/agent-not-ready:NoExecute"]


def _karpenter_stack(**pool) -> dict:
    return {"cluster": {"name": "ml", "nodeRoleArn": "arn:aws:iam::111122223333:role/n"},
            "pools": [{"name": "train", "backend": "karpenter", "instanceFamilies": ["g6"],
                       "limits": {"nvidia.com/gpu": 8}, "nodeClass": {}, **pool}]}


def test_startup_taints_for_fills_the_nodepool_and_bad_names_or_the_gpu_taint_are_refused():
    from gpu_node_pool.backends.karpenter.render import nodepool_manifest

    stack = validate_stack_config(_karpenter_stack(startupTaintsFor=["cilium", "ebs-csi"],
                                                   startupTaints=["ebs.csi.aws.com/agent-not-ready:NoExecute"]))
    spec = nodepool_manifest(stack.pools[0], stack.cluster)["spec"]["template"]["spec"]
    assert [t["key"] for t in spec["startupTaints"]] == ["ebs.csi.aws.com/agent-not-ready", "node.cilium.io/agent-not-ready"]
    with pytest.raises(ConfigError) as err:
        validate_stack_config(_karpenter_stack(startupTaintsFor=["calico"]))
    assert "pools[0].startupTaintsFor" in str(err.value) and "cilium" in str(err.value)
    with pytest.raises(ConfigError) as err:
        validate_stack_config(_karpenter_stack(taints=["dedicated=gpu:NoSchedule"],
                                               startupTaints=["nvidia.com/gpu=present:NoSchedule"]))
    assert "permanent" in str(err.value) and "put it in taints" in str(err.value)
