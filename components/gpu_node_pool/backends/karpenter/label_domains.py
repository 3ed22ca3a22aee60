"""NodePool labels in the ``kubernetes.io`` and ``k8s.io`` domains, which Karpenter before v1.9.0 refuses.

Up to v1.8.x the NodePool CRD refused them on ``spec.template.metadata.labels`` (CEL rules ``label domain
"kubernetes.io" is restricted`` and ``label domain "k8s.io" is restricted``, kubernetes-sigs/karpenter
``pkg/apis/crds/karpenter.sh_nodepools.yaml``@v1.8.3), allowing only the well-known labels listed there and
keys whose domain ends with ``node.kubernetes.io``, ``node-restriction.kubernetes.io`` or ``kops.k8s.io``.
v1.9.0 dropped those rules (commit 37f5de7a, "simplify RestrictedLabel filtering and relax cel
restrictions"): Karpenter keeps such labels out of the kubelet's flags and sets them on the Node itself
(aws/karpenter-provider-aws ``pkg/providers/amifamily/resolver.go`` ``RejectForbiddenLabels``@v1.14.1).
The rest of the NodePool's label rules, which every release has, are
:func:`gpu_node_pool.backends.karpenter.limits.karpenter_label_problem`'s.
"""

from __future__ import annotations

from typing import Any

from ...k8s.names import qualified_name_problem
from ...text.listing import listed
from .._shared.nodepool import cel_label_domain
from .limits import karpenter_label_problem, karpenter_release

__all__ = ["RELAXED_SINCE", "old_release_label_problem", "version_issue", "version_keys"]

#: The first Karpenter release whose NodePool takes labels in the kubernetes.io and k8s.io domains.
RELAXED_SINCE = (1, 9)
_SOURCE = "kubernetes-sigs/karpenter pkg/apis/crds/karpenter.sh_nodepools.yaml@v1.8.3, relaxed in v1.9.0"
#: The kubernetes.io labels the v1.8.3 CEL rule lets in by name.
_WELL_KNOWN = frozenset((
    "beta.kubernetes.io/instance-type", "failure-domain.beta.kubernetes.io/region", "beta.kubernetes.io/os",
    "beta.kubernetes.io/arch", "failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region", "kubernetes.io/arch", "kubernetes.io/os", "node.kubernetes.io/windows-build",
))


def old_release_label_problem(key: str) -> str | None:
    """The v1.8.3 CEL rule ``key`` breaks (``label domain "kubernetes.io" is restricted`` or the ``k8s.io`` one),
    or None. The domain is what the rules test (:func:`~gpu_node_pool.backends._shared.nodepool.cel_label_domain`,
    a plain suffix test as CEL's ``endsWith``)."""
    domain = cel_label_domain(key)
    if domain.endswith("kubernetes.io") and key not in _WELL_KNOWN and not (
            domain.endswith("node.kubernetes.io") or domain.endswith("node-restriction.kubernetes.io")):
        return 'label domain "kubernetes.io" is restricted'
    if domain.endswith("k8s.io") and not domain.endswith("kops.k8s.io"):
        return 'label domain "k8s.io" is restricted'
    return None


def version_keys(pool: Any) -> list[str]:
    """The keys of ``pool.node_labels`` that only Karpenter before v1.9.0 refuses, sorted: a key every release
    refuses (:func:`~gpu_node_pool.backends.karpenter.limits.karpenter_label_problem`, e.g.
    ``kubernetes.io/hostname``) is reported by that rule alone, and so is a key that is no qualified name
    (:func:`~gpu_node_pool.k8s.names.qualified_name_problem`, whose fix for a node label is in your own domain)."""
    return sorted(k for k in pool.node_labels if old_release_label_problem(k) and not karpenter_label_problem(k)
                  and not qualified_name_problem(k))


def version_issue(pool: Any, karpenter_version: str | None) -> tuple[str, bool] | None:
    """``(message, refused)`` about the pool's node labels (``pool.node_labels``: its labels, gpuLabel and the
    labels the component adds) that Karpenter before v1.9.0 refuses (:func:`version_keys`), or None when it has none.

    ``karpenter_version``: ``cluster.karpenterVersion`` (``1.8``, ``v1.14.1``) or None when not stated (a
    warning: nothing here can read the installed version). Below v1.9 refused: the API server refuses the
    NodePool and the pool never launches a node."""
    keys = version_keys(pool)
    if not keys:
        return None
    need = ".".join(map(str, RELAXED_SINCE))
    fix = "use your own domain (e.g. example.com/role=gpu)"
    if karpenter_version is None:
        return (
            f"labels {listed(keys)} are in a domain Karpenter before v{need}.0 refuses in a NodePool "
            f"({old_release_label_problem(keys[0])}; {_SOURCE}); state the installed version with "
            f"gpu-node-pools:cluster.karpenterVersion (e.g. \"{need}\"), or {fix}",
            False,
        )
    have = karpenter_release(karpenter_version)
    if have < RELAXED_SINCE:
        return (
            f"labels {listed(keys)}: cluster.karpenterVersion {karpenter_version!r} refuses them in a NodePool "
            f"({old_release_label_problem(keys[0])}; {_SOURCE}), so the pool would launch no node; {fix}, "
            f"or upgrade Karpenter to v{need}.0 or later",
            True,
        )
    return None
