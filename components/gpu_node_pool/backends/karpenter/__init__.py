"""``karpenter``: a Karpenter ``NodePool`` (``karpenter.sh/v1``) per pool, with its ``EC2NodeClass``.

Files: ``config.py`` (pool model, stack rules), ``limits.py`` (CRD limits and CEL mirrors),
``render.py`` (the manifests), ``read.py`` (labels, requirements, limits back from the
manifests; the taint lists by ``_shared/nodepool_detect.py``), ``resources.py`` (Pulumi wiring), ``summary.py`` (plan entry and text),
``detect.py`` (recognise GPU NodePools for the policies), ``efa.py`` (EFA in the EC2NodeClass),
``node_class_extras.py`` (EC2NodeClass pass-through fields, userData taints and labels merged into the
NodePool), ``node_overlay.py`` (NodeOverlays declaring the capacity of shared or partitioned GPUs).
"""

from __future__ import annotations

from ...k8s.wellknown import (
    KARPENTER_AWS_PREFIX,
    KARPENTER_EC2NODECLASS,
    KARPENTER_NODEOVERLAY,
    KARPENTER_NODEPOOL,
    KARPENTER_NODEPOOL_PREFIX,
)
from ...registry import Backend, register

BACKEND = register(
    Backend(
        name="karpenter",
        package=__name__,
        config_model="config:KarpenterPool",
        stack_checks="config:stack_issues",
        stack_warnings="config:stack_warnings",
        platform="eks",
        provisioner="karpenter",
        startup_taints=True,
        wire="resources:wire",
        summarise="summary:summarise",
        report="summary:report",
        detect="detect:detect",
        node_labels="labels:node_labels",
        detects=(KARPENTER_NODEPOOL_PREFIX,),
        detect_context="detect:context",
        context_types=(KARPENTER_AWS_PREFIX,),
        children={
            "nodepool": (KARPENTER_NODEPOOL, "{pool}-nodepool"),
            "ec2nodeclass": (KARPENTER_EC2NODECLASS, "{pool}-ec2nodeclass"),
            # one per GPU capacity: "<child name>-<overlay metadata.name suffix>" (resources.py)
            "nodeoverlay": (KARPENTER_NODEOVERLAY, "{pool}-nodeoverlay"),
        },
    )
)
