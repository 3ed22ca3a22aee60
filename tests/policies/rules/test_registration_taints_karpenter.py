"""Policy registration-taints-visible for hand-written Karpenter NodePools: the taints their EC2NodeClass's
``spec.userData`` registers are read (linked by ``nodeClassRef.name``), join the pool's taints for every rule
when they reach the nodes, are reported as dropped when Karpenter replaces them with the NodePool's
(aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/bottlerocket.go and nodeadm.go@v1.14.1), and
user data that cannot be read or seen is reported as not judged, never passed."""

from __future__ import annotations

import pytest
from builders import EXISTS_GPU, GPU, cannot_run, daemonset, karpenter_pool, run
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

from gpu_node_pool.policies import StackResource
from gpu_node_pool.policies import rules as d

NODECLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"


def nodeadm(kubelet: str) -> str:
    return ("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\n"
            "Content-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n"
            f"spec:\n  kubelet:\n{kubelet}--//--\n")


#: nodeadm kubelet flags: a flag overrides the config file Karpenter writes, so the node registers it.
FLAG = nodeadm("    flags:\n      - --register-with-taints=dedicated=ml:NoSchedule\n")
FLAG_BOTH = nodeadm(f"    flags:\n      - --register-with-taints={GPU},dedicated=ml:NoSchedule\n")
#: a NodeConfig registerWithTaints: Karpenter's own NodeConfig (last part) replaces it.
CONFIG = nodeadm("    config:\n      registerWithTaints:\n        - {key: dedicated, value: ml, effect: NoSchedule}\n")
TOML = '[settings.kubernetes.node-taints]\n"dedicated" = ["ml:NoSchedule"]\n[settings.kubernetes.node-labels]\n"team" = "ml"\n'
CUSTOM = "#!/bin/bash\n/etc/eks/bootstrap.sh ml-prod --kubelet-extra-args '--register-with-taints=dedicated=ml:NoSchedule'\n"
SED = ("#!/bin/bash\nsed -i '/^KUBELET_EXTRA_ARGS=/a KUBELET_EXTRA_ARGS+=\" --register-with-taints=dedicated=ml:NoSchedule\"' "
       "/etc/eks/bootstrap.sh\n")


def node_class(user_data, name="default", alias="al2023@latest", family=None) -> StackResource:
    spec = {"role": "KarpenterNodeRole", "amiSelectorTerms": [{"alias": alias}] if alias else [{"id": "ami-0123"}],
            "userData": user_data}
    if family:
        spec["amiFamily"] = family
    return StackResource(NODECLASS, f"{name}-class", {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
                                                      "metadata": {"name": name}, "spec": spec},
                         urn=f"urn:pulumi:s::p::{NODECLASS}::{name}-class")


GPU_ONLY = daemonset("node-exporter", "monitoring", tolerations=[EXISTS_GPU])


@pytest.mark.parametrize(("user_data", "alias", "family"), [(FLAG, "al2023@latest", None), (CUSTOM, None, "Custom")],
                         ids=["nodeadm-kubelet-flag", "custom-family-script"])
def test_a_taint_user_data_registers_on_the_nodes_is_reported_and_judged_by_every_rule(user_data, alias, family):
    stack = [karpenter_pool(taints=(GPU,)), node_class(user_data, alias=alias, family=family), GPU_ONLY]
    (found,) = run(d.registration_taints_visible.POLICY, stack)
    assert "EC2NodeClass 'default' (spec.userData) registers the taint dedicated=ml:NoSchedule" in found["message"]
    assert "the NodePool does not declare it" in found["message"] and "Karpenter's scheduling simulation" in found["message"]
    assert found["enforcement"] == "mandatory"
    # the DaemonSet tolerating only the GPU taint does not run on these nodes
    (missing,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, stack)
    assert "dedicated=ml:NoSchedule" in missing["message"] and "node-exporter" in missing["message"]
    assert run(d.daemonsets_tolerate_gpu_taints.POLICY, [karpenter_pool(taints=(GPU,)), GPU_ONLY]) == []


@pytest.mark.parametrize(("user_data", "alias"), [(TOML, "bottlerocket@latest"), (CONFIG, "al2023@latest")],
                         ids=["bottlerocket-node-taints", "nodeadm-registerWithTaints"])
def test_a_taint_karpenter_replaces_is_reported_as_dropped_and_asks_no_toleration(user_data, alias):
    stack = [karpenter_pool(taints=(GPU,)), node_class(user_data, alias=alias), GPU_ONLY]
    (found,) = run(d.registration_taints_visible.POLICY, stack)
    assert "registers the taint dedicated=ml:NoSchedule" in found["message"]
    assert "the nodes do not carry it" in found["message"] and "bottlerocket.go" in found["message"]
    assert run(d.daemonsets_tolerate_gpu_taints.POLICY, stack) == []


