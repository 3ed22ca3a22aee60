"""Once per cluster per Pulumi program: the guard every GPU agent component shares.

An agent chart (the device plugin, the GPU Operator, the DCGM exporter) serves all of a cluster's
GPU pools from one DaemonSet; a second install for the same cluster would fight the first over
its objects. :func:`claim` records each declaration per root stack (weakly, so a finished
program's record goes with it) and refuses a second one for the same cluster.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

import pulumi

from ..config import ConfigError, ConfigIssue

__all__ = ["claim", "cluster_key"]


class _NoRoot:
    """Stands in for the root stack outside a Pulumi program (weak-referenceable)."""


_NO_ROOT = _NoRoot()
#: root stack -> {(kind, cluster key): the name already declared}.
_INSTALLED: weakref.WeakKeyDictionary[Any, dict[tuple[str, Any], str]] = weakref.WeakKeyDictionary()


def _fail(source: str, path: str, message: str) -> ConfigError:
    return ConfigError([ConfigIssue(path, message)], source)


def claim(
    kind: str,
    name: str,
    cluster_name: Any,
    cluster: Any,
    opts: pulumi.ResourceOptions | None,
    source: str,
    *,
    path: str | None = None,
    what: str | None = None,
) -> None:
    """Record that ``kind`` (e.g. ``GpuOperator``) is declared as ``name`` for the cluster.

    Args:
        kind: the component's type name, the key of the record.
        name: the component's resource name (shown in the message of a second declaration).
        cluster_name, cluster, opts: what identifies the cluster (:func:`cluster_key`).
        source: the ``ConfigError`` source (the args class the user wrote).
        path: the issue's path (default ``kind``); what: how the message names the agent (default ``kind``).

    Raises:
        ConfigError: ``kind`` is already declared for the same cluster in this program (the chart
            must be installed once per cluster, serving all its pools), or the cluster cannot be
            identified (:func:`cluster_key`).
    """
    key, text = cluster_key(cluster_name, cluster, opts.providers if opts else None, source)
    installed = _INSTALLED.setdefault(pulumi.runtime.get_root_resource() or _NO_ROOT, {})
    if (kind, key) in installed:
        raise _fail(
            source,
            path or kind,
            f"{what or kind} is already declared for {text} (as {installed[(kind, key)]!r}); "
            "declare it once with all the cluster's pools",
        )
    installed[(kind, key)] = name


def cluster_key(cluster_name: Any, cluster: Any, providers: Any, source: str = "NvidiaDevicePluginArgs") -> tuple[object, str]:
    """What the once-per-cluster guard is keyed on, and how a message names it.

    In order: the ``kubernetes.Provider`` in ``opts.providers`` (the cluster the chart is
    installed into), else the cluster resource given as ``cluster``, else ``cluster_name`` when
    it is a plain string.

    Raises:
        ConfigError: ``cluster_name`` is a Pulumi Output and there is neither a provider nor a
            cluster resource: a string comparison of Outputs cannot tell two clusters apart.
    """
    provider = _kubernetes_provider(providers)
    if provider is not None:
        return provider, f"the kubernetes provider {getattr(provider, '_name', provider)!r}"
    if cluster is not None:
        return cluster, f"cluster {getattr(cluster, '_name', cluster)!r}"
    if isinstance(cluster_name, str) and cluster_name:
        return cluster_name, f"cluster {cluster_name!r}"
    if isinstance(cluster_name, pulumi.Output) or hasattr(cluster_name, "__await__"):
        raise _fail(
            source,
            "cluster_name",
            "is a Pulumi Output, so the once-per-cluster check cannot compare it; pass the cluster resource "
            "(NvidiaDevicePluginArgs(cluster=my_cluster, ...)) or the kubernetes.Provider of the cluster in "
            "opts=pulumi.ResourceOptions(providers={'kubernetes': k8s_provider})",
        )
    raise _fail(source, "cluster_name", f"expected the cluster's name (a non-empty string), got {cluster_name!r}")


def _kubernetes_provider(providers: Any) -> Any:
    if isinstance(providers, Mapping):
        return providers.get("kubernetes")
    for provider in providers or []:
        if getattr(provider, "package", None) == "kubernetes":
            return provider
    return None
