"""``gke``: a GKE node pool (``gcp.container.NodePool``) per pool.

Files: ``config.py`` (pool model, stack rules), ``render.py`` (NodePool inputs), ``read.py``
(taints, labels, accelerators back from NodePool inputs), ``resources.py`` (Pulumi wiring),
``summary.py`` (plan entry and text), ``detect.py`` (recognise GPU node pools for the policies),
``node_config_extras.py`` (boot disk and reservation pass-through fields), ``machines.py`` (the sourced
table of Compute Engine GPU machine types: which GPUs each carries, N1 limits, architecture), ``compute_class.py``
(a custom ComputeClass's taint left untolerated: not judged, for the policies), ``names.py`` (the node pool name
Pulumi derives from the ``GpuNodePool``'s), ``driver.py`` (what a pool whose driver GKE does not install needs),
``image.py`` (the node image ``imageType``: the images taken, Windows refused, ``LATEST`` on Ubuntu).
"""

from __future__ import annotations

from ...k8s.wellknown import GKE_NODE_POOL
from ...registry import Backend, PoolNameLimit, register
from .._shared.cloud_names import AUTONAME_SUFFIX
from .names import NODE_POOL_NAME

#: The node pool's resource name: Pulumi autonames the ``gcp.container.NodePool`` from it.
_NODE_POOL_CHILD = "{pool}-node-pool"
#: The stack program names a pool's GpuNodePool after the pool, so the node pool's name is derived from it:
#: 40 - len("-node-pool") - 8 = 22 characters.
POOL_NAME = PoolNameLimit(NODE_POOL_NAME.longest - len(_NODE_POOL_CHILD.format(pool="")) - AUTONAME_SUFFIX, (
    "Pulumi names its node pool '<name>-node-pool-' + 7 random characters, and a GKE node pool "
    f"name is at most {NODE_POOL_NAME.longest} characters (the GKE API's refusal quoted in pulumi/pulumi-gcp#1510)"))

BACKEND = register(
    Backend(
        name="gke",
        package=__name__,
        config_model="config:GkePool",
        stack_checks="config:stack_issues",
        stack_warnings="driver:stack_warnings",
        platform="gke",
        gpu_sharing="platform",  # gpu_sharing_config on the pools GKE's own device plugin serves
        mig="platform",  # gpu_partition_size
        wire="resources:wire",
        resource_name="names:resource_name_problem",
        pool_name=POOL_NAME,
        summarise="summary:summarise",
        report="summary:report",
        detect="detect:detect",
        node_labels="labels:node_labels",
        detects=(GKE_NODE_POOL,),
        children={"node_pool": (GKE_NODE_POOL, _NODE_POOL_CHILD)},
        untolerated_not_judged="compute_class:untolerated_not_judged",  # a custom ComputeClass's taint
    )
)
