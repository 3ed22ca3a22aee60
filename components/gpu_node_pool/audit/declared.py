"""The pools a stack declares (read with the offline plan), drift against them, and a what-if.

The plan is called in ONE place, :func:`read_declared`, through its public entry
``gpu_node_pool.plan.plan_stack`` (the plan module is being restructured; only this function
needs to follow it). No cloud or Kubernetes API is called.

Drift, per declared pool and each node labelled ``gpu-node-pools/pool=<pool>``:

* a repelling taint on the node that the pool does not declare is *imperative* (``kubectl
  taint``, a boot script): the next node replacement loses it (mandatory, as
  ``no-imperative-taints`` in the pack) — unless it is transient: set by Kubernetes or an
  autoscaler for a while (:func:`~gpu_node_pool.k8s.controller_taints.is_transient`) or a declared startup taint;
* a declared taint missing from the node (mandatory);
* a declared label missing or different on the node (advisory). Only declared label keys are
  compared: nodes carry many controller-set labels, which are not drift;
* GPU resources in the node's capacity other than the pool promises (mandatory; :mod:`.advertised`).

The DaemonSets the stack deploys (:attr:`Declared.daemonsets`) are the plan's, plus the device plugin DaemonSet of a GPU
Operator the stack installs, which no Pulumi resource shows: the operator creates it from its ``ClusterPolicy``
(:func:`operator_plugin_daemonset`). What the stack installs that could not be modelled is kept in
:attr:`Declared.unmodelled`, for the what-if to list as not judged.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..k8s.controller_taints import is_transient
from ..k8s.selection import NodeLabels
from ..k8s.taints import Taint
from ..k8s.wellknown import AGENT_NAMESPACE_PROP, GPU_OPERATOR_TYPE
from ..text.terminal import shown
from .advertised import advertised_findings
from .cluster import Node
from .findings import Finding, see_findings

__all__ = ["DeclaredPool", "Declared", "DeclaredError", "read_declared", "drift", "operator_plugin_daemonset"]


class DeclaredError(Exception):
    """The stack could not be read (no project or stack file): one message, exit 2."""


@dataclass
class DeclaredPool:
    """A pool as the stack declares it: ``index`` is its place in ``gpu-node-pools:pools``."""

    index: int
    name: str
    backend: str
    taints: list[Taint]
    labels: dict[str, str]
    startup_taints: list[Taint] = field(default_factory=list)
    #: the plan's ``gpus``: ``mechanism`` and ``advertised`` (resource -> per node; {} when not known).
    mechanism: str = "whole-gpus"
    advertised: dict[str, int] = field(default_factory=dict)
    #: The kinds of node the pool will get, as the plan knows their labels (its backend's ``node_labels``:
    #: instance type, architecture, OS, the platform's and the declared labels); [] when the plan found none.
    kinds: list[NodeLabels] = field(default_factory=list)
    #: Who runs a device plugin on the pool's nodes without a DaemonSet of NVIDIA's chart or the GPU Operator: ``none``
    #: (nobody: one of those must), ``image`` (the node image's own: Bottlerocket NVIDIA, EKS Auto Mode) or
    #: ``platform`` (GKE's); the pool config's ``device_plugin_source``.
    device_plugin_source: str = "none"

    @property
    def where(self) -> str:
        return f"pools[{self.index}] {self.name!r}"


@dataclass
class Declared:
    stack: str
    pools: list[DeclaredPool]
    #: DaemonSets the stack registers (the device plugin chart's, synthesized from its values).
    daemonsets: list[dict[str, Any]]
    #: ``gpu-node-pools:admission`` as validated: ``{enabled, engine, action}``, or None (not read).
    admission: dict[str, Any] | None = None
    #: The namespace of the device plugin chart the stack installs from ``gpu-node-pools:devicePlugin`` (``enabled``,
    #: ``provider: nvidia-device-plugin``), or None when it installs none that way (``enabled: false``, the GPU
    #: Operator, or not read): a DaemonSet of the stack there is turned off by ``devicePlugin: {enabled: false}``.
    plugin_namespace: str | None = None
    #: The discovery agents the stack installs (names of :mod:`gpu_node_pool.k8s.discovery`: NFD, GFD, the GPU
    #: Operator; :func:`~gpu_node_pool.policies.gpu_agents.discovery_agents`): the labels they would put on the pools'
    #: nodes are on the nodes the what-if judges.
    discovery: tuple[str, ...] = ()
    #: ``(namespace, name)`` of the device plugin DaemonSet the stack's GPU Operator would create (among
    #: :attr:`daemonsets`), or None: the operator runs it unless its nodes carry
    #: ``nvidia.com/gpu.deploy.device-plugin=false``.
    operator_plugin: tuple[str, str] | None = None
    #: What the stack installs that the audit could not model: ``(subject, why)``, listed as not judged.
    unmodelled: list[tuple[str, str]] = field(default_factory=list)


def read_declared(stack: str, project_dir: str | Path | None = None) -> Declared:
    """Run the offline plan of ``stack`` and read its pools and DaemonSets.

    Raises:
        DeclaredError: no project or stack file.
        ConfigError: the stack config is invalid: every mistake, each with its path and ``file:line``, as
            ``gpupool plan`` reports them (``gpupool`` exits 2).
    """
    from ..config import ConfigError
    from ..plan import plan_stack
    from ..policies.pools import pool_declared_as

    try:
        result = plan_stack(stack, project_dir)
    except (FileNotFoundError, NotADirectoryError) as err:
        raise DeclaredError(f"--stack {stack}: {err}") from None
    if result.config_issues:
        raise ConfigError(result.config_issues, result.config_source or f"stack {stack!r}")
    from ..policies.runner import policy_resources

    resources = policy_resources(result.resources, stack=stack)
    kinds = _node_kinds(resources)
    sources = {p.name: p.device_plugin_source for p in result.config.pools} if result.config is not None else {}
    pools = [
        DeclaredPool(
            index=i,
            name=entry["name"],
            backend=entry.get("backend", ""),
            taints=[Taint.parse(t) for t in entry.get("taints") or []],
            labels=dict(entry.get("labels") or {}),
            startup_taints=[Taint.parse(t) for t in entry.get("startupTaints") or []],
            mechanism=(entry.get("gpus") or {}).get("mechanism", "whole-gpus"),
            advertised=dict((entry.get("gpus") or {}).get("advertised") or {}),
            kinds=kinds.get(pool_declared_as(f"pools[{i}]", entry["name"]), []),
            device_plugin_source=sources.get(entry["name"], "none"),
        )
        for i, entry in enumerate(result.pools)
    ]
    daemonsets = [dict(r.inputs) for r in result.resources if r.type == "kubernetes:apps/v1:DaemonSet"]
    settings = result.config.admission if result.config is not None else None
    admission = None if settings is None else {"enabled": settings.enabled, "engine": settings.engine,
                                               "action": settings.action}
    plugin = result.config.device_plugin if result.config is not None else None
    plugin_namespace = (plugin.namespace if plugin is not None and plugin.enabled and plugin.provider == "nvidia-device-plugin"
                        else None)
    namespace = next((str(r.inputs.get(AGENT_NAMESPACE_PROP) or "") for r in result.resources if r.type == GPU_OPERATOR_TYPE),
                     "")
    discovery, operator_ds, unmodelled = _stack_agents(resources, namespace)
    daemonsets += operator_ds
    operator_plugin = ((operator_ds[0]["metadata"]["namespace"], operator_ds[0]["metadata"]["name"]) if operator_ds
                       else None)
    return Declared(stack, pools, daemonsets, admission, plugin_namespace, discovery, operator_plugin, unmodelled)


def _node_kinds(resources: list[Any]) -> dict[str, list[NodeLabels]]:
    """The kinds of node of each pool the plan found (``resources``: its records as policy resources), by how it was
    declared (:func:`~gpu_node_pool.policies.pools.pool_declared_as`: ``pools[1] "inference"``)."""
    from ..policies.placement import pool_nodes
    from ..policies.pools import find_gpu_pools
    from ..sdk.props import Undecided

    found = find_gpu_pools(resources, Undecided())
    return {p.declared_as: pool_nodes(p) for p in found if p.declared_as and not p.problem}


def _stack_agents(resources: list[Any], namespace: str) -> tuple[tuple[str, ...], list[dict[str, Any]], list[tuple[str, str]]]:
    """``(discovery agents, [the GPU Operator's device plugin DaemonSet], unmodelled)`` of the stack's ``resources``
    (policy resources): the agents of :attr:`Declared.discovery`; :func:`operator_plugin_daemonset` in ``namespace``
    (the ``GpuOperator`` component's, else the chart's default); and ``(subject, why)`` for each GPU agent whose
    values are not known offline."""
    from ..gpu_agents.gpu_operator.values import NAMESPACE
    from ..policies.gpu_agents import discovery_agents, gpu_operators
    from ..sdk.props import Undecided

    undecided = Undecided()
    gpu_operators(resources, undecided)
    discovery = discovery_agents(resources, undecided)
    plugin = operator_plugin_daemonset(resources, namespace or NAMESPACE)
    unmodelled: dict[str, str] = {}
    for what, err in undecided.items:
        unmodelled.setdefault(f"GPU agent {what}", (
            f"its values are not known offline ({err.message}), so the DaemonSets it would run (a GPU Operator's device "
            "plugin among them) and the node labels it would set are not in the what-if"))
    return discovery, [plugin] if plugin is not None else [], list(unmodelled.items())


def operator_plugin_daemonset(resources: list[Any], namespace: str) -> dict[str, Any] | None:
    """The device plugin DaemonSet the stack's GPU Operator would create in ``namespace``, or None when it has none
    with ``devicePlugin.enabled`` (default true). ``resources`` are policy resources; the operator is the first of
    :func:`~gpu_node_pool.policies.gpu_agents.gpu_operators` (its ``ClusterPolicy``, else the ``gpu-operator`` chart,
    whose values the chart copies into the ClusterPolicy's spec under the same keys) whose values are known offline.

    Shape: a Kubernetes object (camelCase), as the plan's expander builds it from the same spec
    (:func:`gpu_node_pool.expand.operator_resources.operand_daemonset`: ``nvidia-device-plugin-daemonset``, label
    ``app``, selecting ``nvidia.com/gpu.deploy.device-plugin: "true"``, a label the operator sets on each NVIDIA GPU
    node that has no value for it yet, :mod:`gpu_node_pool.k8s.discovery`). Source: NVIDIA/gpu-operator@v26.7.0
    ``assets/state-device-plugin/0500_daemonset.yaml``, ``deployments/gpu-operator/templates/clusterpolicy.yaml``."""
    from ..expand.operator_resources import operand, operand_daemonset
    from ..policies.gpu_agents import CLUSTER_POLICY_TYPE, gpu_operators
    from ..sdk.props import Undecided, dig, mapping, plain

    scratch = Undecided()  # what is unknown is told by the caller's own reading
    found = [(res, ops[0]) for res in resources if (ops := gpu_operators([res], scratch))]
    policies = [(res, op) for res, op in found if res.resource_type == CLUSTER_POLICY_TYPE]
    for res, op in policies or found:
        if not op.device_plugin:
            continue
        if res.resource_type == CLUSTER_POLICY_TYPE:
            name = dig(res.props, "metadata", "name")
            spec, origin = plain(mapping(dig(res.props, "spec"))), f"ClusterPolicy {name or ''}".strip()
        else:
            spec, origin = plain(mapping(dig(res.props, "values"))), f"ClusterPolicy of chart {res.name}"
        return operand_daemonset(spec, operand("devicePlugin"), namespace, origin)
    return None


def nodes_of(pool: DeclaredPool, nodes: Iterable[Node]) -> list[Node]:
    return [n for n in nodes if n.labels.get("gpu-node-pools/pool") == pool.name]


def drift(declared: Declared, nodes: list[Node]) -> tuple[list[Finding], list[str]]:
    """``(findings, notes)`` of drift between the declared pools and their nodes. A finding about one taint of a node
    (``imperative-taint``, ``taint-value-drift``) holds it in ``data["taint"]`` (and the declared one in
    ``data["declared"]``), for the other findings to name it (:mod:`.drifted`); a ``declared-taint-missing`` finding
    holds the declared taint in ``data["declared"]`` (:mod:`.untainted` points to it)."""
    findings: list[Finding] = []
    notes: list[str] = []
    for pool in declared.pools:
        mine = nodes_of(pool, nodes)
        if not mine:
            notes.append(f"{pool.where}: no node carries gpu-node-pools/pool={pool.name} (scaled to zero?)")
            continue
        declared_ids = {t.identity: t for t in pool.taints}
        startup = {t.identity for t in pool.startup_taints}
        for node in mine:
            subject = f"Node {node.name}"
            have = {t.identity: t for t in node.taints}
            for taint in node.taints:
                if taint.identity in declared_ids and declared_ids[taint.identity].value == taint.value:
                    continue
                if is_transient(taint.key):  # noted once per node by the audit (:mod:`.transient`)
                    continue
                if taint.identity in startup:
                    notes.append(f"{subject}: transient taint {taint} (set and removed by a controller), not drift")
                    continue
                if taint.identity in declared_ids:
                    want = declared_ids[taint.identity]
                    findings.append(Finding("mandatory", "taint-value-drift", subject,
                        f"taint {taint} differs from the declared {want} of {pool.where}",
                        f"kubectl taint nodes {node.name} {want} --overwrite, and find who changed it", pool.name,
                        {"taint": taint, "declared": want}))
                    continue
                findings.append(Finding("mandatory", "imperative-taint", subject,
                    f"taint {taint} is on the node but {pool.where} does not declare it: the next node "
                    "replacement loses it", f"declare it in {pool.where}.taints, or remove it: kubectl taint nodes "
                    f"{node.name} {taint.key}:{taint.effect.value}-", pool.name, {"taint": taint}))
            for ident, want in declared_ids.items():
                if ident not in have:
                    findings.append(_missing(want, pool, node))
            more, also = advertised_findings(node, pool.name, pool.where, pool.mechanism, pool.advertised, pool.labels)
            findings += more
            notes += also
            for key, value in sorted(pool.labels.items()):
                if node.labels.get(key) != value:
                    got = "missing" if key not in node.labels else f"{node.labels[key]!r}"
                    findings.append(Finding("advisory", "label-drift", subject,
                        f"declared label {key}={value} of {pool.where} is {got} on the node",
                        "pulumi up the stack, or replace the node", pool.name))
    return findings, notes


def _missing(want: Taint, pool: DeclaredPool, node: Node) -> Finding:
    """``declared-taint-missing``: the declared taint ``want`` is not among the node's taints. When the node carries
    the same key and value with an effect Kubernetes does not have (``NO_SCHEDULE``: a ``malformed-taint`` finding of
    its own, :mod:`.report`), the finding says so and points to that one, whose fix is the fix: not ``pulumi up``,
    which would contradict it (that finding says an API server serves no such Node)."""
    subject = f"Node {node.name}"
    misspelt = next((b for b in node.bad_taints if b.key == want.key and b.value == want.value), None)
    if misspelt is None:
        return Finding("mandatory", "declared-taint-missing", subject,
            f"declared taint {want} of {pool.where} is not on the node (the pool was changed after the node joined, "
            "or the change is not applied yet)",
            "pulumi up the stack; replace the node if the provider applies taints only at launch", pool.name,
            {"declared": want})
    return Finding("mandatory", "declared-taint-missing", subject,
        f"declared taint {want} of {pool.where} is not on the node as read: the node carries {want.key}={want.value} "
        f"with effect {shown(misspelt.effect)} instead ({misspelt.place}), an effect Kubernetes does not have "
        f"({see_findings([subject], misspelt.place)})",
        f"fix {misspelt.place} as that finding says; if the node then still lacks {want}, pulumi up the stack",
        pool.name, {"declared": want})


def whatif_nodes(pool: DeclaredPool, nodes: list[Node]) -> list[tuple[str, NodeLabels, list[Taint]]]:
    """What the pool's nodes would look like with the stack's taints and labels: ``[(node name, its labels,
    taints)]``. A live node of the pool carries its own labels and the declared ones, in full. With no live
    node, one made-up node per kind the plan knows (:attr:`DeclaredPool.kinds`: instance type, architecture
    and the platform's labels decided, later labels undecided), or, when it knows none, one carrying the
    declared labels only (every other key undecided)."""
    mine = nodes_of(pool, nodes)
    if mine:
        return [(n.name, NodeLabels({**n.labels, **pool.labels}, name=n.name, complete=True, node_name=n.name),
                 list(pool.taints)) for n in mine]
    if pool.kinds:
        return [(f"(a new {pool.name} node: {kind.name})" if kind.name else f"(a new {pool.name} node)",
                 replace(kind, labels={**kind.labels, **pool.labels}), list(pool.taints)) for kind in pool.kinds]
    return [(f"(a new {pool.name} node)", NodeLabels(dict(pool.labels), name=f"a new {pool.name} node"),
             list(pool.taints))]
