"""Karpenter renderer and readers: ``NodePool`` (``karpenter.sh/v1``) and ``EC2NodeClass`` (``karpenter.k8s.aws/v1``).

Karpenter uses the Kubernetes Taint shape and spelling (``spec.template.spec.taints`` and
``startupTaints``), so taints are written with :meth:`Taint.to_k8s` and read back with
:meth:`Taint.from_k8s`. The renderers return whole Kubernetes objects (plain dicts with a
fixed key order), which ``pool.py`` wires into ``kubernetes.apiextensions.CustomResource``
and ``gpupool render`` writes as YAML. The readers take such an object, or the recorded
inputs of the CustomResource (the same camelCase shape), which is what the plan and the
policies see.

Sources: Karpenter v1.14.1 CRDs ``karpenter.sh_nodepools.yaml`` and
``karpenter.k8s.aws_ec2nodeclasses.yaml`` (aws/karpenter-provider-aws ``pkg/apis/crds``);
docs ``concepts/nodepools.md``, ``concepts/nodeclasses.md``, ``concepts/scheduling.md``.
"""

from __future__ import annotations

from typing import Any

from ...config import POOL_LABEL_KEY, ClusterConfig
from .._shared.nodepool import nodepool_manifest as shared_nodepool_manifest  # the one NodePool renderer
from .config import KarpenterPool
from .efa import node_class_fields
from .node_class_extras import to_k8s_fields as extras_fields

NODEPOOL_API_VERSION = "karpenter.sh/v1"
EC2NODECLASS_API_VERSION = "karpenter.k8s.aws/v1"
NODE_CLASS_GROUP = "karpenter.k8s.aws"
NODE_CLASS_KIND = "EC2NodeClass"
#: The tag Karpenter's getting-started guide puts on the cluster's subnets and node security
#: group; the default selector of a created EC2NodeClass (value: the cluster name).
DISCOVERY_TAG_KEY = "karpenter.sh/discovery"


# --- render -----------------------------------------------------------------------------


def nodepool_manifest(pool: KarpenterPool, cluster: ClusterConfig) -> dict[str, Any]:
    """The ``karpenter.sh/v1`` ``NodePool`` object for ``pool``.

    Fills:
      * ``metadata.name`` = the pool name; ``metadata.labels`` = ``{gpu-node-pools/pool: <name>}``.
      * ``spec.template.metadata.labels`` = :attr:`KarpenterPool.node_labels` (sorted by key).
      * ``spec.template.spec.taints`` / ``startupTaints``: Kubernetes Taint objects
        ``{key, value?, effect}`` in Kubernetes spelling, config order; a list is left out
        when empty.
      * ``spec.template.spec.requirements`` = :attr:`KarpenterPool.requirement_list`.
      * ``spec.template.spec.nodeClassRef`` = ``{group: karpenter.k8s.aws, kind: EC2NodeClass, name}``.
      * ``spec.template.spec.expireAfter`` / ``terminationGracePeriod`` when configured.
      * ``spec.limits`` (sorted by resource), ``spec.disruption`` (``consolidationPolicy`` and
        ``consolidateAfter`` always written; ``budgets`` when configured), ``spec.weight`` when set.

    Args:
        pool: a validated Karpenter pool.
        cluster: the cluster (unused by the NodePool today; every backend renderer takes it).

    Returns:
        A plain dict with keys ``apiVersion``, ``kind``, ``metadata``, ``spec``; two calls
        with equal inputs return equal dicts with equal key order.
    """
    ref = {"group": NODE_CLASS_GROUP, "kind": NODE_CLASS_KIND, "name": pool.node_class_name}
    return shared_nodepool_manifest(pool, ref, pool.requirement_list, POOL_LABEL_KEY)


def node_class_role(pool: KarpenterPool, cluster: ClusterConfig) -> str:
    """The node IAM role *name* of the pool's created EC2NodeClass.

    ``nodeClass.role``, else the last path segment of ``cluster.nodeRoleArn``
    (``arn:aws:iam::111122223333:role/path/ml-gpu`` -> ``ml-gpu``).

    Raises:
        ValueError: neither is set (config validation reports this first).
    """
    if pool.node_class is not None and pool.node_class.role:
        return pool.node_class.role
    if cluster.node_role_arn:  # a Pulumi Output of the ARN (the cluster's identity) gives an Output
        arn: Any = cluster.node_role_arn
        return arn.apply(_role_name) if hasattr(arn, "apply") else _role_name(arn)
    raise ValueError(f"pool {pool.name!r}: no node role; set nodeClass.role or cluster.nodeRoleArn")


def ec2nodeclass_manifest(pool: KarpenterPool, cluster: ClusterConfig) -> dict[str, Any]:
    """The ``karpenter.k8s.aws/v1`` ``EC2NodeClass`` object a pool with ``nodeClass`` creates.

    Fills ``metadata.name`` (:attr:`KarpenterPool.node_class_name`), ``spec.amiSelectorTerms``
    = ``[{alias: al2023@...|bottlerocket@...}]`` (``amiFamily`` is left out: Karpenter infers it
    from the alias and picks the NVIDIA variant for GPU instances), ``spec.role`` (see
    :func:`node_class_role`), ``spec.subnetSelectorTerms`` and
    ``spec.securityGroupSelectorTerms`` = one term ``{tags: ...}`` each (default
    ``{karpenter.sh/discovery: <cluster name>}``), and ``spec.tags`` =
    ``{gpu-node-pools/pool: <name>}`` plus ``nodeClass.tags``, sorted by key; the pass-through
    ``blockDeviceMappings``, ``kubelet``, ``instanceStorePolicy`` and ``userData`` as given
    (:mod:`.node_class_extras`).

    Raises:
        ValueError: the pool references an existing EC2NodeClass (``nodeClassRef``) instead.
    """
    node_class = pool.node_class
    if node_class is None:
        raise ValueError(
            f"pool {pool.name!r} references the existing EC2NodeClass {pool.node_class_name!r}; it creates none"
        )
    discovery = {DISCOVERY_TAG_KEY: cluster.name}
    subnet_tags = node_class.subnet_selector_tags or discovery
    sg_tags = node_class.security_group_selector_tags or discovery
    tags = {POOL_LABEL_KEY: pool.name} | dict(node_class.tags)
    return {
        "apiVersion": EC2NODECLASS_API_VERSION,
        "kind": NODE_CLASS_KIND,
        "metadata": {"name": pool.node_class_name, "labels": {POOL_LABEL_KEY: pool.name}},
        "spec": {
            "amiSelectorTerms": [{"alias": node_class.ami_alias}],
            "role": node_class_role(pool, cluster),
            "subnetSelectorTerms": [{"tags": dict(sorted(subnet_tags.items()))}],
            "securityGroupSelectorTerms": [{"tags": dict(sorted(sg_tags.items()))}],
            "tags": dict(sorted(tags.items())),
            # reserved capacity (Karpenter docs tasks/odcrs; EC2NodeClass capacityReservationSelectorTerms): only when configured
            **({"capacityReservationSelectorTerms": [t.to_k8s() for t in node_class.capacity_reservation_selector_terms]}
               if node_class.capacity_reservation_selector_terms else {}),
            **node_class_fields(pool),  # EFA (karpenter/efa.py)
            **extras_fields(node_class),  # blockDeviceMappings, kubelet, instanceStorePolicy, userData
        },
    }


def _role_name(arn: str) -> str:
    return arn.rsplit("/", 1)[-1]
