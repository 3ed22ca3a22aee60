"""The ResourceQuota that lets a GPU agent's critical-priority pods be created on GKE. Pure, no Pulumi.

Kubernetes lets a cluster admit pods of chosen priority classes only in namespaces holding a ResourceQuota whose
``scopeSelector`` matches them (the ResourceQuota admission plugin's ``limitedResources`` with ``matchScopes``:
https://kubernetes.io/docs/concepts/policy/resource-quotas/#limit-priority-class-consumption-by-default). GKE does
so for ``system-node-critical`` and ``system-cluster-critical``, and ships such a quota only in ``kube-system``
(``gcp-critical-pods``, ``hard.pods: 1G``, quoted in openservicemesh/osm#4408 and open-policy-agent/gatekeeper#1120);
a pod of those classes in any other namespace without one is refused with ``insufficient quota to match these
scopes: [{PriorityClass In [system-node-critical system-cluster-critical]}]`` (cilium/cilium#13852). NVIDIA documents
the quota for the GPU Operator's namespace (cloud-native-docs ``gpu-operator/google-gke.rst``; NVIDIA/gpu-operator#660).

Every agent the component installs with a critical priority class in its own namespace gets one where a pool
says its platform needs it (``critical_pods_need_quota``: the pool model's property, True on GKE), through
:func:`agent_quota`; the GPU Operator's keeps NVIDIA's documented name (its size is GKE's, see
:func:`gpu_node_pool.gpu_agents.gpu_operator.values.gke_resource_quota`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..k8s.wellknown import SYSTEM_CLUSTER_CRITICAL, SYSTEM_NODE_CRITICAL

__all__ = ["CRITICAL_PRIORITY_CLASSES", "UNBOUNDED_PODS", "critical_pods_quota", "needs_critical_pods_quota",
           "agent_quota"]

#: The priority classes GKE admits only where a matching quota exists (the scope of ``gcp-critical-pods``).
CRITICAL_PRIORITY_CLASSES = (SYSTEM_NODE_CRITICAL, SYSTEM_CLUSTER_CRITICAL)
#: ``hard.pods`` of GKE's own ``gcp-critical-pods``: the quota admits the classes without bounding a DaemonSet by
#: the number of nodes (one pod per GPU node).
UNBOUNDED_PODS = "1G"
#: The namespace where GKE's own quota already admits the critical classes.
_KUBE_SYSTEM = "kube-system"


def critical_pods_quota(namespace: str, name: str, pods: str = UNBOUNDED_PODS) -> dict[str, Any]:
    """A ``v1`` ResourceQuota ``name`` in ``namespace`` scoped to :data:`CRITICAL_PRIORITY_CLASSES` (``scopeSelector``
    ``PriorityClass In [...]``), limiting only ``pods`` (a Kubernetes quantity, default :data:`UNBOUNDED_PODS`).

    Returns:
        ``{apiVersion: v1, kind: ResourceQuota, metadata: {name, namespace}, spec: {hard: {pods}, scopeSelector}}``.
    """
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "hard": {"pods": pods},
            "scopeSelector": {
                "matchExpressions": [
                    {"operator": "In", "scopeName": "PriorityClass", "values": list(CRITICAL_PRIORITY_CLASSES)}
                ]
            },
        },
    }


def needs_critical_pods_quota(pools: Iterable[Any], priority_class: str | None, namespace: str) -> bool:
    """True when an agent whose pods run at ``priority_class`` in ``namespace`` needs :func:`critical_pods_quota`: the
    class is one of :data:`CRITICAL_PRIORITY_CLASSES`, a pool of the cluster says its platform restricts the classes
    (``critical_pods_need_quota``: True on GKE pools) and the namespace is not ``kube-system`` (where GKE's
    ``gcp-critical-pods`` admits them).

    ``pools``: the stack's pools (config models or :class:`~gpu_node_pool.gpu_agents.pools.AgentPool`; one without
    ``critical_pods_need_quota`` needs none).
    """
    if priority_class not in CRITICAL_PRIORITY_CLASSES or namespace == _KUBE_SYSTEM:
        return False
    return any(getattr(p, "critical_pods_need_quota", False) for p in pools)


def agent_quota(pools: Iterable[Any], agent: str, priority_class: str | None, namespace: str) -> dict[str, Any] | None:
    """The quota the agent ``agent`` (its chart's name, e.g. ``dcgm-exporter``) needs in ``namespace``, named
    ``<agent>-critical-pods`` so that two agents sharing a namespace do not claim one object; None when
    :func:`needs_critical_pods_quota` is false."""
    if not needs_critical_pods_quota(pools, priority_class, namespace):
        return None
    return critical_pods_quota(namespace, f"{agent}-critical-pods")
