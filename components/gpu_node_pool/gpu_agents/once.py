"""Once per cluster per Pulumi program: the guard every GPU agent component shares.

An agent chart (the device plugin, the GPU Operator, the DCGM exporter) serves all of a cluster's
GPU pools from one DaemonSet; a second install for the same cluster would fight the first over
its objects. :func:`claim` records each declaration per Pulumi program run and refuses a second
one for the same cluster in that run.

A run is the resource monitor of the runtime settings (``pulumi.runtime.settings.get_monitor()``:
the engine's gRPC client in ``pulumi up``/``preview``, the ``MockMonitor`` that each
``pulumi.runtime.set_mocks`` call creates in a unit test) together with the root stack resource.
The root alone does not do: ``set_mocks`` keeps the first test's root stack when one exists, so
two independent tests in one process would share it. Records are held weakly, so a finished
run's record goes with its monitor.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

import pulumi
from pulumi.runtime.settings import get_monitor, get_root_resource

from ..config import ConfigError, ConfigIssue
from ..k8s.wellknown import POOL_LABEL_KEY

__all__ = ["claim", "cluster_key", "first_cluster_warning", "pool_name_problem", "record_pool", "record_warnings",
           "run_warnings", "served_clusters_problem"]


class _NoRun:
    """Stands in for the monitor or root stack outside a Pulumi program (weak-referenceable)."""


_NO_RUN = _NoRun()
#: monitor -> root stack -> {(kind, cluster key): the name already declared}.
_INSTALLED: weakref.WeakKeyDictionary[Any, weakref.WeakKeyDictionary[Any, dict[tuple[str, Any], str]]] = (
    weakref.WeakKeyDictionary()
)


def _run_record() -> dict[tuple[str, Any], str]:
    """The declarations of the current Pulumi program run (see the module docstring)."""
    by_root = _INSTALLED.setdefault(get_monitor() or _NO_RUN, weakref.WeakKeyDictionary())
    return by_root.setdefault(get_root_resource() or _NO_RUN, {})


#: monitor -> root stack -> {id(pool model): (pool model, GpuNodePool name, cluster name or None, cluster resource or None)}.
_POOLS: weakref.WeakKeyDictionary[Any, weakref.WeakKeyDictionary[Any, dict[int, tuple[Any, str, str | None, Any]]]] = (
    weakref.WeakKeyDictionary()
)


def _run_pools() -> dict[int, tuple[Any, str, str | None, Any]]:
    by_root = _POOLS.setdefault(get_monitor() or _NO_RUN, weakref.WeakKeyDictionary())
    return by_root.setdefault(get_root_resource() or _NO_RUN, {})


#: monitor -> root stack -> {pool name: [(component, cluster name, cluster resource, name Output)]}: the same
#: records as ``_POOLS``, by pool name, so a new pool's name is checked against its namesakes only.
_BY_NAME: weakref.WeakKeyDictionary[Any, weakref.WeakKeyDictionary[Any, dict[str, list[tuple[str, Any, Any, Any]]]]] = (
    weakref.WeakKeyDictionary()
)


def _run_names() -> dict[str, list[tuple[str, Any, Any, Any]]]:
    by_root = _BY_NAME.setdefault(get_monitor() or _NO_RUN, weakref.WeakKeyDictionary())
    return by_root.setdefault(get_root_resource() or _NO_RUN, {})


def record_pool(spec: Any, component: str, cluster_name: str | None, cluster: Any = None, name_output: Any = None) -> None:
    """Record, for this program run, which cluster the ``GpuNodePool`` ``component`` (model ``spec``)
    joins: its plain ``cluster_name`` (None when an Output), the cluster resource it was given, and the Output
    its cluster name was when it was one (``eks.name``: the same object names the same cluster)."""
    _run_pools()[id(spec)] = (spec, component, cluster_name, cluster, name_output)
    _run_names().setdefault(str(getattr(spec, "name", "")), []).append((component, cluster_name, cluster, name_output))


#: monitor -> root stack -> [(component name, warning)]: the config warnings the components of a run gave.
_WARNINGS: weakref.WeakKeyDictionary[Any, weakref.WeakKeyDictionary[Any, list[tuple[str, ConfigIssue]]]] = (
    weakref.WeakKeyDictionary()
)


#: monitor -> root stack -> {(cluster name, path, message)}: the cluster warnings a run has given.
_CLUSTER_WARNED: weakref.WeakKeyDictionary[Any, weakref.WeakKeyDictionary[Any, set[tuple[str, str, str]]]] = (
    weakref.WeakKeyDictionary()
)


def record_warnings(component: str, warnings: list[ConfigIssue]) -> None:
    """Keep, for this program run, the config warnings (:func:`gpu_node_pool.config.warnings.pool_warnings`)
    the component named ``component`` gave, for :func:`run_warnings`."""
    by_root = _WARNINGS.setdefault(get_monitor() or _NO_RUN, weakref.WeakKeyDictionary())
    by_root.setdefault(get_root_resource() or _NO_RUN, []).extend((component, w) for w in warnings)


def first_cluster_warning(cluster_name: Any, warning: ConfigIssue) -> bool:
    """True the first time this program run gives ``warning`` about the cluster named ``cluster_name`` (each pool of
    one cluster finds its Kubernetes version alike): the caller reports it then, and not again."""
    by_root = _CLUSTER_WARNED.setdefault(get_monitor() or _NO_RUN, weakref.WeakKeyDictionary())
    given = by_root.setdefault(get_root_resource() or _NO_RUN, set())
    key = (str(cluster_name), warning.path, warning.message)
    if key in given:
        return False
    given.add(key)
    return True


def run_warnings() -> list[tuple[str, ConfigIssue]]:
    """``[(component name, warning)]`` the components of the current program run gave, in order."""
    by_root = _WARNINGS.get(get_monitor() or _NO_RUN)
    return list(by_root.get(get_root_resource() or _NO_RUN, [])) if by_root is not None else []


def pool_name_problem(pool_name: str, cluster_name: str | None, cluster: Any, name_output: Any = None) -> str | None:
    """Why a ``GpuNodePool`` whose pool is named ``pool_name`` cannot join this cluster, or None.

    A pool's name is its nodes' :data:`~gpu_node_pool.k8s.wellknown.POOL_LABEL_KEY` label, which the device plugin's affinity and
    ``workload_node_selector`` select on, and the name of the cluster-scoped Karpenter ``NodePool`` and
    ``EC2NodeClass`` the Karpenter and EKS Auto Mode backends create: a second pool of the same name in one
    cluster would share the first one's nodes' label and overwrite its NodePool. Two pools are in one cluster
    when their plain cluster names are equal, they were given the same cluster resource, or their cluster names
    are the same Output object (``name_output``); two different Outputs are not compared (their values are not
    known at preview)."""
    for component, name, resource, output in _run_names().get(pool_name, ()):
        same_output = name_output is not None and output is name_output
        same = (cluster_name is not None and name == cluster_name) or (cluster is not None and resource is cluster)
        if same or same_output:
            where = (f"cluster {name!r}" if name is not None and name == cluster_name
                     else "the same cluster resource" if same else "the same cluster (its name is the same Output)")
            return (f"{pool_name!r} is already the pool of GpuNodePool {component!r} on {where}; a pool's name is its "
                    f"nodes' {POOL_LABEL_KEY} label (which the device plugin and workload_node_selector select on) "
                    "and names its Karpenter NodePool, so it must be unique in a cluster: give this pool another name")
    return None


def served_clusters_problem(served: Any, cluster_name: Any, cluster: Any) -> tuple[str, str] | None:
    """``(path, message)`` when an agent for one cluster is given a pool that joins another.

    Compared only where both sides are known at preview: two plain names, or two cluster resources
    (by identity). A pool model no ``GpuNodePool`` of this run declared, or an Output name on one side,
    is not compared (nothing here can read an Output's value)."""
    pools = _run_pools()
    own = cluster_name if isinstance(cluster_name, str) and cluster_name else None
    own_resource = cluster if cluster is not None else (cluster_name if isinstance(cluster_name, pulumi.Resource) else None)
    for i, spec in enumerate(served):
        found = pools.get(id(spec))
        if found is None or found[0] is not spec:
            continue
        _, component, name, resource, _ = found
        if own is not None and name is not None and name != own:
            other = f"cluster {name!r}"
        elif own_resource is not None and resource is not None and resource is not own_resource:
            other = f"cluster resource {getattr(resource, '_name', resource)!r}"
        else:
            continue
        mine = f"cluster {own!r}" if own is not None else f"cluster resource {getattr(own_resource, '_name', own_resource)!r}"
        return (
            f"pools[{i}]",
            f"is GpuNodePool {component!r}, which joins {other}, but this agent is installed for {mine}: a chart "
            "installed into one cluster never runs on another cluster's nodes, so that pool would get no agent; "
            "declare one agent per cluster, each with that cluster's pools",
        )
    return None


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
        ConfigError: ``kind`` is already declared for the same cluster in this program run (the
            chart must be installed once per cluster, serving all its pools), or ``cluster_name`` is
            neither a name, an Input nor a cluster resource (:func:`cluster_key`).
    """
    key, text = cluster_key(cluster_name, cluster, opts.providers if opts else None, source)
    installed = _run_record()
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
    installed into), else the cluster resource given as ``cluster``, else ``cluster_name``: a
    plain string by value, a ``pulumi.Input`` (``eks_cluster.name``) by the identity of that
    Output object. Two different Outputs naming the same cluster cannot be compared (their
    values are unknown at preview), so they are not seen as one cluster: pass the cluster
    resource or the provider to have them caught.

    Raises:
        ConfigError: ``cluster_name`` is none of these (``None``, ``""``, a number...).
    """
    provider = _kubernetes_provider(providers)
    if provider is not None:
        return provider, f"the kubernetes provider {getattr(provider, '_name', provider)!r}"
    if cluster is not None:
        return cluster, f"cluster {getattr(cluster, '_name', cluster)!r}"
    if isinstance(cluster_name, str) and cluster_name:
        return cluster_name, f"cluster {cluster_name!r}"
    if isinstance(cluster_name, pulumi.Output) or hasattr(cluster_name, "__await__"):
        return _Same(cluster_name), "this cluster_name Output"
    raise _fail(
        source,
        "cluster_name",
        f"expected the cluster's name, got {cluster_name!r}; e.g. {source}(cluster_name='ml-dev', pools=[pool.spec]) "
        f"or {source}(cluster_name=eks_cluster.name, pools=[pool.spec])",
    )


class _Same:
    """A dict key that is equal only to the same object (an Output's ``==`` is not a comparison)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)


def _kubernetes_provider(providers: Any) -> Any:
    if isinstance(providers, Mapping):
        return providers.get("kubernetes")
    for provider in providers or []:
        if getattr(provider, "package", None) == "kubernetes":
            return provider
    return None
