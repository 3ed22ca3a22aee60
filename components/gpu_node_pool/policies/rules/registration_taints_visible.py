"""Policy ``registration-taints-visible``: taints a managed node group's nodes register that the
node group does not declare.

A launch template attached to an ``aws.eks.NodeGroup`` can add ``--register-with-taints`` through
its user data (a ``sed`` on ``KUBELET_EXTRA_ARGS`` in ``/etc/eks/bootstrap.sh``, a nodeadm
``NodeConfig`` ``spec.kubelet.config.registerWithTaints`` in a MIME part, Bottlerocket
``settings.kubernetes.node-taints``). The taint is then on every node but not in the node group's
``taints``: EKS does not know it, Cluster Autoscaler's scale-from-zero template (built from the
node group through ``DescribeNodegroup``) lacks it, and whoever reads the node group misses it.
The pack's other policies see it anyway (:func:`gpu_node_pool.policies.pools.find_gpu_pools`
adds registration taints to the pool). User data that mentions ``register-with-taints`` /
``registerWithTaints`` in a form the reader cannot follow is never a silent pass: it is reported
as not judged ("registration taints in user data not readable", an advisory "can't run policy"
finding, as the SDK reports a value unknown at preview). Sources: kubelet ``--register-with-taints``
(https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/), awslabs/amazon-eks-ami
``nodeadm/doc/examples.md`` (NodeConfig), Bottlerocket ``settings.kubernetes.node-taints``
(https://bottlerocket.dev/en/os/latest/#/api/settings/kubernetes/);
managed node group ``taints``: the EKS API ``Taint`` type
(https://docs.aws.amazon.com/eks/latest/APIReference/API_Taint.html); the EKS user guide,
"Customizing managed nodes with launch templates"
(https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html: EKS merges its bootstrap
part when the template names no AMI).
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, StackValidationArgs, StackValidationPolicy

from ...sdk.props import Undecided, not_judged
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
        for lt, why in pool.extra.get("unreadable_registration_taints", []):
            undecided.add(f"{pool.display}: launch template {lt.name!r}", not_judged(
                ["userData"],
                f"registration taints in user data not readable: it mentions register-with-taints or "
                f"registerWithTaints, but {why}. The nodes may carry a taint the node group does not declare; "
                "pass it as the node group's taints (GpuNodePool taints) or in a form the reader reads "
                "(bootstrap.sh --kubelet-extra-args, KUBELET_EXTRA_ARGS=..., a nodeadm NodeConfig)",
            ))
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
