"""How every GPU agent component installs its chart: a ``kubernetes.helm.v4.Chart`` child
``<name>-chart`` in the agent's namespace, after the namespace (and whatever else) it depends on, and,
where GKE admits the agent's critical-priority pods only with one, the ResourceQuota child ``<name>-quota``
(:mod:`gpu_node_pool.gpu_agents.critical_quota`) before the chart.

``helm.v4.Chart`` renders client-side, so the chart's DaemonSets are real children that the
policies judge at preview (https://www.pulumi.com/registry/packages/kubernetes/api-docs/helm/v4/chart/).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi

from ..sdk.provider_sdk import provider_sdk

__all__ = ["namespace", "install_chart"]


def namespace(parent: pulumi.Resource, name: str, namespace_name: str) -> pulumi.Resource:
    """The ``kubernetes.core.v1.Namespace`` child ``<name>-namespace`` called ``namespace_name``."""
    k8s = provider_sdk("pulumi_kubernetes", "a GPU agent's Helm chart")

    return k8s.core.v1.Namespace(f"{name}-namespace", metadata={"name": namespace_name},
                                 opts=pulumi.ResourceOptions(parent=parent))


def install_chart(parent: pulumi.ComponentResource, name: str, *, chart: str, version: str, repository: str,
                  namespace_name: str, values: Mapping[str, Any], depends_on: Sequence[pulumi.Resource],
                  quota: Mapping[str, Any] | None = None) -> Any:
    """Register the chart child ``<name>-chart`` and the component's outputs (``values``, ``namespace``).

    ``quota``: a ResourceQuota object (``metadata``, ``spec``; :func:`~gpu_node_pool.gpu_agents.critical_quota.agent_quota`)
    registered first as the ``kubernetes.core.v1.ResourceQuota`` child ``<name>-quota``, after ``depends_on``; the
    chart then waits for it too, since its pods are refused until the quota exists. None: no quota.

    Returns:
        the ``kubernetes.helm.v4.Chart`` resource.
    """
    k8s = provider_sdk("pulumi_kubernetes", "a GPU agent's Helm chart")

    after = list(depends_on)
    if quota is not None:
        after.append(k8s.core.v1.ResourceQuota(
            f"{name}-quota", metadata=quota["metadata"], spec=quota["spec"],
            opts=pulumi.ResourceOptions(parent=parent, depends_on=list(depends_on)),
        ))
    chart_resource = k8s.helm.v4.Chart(
        f"{name}-chart",
        chart=chart,
        version=version,
        repository_opts={"repo": repository},
        namespace=namespace_name,
        values=values,
        opts=pulumi.ResourceOptions(parent=parent, depends_on=after),
    )
    parent.register_outputs({"values": values, "namespace": namespace_name})
    return chart_resource