def test_a_taint_the_nodepool_declares_is_no_finding_and_another_class_is_not_linked():
    declared = karpenter_pool(taints=(GPU, "dedicated=ml:NoSchedule"))
    for stack in ([declared, node_class(FLAG)], [karpenter_pool(taints=(GPU,)), node_class(FLAG, name="other"),
                                                 node_class("", name="default")]):
        assert run(d.registration_taints_visible.POLICY, stack) == [] == cannot_run(d.registration_taints_visible.POLICY, stack)


def test_user_data_the_reader_cannot_follow_is_reported_as_not_readable():
    stack = [karpenter_pool(taints=(GPU,)), node_class(SED, alias=None, family="Custom")]
    assert run(d.registration_taints_visible.POLICY, stack) == []
    (found,) = cannot_run(d.registration_taints_visible.POLICY, stack)
    assert "registration taints in user data not readable" in found["message"]
    assert "sed -i" in found["message"] and "EC2NodeClass 'default'" in found["message"]


def test_user_data_unknown_at_preview_is_not_judged():
    stack = [karpenter_pool(taints=(GPU,)), node_class(UNKNOWN_STRING_VALUE)]
    assert run(d.registration_taints_visible.POLICY, stack) == []
    (found,) = cannot_run(d.registration_taints_visible.POLICY, stack)
    assert "not judged" in found["message"] and "unknown at preview" in found["message"]
    assert "EC2NodeClass 'default'" in found["message"]


def test_a_node_class_not_among_the_resources_is_not_judged():
    (found,) = cannot_run(d.registration_taints_visible.POLICY, [karpenter_pool(taints=(GPU,))])
    assert "not judged" in found["message"] and "is not among the program's resources" in found["message"]


def test_labels_user_data_registers_select_the_pool():
    from gpu_node_pool.policies.pools import find_gpu_pools
    from gpu_node_pool.policies.runner import policy_resources

    (pool,) = find_gpu_pools(policy_resources([karpenter_pool(taints=(GPU,)), node_class(TOML, alias="bottlerocket@latest")]))
    assert pool.labels["team"] == "ml"
    assert [str(t) for t in pool.taints] == [GPU]


def test_the_components_own_pool_with_user_data_taints_gets_no_registration_finding():
    """The component merges userData's taints into its NodePool: nothing is hidden, dropped or unjudged."""
    from conftest import base

    from gpu_node_pool.backends.karpenter.render import ec2nodeclass_manifest, nodepool_manifest
    from gpu_node_pool.config import validate_stack_config

    for user_data, alias in ((TOML, "bottlerocket@latest"), (CONFIG, "al2023@latest"), (FLAG_BOTH, "al2023@latest")):
        cfg = base()
        cfg["pools"] = [{"name": "train", "backend": "karpenter", "instanceTypes": ["g6e.12xlarge"], "taints": [GPU],
                         "limits": {"nvidia.com/gpu": 16}, "nodeClass": {"amiAlias": alias, "userData": user_data}}]
        stack = validate_stack_config(cfg)
        pool, cluster = stack.pools[0], stack.cluster
        nodepool = StackResource("kubernetes:karpenter.sh/v1:NodePool", "train-nodepool", nodepool_manifest(pool, cluster),
                                 urn="urn:pulumi:s::p::kubernetes:karpenter.sh/v1:NodePool::train-nodepool")
        resources = [nodepool, StackResource(NODECLASS, "train-ec2nodeclass", ec2nodeclass_manifest(pool, cluster),
                                             urn=f"urn:pulumi:s::p::{NODECLASS}::train-ec2nodeclass")]
        assert run(d.registration_taints_visible.POLICY, resources) == []
        assert cannot_run(d.registration_taints_visible.POLICY, resources) == []
        (missing,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, [*resources, GPU_ONLY])
        assert missing["message"].count("dedicated=ml:NoSchedule") >= 1


def test_user_data_not_readable_carries_the_fix_the_rule_gives():
    stack = [karpenter_pool(taints=(GPU,)), node_class(SED, alias=None, family="Custom")]
    (found,) = cannot_run(d.registration_taints_visible.POLICY, stack)
    (fix,) = found["fixes"]  # what the plan's notJudged item shows
    assert fix.startswith("declare the taint in ") and "in a form the reader reads" in fix
    assert "known at preview" not in fix


def test_user_data_not_judged_carries_the_declare_fix_and_an_unknown_one_the_unknown_fix():
    (found,) = cannot_run(d.registration_taints_visible.POLICY, [karpenter_pool(taints=(GPU,))])
    assert [f.split(" in ")[0] for f in found["fixes"]] == ["declare every taint the nodes register"]
    (found,) = cannot_run(d.registration_taints_visible.POLICY, [karpenter_pool(taints=(GPU,)), node_class(UNKNOWN_STRING_VALUE)])
    assert all(isinstance(f, str) and f for f in found["fixes"])
