"""Policy ``registration-taints-visible``: taints a managed node group's nodes register that the
node group does not declare (issue 16 §3).

A launch template attached to an ``aws.eks.NodeGroup`` can add ``--register-with-taints`` through
its user data (a ``sed`` on ``KUBELET_EXTRA_ARGS`` in ``/etc/eks/bootstrap.sh``, a nodeadm
``NodeConfig`` ``spec.kubelet.config.registerWithTaints`` in a MIME part, Bottlerocket
``settings.kubernetes.node-taints``). The taint is then on every node but not in the node group's
``taints``: EKS does not know it, Cluster Autoscaler's scale-from-zero template (built from the
node group through ``DescribeNodegroup``) lacks it, and whoever reads the node group misses it.
The pack's other policies see it anyway (:func:`gpu_node_pool.policies.pools.find_gpu_pools`
adds registration taints to the pool). Sources: ``facts/aws-eks-karpenter.md`` §3 (registration
taints) and §1 (managed node group taints); the EKS user guide, "Customizing managed nodes
with launch templates" (EKS merges its bootstrap part when the template names no AMI).
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, StackValidationArgs, StackValidationPolicy

from ...sdk.props import Undecided
from ._shared import _stack_pools


def validate_registration_taints_visible(args: StackValidationArgs, report: ReportViolation) -> None:
    """Report each taint a managed node group's launch template registers but the node group does not declare."""
    undecided = Undecided()
    for pool in _stack_pools(args, undecided):
        for taint, lt in pool.extra.get("hidden_registration_taints", []):
            report(
                f"{pool.display}: its launch template {lt.name!r} registers the taint {taint} through the kubelet "
                f"(user data), but the node group does not declare it. The nodes carry it; EKS, Cluster Autoscaler's "
                f"scale-from-zero template and anyone reading the node group do not see it. Declare {taint} in the "
                "node group's taints (GpuNodePool taints) and remove it from the user data.",
                pool.urn or None,
            )
    undecided.raise_if_any()


POLICY = StackValidationPolicy(
    name="registration-taints-visible",
    description="Taints a managed node group's launch template user data registers must be declared on the node group.",
    validate=validate_registration_taints_visible,
    enforcement_level=EnforcementLevel.MANDATORY,
    remediation_steps=(
        "Move --register-with-taints / registerWithTaints / node-taints from the launch template user data to "
        "the node group's taints (GpuNodePool taints), where EKS and Cluster Autoscaler see them."
    ),
)
