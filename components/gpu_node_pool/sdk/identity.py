"""The cluster's identity as a value: who the cluster is, as the pool's resources name it.

Pure (no Pulumi import), so the config validator and the renderers read it; the Pulumi side
(Outputs, cluster resources) is :mod:`gpu_node_pool.sdk.cluster_inputs`.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["IDENTITY_FIELDS", "IDENTITY_KEYS", "ClusterIdentity", "camel", "has_output", "is_output", "replaced"]

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


def is_output(value: Any) -> bool:
    """True for a ``pulumi.Output`` or an awaitable (the other non-plain ``pulumi.Input``)."""
    sdk = sys.modules.get("pulumi")  # no Output exists before pulumi is imported
    return (sdk is not None and isinstance(value, sdk.Output)) or inspect.isawaitable(value)


def has_output(value: Any) -> bool:
    """True when ``value`` is an Output or a list holding one."""
    return is_output(value) or (isinstance(value, list | tuple) and any(is_output(v) for v in value))


def camel(name: str) -> str:
    """The camelCase stack-config key of a snake_case field (``node_role_arn`` -> ``nodeRoleArn``)."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


#: mapping key (snake_case name or the camelCase alias the stack file uses) -> identity field.
IDENTITY_KEYS = {key: name for name in IDENTITY_FIELDS for key in (name, camel(name))}


@dataclass(frozen=True)
class ClusterIdentity:
    """Who the cluster is, as the pool's resources name it: values that may be ``pulumi.Input``.

    Attributes (each a plain value, an Output, or ``None`` when not given; ``subnet_ids`` a list
    whose items may be Outputs, or one Output of the list):
        name: the cluster name (EKS ``clusterName``, GKE ``cluster``, self-managed bootstraps).
        node_role_arn: the default node IAM role ARN.
        subnet_ids: the default subnets.
        project, location: GKE project ID and region or zone.
        api_server_endpoint, certificate_authority, service_cidr: what self-managed bootstraps embed.
        settings: the validated plain ``ClusterConfig`` the renderers also read
            (``kubernetes_version``, ``ca_cert_hashes``, ``admission_plugins``); its identity
            fields hold only the plain values (``None`` where this identity holds an Output).

    Plain values were judged with the settings; Output values are never judged here (the cloud
    checks them when the resources are created).
    """

    name: Any
    node_role_arn: Any = None
    subnet_ids: Any = None
    project: Any = None
    location: Any = None
    api_server_endpoint: Any = None
    certificate_authority: Any = None
    service_cidr: Any = None
    settings: Any = dataclasses.field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, cluster: Any, settings: Any = None) -> ClusterIdentity:
        """From a ``ClusterConfig`` (its own settings) or a mapping (camelCase or snake_case keys;
        other keys ignored) with the validated ``settings`` beside it."""
        if isinstance(cluster, Mapping):
            values = {IDENTITY_KEYS[k]: v for k, v in cluster.items() if k in IDENTITY_KEYS}
            return cls(**values, settings=settings)  # type: ignore[arg-type]
        return cls(**{f: getattr(cluster, f) for f in IDENTITY_FIELDS}, settings=cluster if settings is None else settings)

    @property
    def outputs(self) -> dict[str, Any]:
        """The identity fields (snake_case) that are, or hold, Outputs."""
        return {f: getattr(self, f) for f in IDENTITY_FIELDS if has_output(getattr(self, f))}

    @property
    def kubernetes_version(self) -> str | None:
        """``settings.kubernetes_version`` (plain)."""
        return getattr(self.settings, "kubernetes_version", None)

    @property
    def ca_cert_hashes(self) -> list[str] | None:
        """``settings.ca_cert_hashes`` (plain)."""
        return getattr(self.settings, "ca_cert_hashes", None)

    @property
    def admission_plugins(self) -> list[str] | None:
        """``settings.admission_plugins`` (plain)."""
        return getattr(self.settings, "admission_plugins", None)


def replaced(cluster: Any, **values: Any) -> Any:
    """``cluster`` (a :class:`ClusterIdentity` or a ``ClusterConfig``) with ``values`` instead."""
    if dataclasses.is_dataclass(cluster):
        return dataclasses.replace(cluster, **values)
    return cluster.model_copy(update=values)
