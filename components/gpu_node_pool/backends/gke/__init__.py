"""``gke``: a GKE node pool (``gcp.container.NodePool``) per pool.

Files: ``config.py`` (pool model, stack rules), ``render.py`` (NodePool inputs), ``read.py``
(taints, labels, accelerators back from NodePool inputs), ``resources.py`` (Pulumi wiring),
``summary.py`` (plan entry and text), ``detect.py`` (recognise GPU node pools for the policies),
``node_config_extras.py`` (boot disk and reservation pass-through fields), ``machines.py`` (the sourced
table of Compute Engine GPU machine types: which GPUs each carries, N1 limits, architecture), ``compute_class.py``
(a custom ComputeClass's taint left untolerated: not judged, for the policies).
"""

from __future__ import annotations

from ...k8s.wellknown import GKE_NODE_POOL
from ...registry import Backend, register

BACKEND = register(
    Backend(
        name="gke",
        package=__name__,
        config_model="config:GkePool",
        stack_checks="config:stack_issues",
        platform="gke",
        gpu_sharing="platform",  # gpu_sharing_config on the pools GKE's own device plugin serves
        mig="platform",  # gpu_partition_size
        wire="resources:wire",
        summarise="summary:summarise",
        report="summary:report",
        detect="detect:detect",
        node_labels="labels:node_labels",
        detects=(GKE_NODE_POOL,),
        children={"node_pool": (GKE_NODE_POOL, "{pool}-node-pool")},
        untolerated_not_judged="compute_class:untolerated_not_judged",  # a custom ComputeClass's taint
    )
)
