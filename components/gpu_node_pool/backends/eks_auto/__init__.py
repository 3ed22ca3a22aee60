"""``eks-auto``: an EKS Auto Mode ``NodePool`` (``karpenter.sh/v1``) per pool, on the built-in, an existing or a created ``NodeClass``.

Files: ``limits.py`` (what Auto Mode accepts, with sources), ``config.py`` (pool model, stack
rules, the catalog feasibility hook), ``render.py`` (the manifests), ``read.py`` (labels,
requirements, limits back from the manifests; the taint lists by ``_shared/nodepool_detect.py``), ``resources.py`` (Pulumi wiring), ``summary.py``
(plan entry and text), ``detect.py`` (recognise Auto Mode GPU NodePools for the policies).
The NodePool rules shared with the karpenter backend are in ``backends/_shared/nodepool.py``.
"""

from __future__ import annotations

from ...k8s.wellknown import KARPENTER_NODEPOOL, KARPENTER_NODEPOOL_PREFIX
from ...registry import Backend, register

#: The Pulumi type token of a created Auto Mode NodeClass (``eks.amazonaws.com/v1``).
AUTO_NODECLASS = "kubernetes:eks.amazonaws.com/v1:NodeClass"

BACKEND = register(
    Backend(
        name="eks-auto",
        package=__name__,
        config_model="config:EksAutoPool",
        stack_checks="config:stack_issues",
        stack_warnings="config:stack_warnings",
        platform="eks",
        provisioner="karpenter",
        startup_taints=True,
        # Auto Mode runs NVIDIA's device plugin itself: EksAutoPool refuses gpuSharing and mig
        gpu_sharing="",
        mig="",
        wire="resources:wire",
        summarise="summary:summarise",
        report="summary:report",
        detect="detect:detect",
        node_labels="labels:node_labels",
        detects=(KARPENTER_NODEPOOL_PREFIX,),
        children={
            "nodepool": (KARPENTER_NODEPOOL, "{pool}-nodepool"),
            "nodeclass": (AUTO_NODECLASS, "{pool}-nodeclass"),
        },
    )
)
