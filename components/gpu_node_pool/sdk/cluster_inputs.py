"""The cluster as a Pulumi input: identity values that are Outputs, or the cluster resource itself.

:class:`~gpu_node_pool.GpuNodePool` takes the cluster's *identity* (name, node role ARN,
subnet ids, GKE project/location, and the API server endpoint, CA bundle and service CIDR that
self-managed bootstraps embed) as ``pulumi.Input`` values, so a program can pass
``cluster.name``/``role.arn`` of resources it creates and the pool's children depend on them.
Everything policies judge (taints, labels, instance types, scaling, GPU counts) and the other
cluster settings (``kubernetesVersion``, ``admissionPlugins``, ``caCertHashes``) stay plain:
an Output there is refused by :func:`gpu_node_pool.config.validate_stack_config` ("is a Pulumi
Output; ... must be plain").

How: the identity is a :class:`ClusterIdentity` (a frozen value, never judged) passed beside the
validated ``ClusterConfig`` (plain, judged). An identity value that is an Output is left out of
the validated settings (the field is ``None`` there and named in ``ClusterConfig.not_judged``):
a rule that reads it reports it as not judged instead of judging a stand-in. Renderers read
the identity values from the :class:`ClusterIdentity`; a value derived from one (user data, an
instance profile's role name) is computed with ``Output.all(...).apply(<pure renderer>)``
(:func:`resolved`) — no resource is ever registered inside an ``apply``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import pulumi

from .identity import IDENTITY_FIELDS, IDENTITY_KEYS, ClusterIdentity, has_output, is_output, replaced

__all__ = [
    "IDENTITY_FIELDS", "IDENTITY_KEYS", "ClusterIdentity", "is_output", "has_output", "identity", "replaced", "resolved",
    "lift", "from_resource",
]

T = TypeVar("T")


def identity(cluster: Mapping[str, Any], settings: Any) -> ClusterIdentity:
    """The :class:`ClusterIdentity` of a cluster mapping (camelCase or snake_case keys) beside its
    validated ``settings``; awaitables become Outputs, so renderers see one kind of Input."""
    return ClusterIdentity.of({k: _as_output(v) for k, v in cluster.items()}, settings)


def _as_output(value: Any) -> Any:
    """Awaitables become Outputs (lists item by item), so renderers see one kind of Input."""
    if isinstance(value, list | tuple) and has_output(value):
        return [pulumi.Output.from_input(v) if inspect.isawaitable(v) else v for v in value]
    return pulumi.Output.from_input(value) if inspect.isawaitable(value) else value


def resolved(cluster: Any, render: Callable[[Any], T]) -> T | pulumi.Output[T]:
    """``render(cluster)`` when every identity value is plain (exactly as before), else
    ``Output.all(<identity Outputs>).apply(lambda: render(<cluster with the values>))``.

    ``cluster``: a :class:`ClusterIdentity` or a plain ``ClusterConfig``. ``render`` must be
    pure (it runs inside ``apply``): it returns values, never registers resources.
    """
    outputs = cluster.outputs if isinstance(cluster, ClusterIdentity) else {}
    if not outputs:
        return render(cluster)
    return pulumi.Output.all(**outputs).apply(lambda values: render(replaced(cluster, **values)))


def lift(value: Any, fn: Callable[[Any], T]) -> T | pulumi.Output[T]:
    """``fn(value)``, or ``value.apply(fn)`` when ``value`` is an Output (lists via ``Output.from_input``)."""
    if has_output(value):
        return pulumi.Output.from_input(value).apply(fn)
    return fn(value)


def _attr(value: Any, *path: str) -> Any:
    for key in path:
        if value is None:
            return None
        value = value.get(key) if isinstance(value, Mapping) else getattr(value, key, None)
    return value


def from_resource(resource: Any, node_role_arn: Any = None) -> dict[str, Any] | None:
    """The cluster mapping (camelCase keys, Output values) of a cluster resource, or None.

    * ``aws.eks.Cluster``: ``name``, ``subnetIds`` (``vpcConfig.subnetIds``),
      ``apiServerEndpoint`` (``endpoint``), ``certificateAuthority``
      (``certificateAuthority.data``), ``serviceCidr`` (``kubernetesNetworkConfig.serviceIpv4Cidr``).
    * ``pulumi_eks.Cluster`` (if installed): the same, from its ``eks_cluster``.
    * ``gcp.container.Cluster``: ``name``, ``project``, ``location``.

    ``node_role_arn`` (an Input) is added as ``nodeRoleArn`` when given: an EKS cluster
    resource does not hold its nodes' role.
    """
    out: dict[str, Any] | None = None
    eks = _eks_cluster_attr(resource)
    if eks is not None:
        out = {
            "name": eks("name"),
            "subnetIds": eks("vpc_config").apply(lambda v: _attr(v, "subnet_ids")),
            "apiServerEndpoint": eks("endpoint"),
            "certificateAuthority": eks("certificate_authority").apply(lambda v: _attr(v, "data")),
            "serviceCidr": eks("kubernetes_network_config").apply(lambda v: _attr(v, "service_ipv4_cidr")),
        }
    elif _is(resource, "pulumi_gcp", "container", "Cluster"):
        out = {"name": resource.name, "project": resource.project, "location": resource.location}
    if out is not None and node_role_arn is not None:
        out["nodeRoleArn"] = node_role_arn
    return out


def _is(resource: Any, module: str, *path: str) -> bool:
    try:
        cls: Any = __import__(module)
    except ImportError:
        return False
    for part in path:
        cls = getattr(cls, part, None)
    return isinstance(cls, type) and isinstance(resource, cls)


def _eks_cluster_attr(resource: Any) -> Callable[[str], pulumi.Output[Any]] | None:
    """A getter of the ``aws.eks.Cluster`` outputs behind ``resource``, or None if it is no EKS cluster."""
    if _is(resource, "pulumi_aws", "eks", "Cluster"):
        return lambda attr: pulumi.Output.from_input(getattr(resource, attr))
    if _is(resource, "pulumi_eks", "Cluster"):  # optional package: its eks_cluster is Output[aws.eks.Cluster]
        return lambda attr: resource.eks_cluster.apply(lambda c: getattr(c, attr))
    return None
