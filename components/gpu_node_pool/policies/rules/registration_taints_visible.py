"""Policy ``registration-taints-visible``: taints a managed node group's nodes register that the
node group does not declare, and taints a Karpenter EC2NodeClass's ``spec.userData`` registers that the
NodePool does not declare.

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

Karpenter: a NodePool is linked to its EC2NodeClass by ``spec.template.spec.nodeClassRef.name``
(:mod:`gpu_node_pool.backends.karpenter.detect`). Karpenter merges ``spec.userData`` with the bootstrap it
generates, and its scheduling simulation knows only the NodePool's taints
(https://karpenter.sh/docs/concepts/nodeclasses/, spec.userData). A taint the kubelet still registers from
userData (a ``--register-with-taints`` flag, which overrides the config file; any setting under the
``Custom`` family, whose userData runs as given) is on the nodes: reported like a node group's, and every
other rule sees it. A taint Karpenter replaces with the NodePool's (Bottlerocket ``node-taints``,
AL2023 ``registerWithTaints``: aws/karpenter-provider-aws ``pkg/providers/amifamily/bootstrap/bottlerocket.go``
and ``nodeadm.go``@v1.14.1) is not on the nodes: reported as dropped. userData unknown at preview, or an
EC2NodeClass not among the program's resources, is reported as not judged. EKS Auto Mode's NodeClass
(``eks.amazonaws.com/v1``) has no user data field (https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html):
its nodes register only the NodePool's taints, so there is nothing to read.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, StackValidationArgs, StackValidationPolicy

from ...sdk.props import Undecided, not_judged
from ._shared import _stack_pools


def validate_registration_taints_visible(args: StackValidationArgs, report: ReportViolation) -> None:
    """Report each taint a managed node group's launch template or a Karpenter NodePool's EC2NodeClass
    registers but the pool's resource does not declare, each one Karpenter drops from an EC2NodeClass's
    userData, and, as not judged, user data the reader cannot read or could not see."""
    undecided = Undecided()
    for pool in _stack_pools(args, undecided):
        for taint, site in pool.extra.get("hidden_registration_taints", []):
            report(
                f"{pool.display}: its {site.where} registers the taint {taint} through the kubelet "
                f"(user data), but {site.owner} does not declare it. The nodes carry it; {site.unseen_by} "
                f"and anyone reading {site.owner} do not see it. Declare {taint} in {site.declare_in} "
                "and remove it from the user data.",
                pool.urn or None,
            )
        for taint, site in pool.extra.get("dropped_registration_taints", []):
            report(
                f"{pool.display}: its {site.where} registers the taint {taint} through the kubelet, but "
                f"{site.owner} does not declare it and {pool.extra.get('dropped_registration_why')} "
                f"({_KARPENTER_SOURCE}): the nodes do not carry it, so what it was meant to keep off them lands. "
                f"Declare {taint} in {site.declare_in} and remove it from the user data.",
                pool.urn or None,
            )
        for site, why in pool.extra.get("unreadable_registration_taints", []):
            undecided.add(f"{pool.display}: {site.where}", not_judged(
                [site.prop],
                f"registration taints in user data not readable: it mentions register-with-taints or "
                f"registerWithTaints, but {why}. The nodes may carry a taint {site.owner} does not declare; "
                f"pass it as {site.declare_in} or in a form the reader reads ({site.readable_forms})",
                f"declare the taint in {site.declare_in}, or write the user data's taints in a form the reader "
                f"reads ({site.readable_forms})",
            ))
        for site, why in pool.extra.get("unjudged_registration_taints", []):
            undecided.not_judged(f"{pool.display}: {site.where}", (
                f"not judged: {why}. The nodes may carry a taint {site.owner} does not declare; declare every "
                f"taint in {site.declare_in}"
            ), f"declare every taint the nodes register in {site.declare_in}")
    undecided.raise_if_any()


#: Karpenter's word on spec.userData: its generated bootstrap wins over the user's for taints and labels.
_KARPENTER_SOURCE = ("https://karpenter.sh/docs/concepts/nodeclasses/ spec.userData; aws/karpenter-provider-aws "
                     "pkg/providers/amifamily/bootstrap/bottlerocket.go and nodeadm.go@v1.14.1")


POLICY = StackValidationPolicy(
    name="registration-taints-visible",
    description=("Taints a managed node group's launch template user data, or a Karpenter NodePool's EC2NodeClass "
                 "userData, registers must be declared on the node group or NodePool."),
    validate=validate_registration_taints_visible,
    enforcement_level=EnforcementLevel.MANDATORY,
    remediation_steps=(
        "Move --register-with-taints / registerWithTaints / node-taints from the launch template user data to "
        "the node group's taints (GpuNodePool taints), where EKS and Cluster Autoscaler see them, and from an "
        "EC2NodeClass's spec.userData to the NodePool's spec.template.spec.taints, where Karpenter sees them."
    ),
)
