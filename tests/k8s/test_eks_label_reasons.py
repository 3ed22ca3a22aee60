"""An EKS managed node group's reserved-label refusal gives the reason that holds for its key: NodeRestriction only
where the kubelet may not set the label (the table the self-managed backend words its refusals from)."""

import pytest

from gpu_node_pool.k8s.labels import (
    EKS_RESERVED_LABEL_ANSWER,
    EKS_RESERVED_LABEL_SOURCE,
    KUBELET_ALLOWED_LABELS,
    NODE_RESTRICTION_DOC,
    eks_label_problem,
    node_restriction_problem,
)


@pytest.mark.parametrize("key", sorted(KUBELET_ALLOWED_LABELS) + ["node.kubernetes.io/lifecycle"])
def test_a_label_the_kubelet_may_set_is_not_blamed_on_node_restriction(key):
    assert node_restriction_problem(key) is None  # the self-managed backend accepts it
    problem = eks_label_problem(key, "v")
    assert problem and EKS_RESERVED_LABEL_ANSWER in problem and EKS_RESERVED_LABEL_SOURCE in problem
    assert "NodeRestriction would let the kubelet set it" in problem
    assert "fail to join" not in problem


def test_zone_label_points_to_selecting_on_it_and_to_subnets():
    problem = eks_label_problem("topology.kubernetes.io/zone", "us-east-1a")
    assert problem.startswith("label 'topology.kubernetes.io/zone' is in the kubernetes.io domain")
    assert "already set it on every node" in problem and "subnetIds" in problem


def test_eks_domain_names_eks_own_labels_not_node_restriction():
    problem = eks_label_problem("eks.amazonaws.com/nodegroup", "x")
    assert problem.startswith("label 'eks.amazonaws.com/nodegroup' is in the eks.amazonaws.com domain")
    assert EKS_RESERVED_LABEL_ANSWER in problem and EKS_RESERVED_LABEL_SOURCE in problem
    assert "NodeRestriction" not in problem and NODE_RESTRICTION_DOC not in problem


@pytest.mark.parametrize("key", ["node-role.kubernetes.io/gpu", "kubernetes.io/role", "k8s.io/x"])
def test_a_label_the_kubelet_refuses_names_both_reasons(key):
    assert node_restriction_problem(key) is not None
    problem = eks_label_problem(key, "v")
    assert EKS_RESERVED_LABEL_ANSWER in problem and NODE_RESTRICTION_DOC in problem and "fail to join" in problem
    assert "example.com/role=gpu" in problem
