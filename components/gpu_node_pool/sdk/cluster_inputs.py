"""The cluster as a Pulumi input: identity values that are Outputs, or the cluster resource itself.

:class:`~gpu_node_pool.GpuNodePool` takes the cluster's *identity* (name, node role ARN,
subnet ids, GKE project/location, and the API server endpoint, CA bundle and service CIDR that
self-managed bootstraps embed) as ``pulumi.Input`` values, so a program can pass
``cluster.name``/``role.arn`` of resources it creates and the pool's children depend on them.
Everything policies judge (taints, labels, instance types, scaling, GPU counts) and the other
cluster settings (``kubernetesVersion``, ``admissionPlugins``, ``caCertHashes``) stay plain:
an Output there is refused by :func:`gpu_node_pool.config.validate_stack_config` ("is a Pulumi
Output; ... must be plain").

How: :func:`split` puts a valid placeholder where an Output is, so the stack rules run on
plain values; :func:`restore` puts the Outputs back into the validated
:class:`~gpu_node_pool.config.ClusterConfig` (``model_copy``, no re-validation). Renderers pass
identity values through; a value derived from one (user data, an instance profile's role
name) is computed with ``Output.all(...).apply(<pure renderer>)`` (:func:`resolved`) — no
resource is ever registered inside an ``apply``. Rules that read an identity value which is an
Output judge the placeholder; the values themselves are the cloud's to check.
"""

from __future__ import annotations

import base64
import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import pulumi

#: A validated ``gpu_node_pool.config.ClusterConfig`` (a pydantic model; this module reads its
#: identity fields and copies it with ``model_copy``, so it needs no import of the config).
ClusterConfig = Any

__all__ = ["IDENTITY_FIELDS", "is_output", "has_output", "split", "restore", "resolved", "lift", "from_resource"]

T = TypeVar("T")

#: ClusterConfig fields (snake_case) that may be Inputs; their camelCase keys are the aliases.
IDENTITY_FIELDS = (
    "name",
    "node_role_arn",
    "subnet_ids",
    "project",
    "location",
    "api_server_endpoint",
    "certificate_authority",
    "service_cidr",
)

_PEM = b"-----BEGIN CERTIFICATE-----\nplaceholder\n-----END CERTIFICATE-----\n"
#: Values that pass ClusterConfig's validators, used only while validating (never rendered).
_PLACEHOLDERS: dict[str, Any] = {
    "name": "pulumi-output-cluster",
    "node_role_arn": "arn:aws:iam::000000000000:role/pulumi-output",
    "subnet_ids": "subnet-00000000000000000",  # per item
    "project": "pulumi-output",
    "location": "us-central1",
    "api_server_endpoint": "https://pulumi-output.invalid",
    "certificate_authority": base64.b64encode(_PEM).decode(),
    "service_cidr": "10.100.0.0/16",
}


def is_output(value: Any) -> bool:
    """True for a ``pulumi.Output`` or an awaitable (the other non-plain ``pulumi.Input``)."""
    return isinstance(value, pulumi.Output) or inspect.isawaitable(value)


def has_output(value: Any) -> bool:
    """True when ``value`` is an Output or a list holding one."""
    return is_output(value) or (isinstance(value, list | tuple) and any(is_output(v) for v in value))


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


#: mapping key (snake_case name or the camelCase alias the stack file uses) -> identity field.
_IDENTITY_KEYS = {key: name for name in IDENTITY_FIELDS for key in (name, _camel(name))}


def _field(key: str) -> str | None:
    """The identity field of a cluster mapping key (camelCase alias or snake_case name), or None."""
    return _IDENTITY_KEYS.get(key)


def split(cluster: Mapping[str, Any], pool_zones: list[str] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(plain mapping to validate, {field: the Input})``.

    Identity values that are Outputs (or lists holding Outputs) are replaced by placeholders
    that pass validation; other keys are left as given, so an Output there meets the
    validator's "must be plain" error. ``pool_zones``: a gke pool's ``nodeLocations``, whose
    region becomes the placeholder location so the zone rule is not failed by the placeholder.
    """
    plain: dict[str, Any] = {}
    inputs: dict[str, Any] = {}
    for key, value in cluster.items():
        field = _field(key)
        if field in IDENTITY_FIELDS and has_output(value):
            inputs[field] = value
            if field == "subnet_ids":
                items = value if isinstance(value, list | tuple) else [None]
                value = [v if isinstance(v, str) else _PLACEHOLDERS[field] for v in items]
            elif field == "location" and pool_zones:
                value = pool_zones[0].rsplit("-", 1)[0]
            else:
                value = _PLACEHOLDERS[field]
        plain[key] = value
    return plain, inputs


def restore(cluster: ClusterConfig, inputs: Mapping[str, Any]) -> ClusterConfig:
    """``cluster`` with its placeholders replaced by the Inputs again (lists of Inputs stay lists)."""
    if not inputs:
        return cluster
    def output(v: Any) -> Any:  # awaitables become Outputs, so renderers see one kind of Input
        return pulumi.Output.from_input(v) if inspect.isawaitable(v) else v

    update = {k: ([output(i) for i in v] if isinstance(v, list | tuple) else output(v)) for k, v in inputs.items()}
    return cluster.model_copy(update=update)


def identity_outputs(cluster: ClusterConfig) -> dict[str, Any]:
    """The identity fields of ``cluster`` that are (or hold) Outputs."""
    return {f: getattr(cluster, f) for f in IDENTITY_FIELDS if has_output(getattr(cluster, f))}


def resolved(cluster: ClusterConfig, render: Callable[[ClusterConfig], T]) -> T | pulumi.Output[T]:
    """``render(cluster)`` when every identity value is plain (exactly as before), else
    ``Output.all(<identity Outputs>).apply(lambda: render(<cluster with the values>))``.

    ``render`` must be pure (it runs inside ``apply``): it returns values, never registers
    resources.
    """
    outputs = identity_outputs(cluster)
    if not outputs:
        return render(cluster)
    return pulumi.Output.all(**outputs).apply(lambda values: render(cluster.model_copy(update=values)))


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
