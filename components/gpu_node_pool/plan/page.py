"""``gpupool plan --html OUT.html``: the audit's DaemonSet x GPU pool page, drawn from a plan.

:func:`plan_matrix` is a pure function of a :class:`~gpu_node_pool.plan.run.PlanResult` (no
I/O, no mocks) returning the :class:`~gpu_node_pool.plan.html.Matrix` that
:func:`gpu_node_pool.plan.html.render_page` draws unchanged; :func:`write_page` writes it.

- **Rows**: every recorded ``kubernetes:apps/v1:DaemonSet`` of the plan, in record order:
  the program's own, the children of expanded charts/YAML and the device-plugin
  chart's stand-in the plan synthesizes (marked ``(stand-in)``).
- **Columns**: every GPU pool :func:`gpu_node_pool.policies.pools.find_gpu_pools` finds among the
  recorded resources, as the pack's policies see them: the stack's ``GpuNodePool`` pools (named
  as in ``gpu-node-pools:pools``) and hand-written node groups, node pools and NodePools (named
  by their Pulumi resource name); plus the ``GpuNodePool`` s the program registered that the pack cannot see
  among resources (self-managed kubeadm/kubelet pools, which join through files), from the result's
  ``pool_models`` (:mod:`.registered`): the program's own pools, never the stack file's by position.
- **Cells**: the placement verdict the pack's coverage rules and the audit use
  (:func:`gpu_node_pool.policies.placement.place`, the DaemonSet controller's ``nodeShouldRunDaemonPod``),
  with the effective tolerations of :func:`gpu_node_pool.k8s.taints.effective_tolerations` (kind
  ``DaemonSet``), on every kind of new node of the pool (instance type x zone) carrying its declared
  labels, the labels its platform sets and its taints. A selection that depends on a label no one
  declares, or that appears only once a discovery agent the stack does not install runs, is *not
  judged*, never guessed, and the cell says which label. The platform is the one the pack's
  ``daemonsets-tolerate-gpu-taints`` policy assumes (GKE if any pool is GKE, else EKS unless every
  pool is self-managed); the stack's ``cluster.admissionPlugins`` count on self-managed clusters.

It lives in the audit package, not in ``plan/``: the audit already depends on the plan
(``declared.read_declared`` runs it), and the package's import contract forbids a cycle.

Never a silent pass: a DaemonSet whose pod spec holds a value unknown before apply, a pool
whose taints are malformed or unknown, or whose labels are unknown, gives *not judged* cells
with the reason, also listed under the matrix.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..backends._shared.gpu_pool import GpuPool
from ..k8s.effective import cluster_platform, runs_own_api_server
from ..k8s.taints import TaintError
from ..k8s.wellknown import DAEMONSET, GPU_NODE_POOL_TYPE, POOL_LABEL_KEY, UNKNOWN
from ..policies.daemonset_nodes import DaemonSet, placement_cell, read_daemonset
from .html import Matrix, MatrixCell, MatrixColumn, MatrixRow, render_page
from .run import PlanResult

if TYPE_CHECKING:
    from .check import CheckResult

__all__ = ["plan_matrix", "write_page", "plan_platform"]


def plan_platform(platforms: set[str]) -> str:
    """The cluster platform for a set of pool platforms: one cluster per stack, GKE if any pool
    is, else EKS unless every pool is self-managed (kubeadm). Same rule as the pack's
    ``daemonsets-tolerate-gpu-taints`` (``policies/rules/daemonsets_tolerate_gpu_taints.py``)."""
    return cluster_platform(platforms)


def _pool_name(pool: Any, by_urn: Mapping[str, Any]) -> str:
    """The ``GpuNodePool`` component's name for our pools, else the resource's Pulumi name."""
    res = by_urn.get(pool.urn)
    parent = getattr(res, "parent", None)
    while parent is not None:
        if parent.resource_type == GPU_NODE_POOL_TYPE:
            return str(parent.name)
        parent = parent.parent
    return str(pool.name)


def _registered_pools(result: PlanResult | CheckResult) -> list[GpuPool]:
    """The ``GpuNodePool`` s the program registered (``result.pool_models``, :mod:`.registered`), for those the pack
    cannot find among the recorded resources (self-managed kubeadm/kubelet pools join through bootstrap files, with
    no Pulumi pool resource): each named after its component, with its model's taints, node labels and platform
    (``cluster_platform``: a self-managed kubeadm pool's is ``self-managed``), declared as its component's
    ``configPath`` says (``pools[0] "dgx"`` for a pool of the stack config, ``GpuNodePool "dgx"`` for one the program
    declares itself: :func:`gpu_node_pool.policies.pools.pool_declared_as`)."""
    from ..policies.pools import pool_declared_as

    paths = {}
    for r in result.resources:
        if r.type == GPU_NODE_POOL_TYPE:
            paths.setdefault(r.name, r.inputs.get("configPath"))
    pools = []
    for model in result.pool_models:
        taints, problem = [], None
        try:
            taints = list(model.taint_list)
        except TaintError as err:
            problem = str(err)
        path = paths.get(model.name)
        declared = pool_declared_as(path if isinstance(path, str) else None, model.name)
        pools.append(GpuPool(backend=model.backend, resource_type=GPU_NODE_POOL_TYPE, name=model.name, urn="",
                             taints=taints, labels=dict(model.node_labels), where=declared,
                             platform=model.cluster_platform, declared_as=declared, problem=problem))
    return pools


def _unknown_in(value: Any) -> bool:
    return UNKNOWN in json.dumps(value, default=str)


def _labels_text(labels: Mapping[str, str] | None) -> str:
    if labels is None:
        return "unknown before apply"
    return ", ".join(f"{k}={v}" for k, v in sorted(labels.items())) or "none"


def _cell(ds: DaemonSet, placed: Any) -> MatrixCell:
    """The pack's verdict (:func:`gpu_node_pool.policies.placement.place`) for ``ds`` on a pool's new nodes
    (``placed``: the pool's :class:`~gpu_node_pool.policies.placement.PoolPlacements`)."""
    if ds.tolerations is None or ds.selection is None:
        return MatrixCell("notJudged", f"not judged: {ds.problem}")
    cell = placement_cell(placed(ds.tolerations, ds.selection))
    return MatrixCell(cell.status, cell.summary, tuple(cell.details))


def plan_matrix(result: PlanResult | CheckResult) -> Matrix:
    """The DaemonSet x GPU pool matrix of a plan (see the module docstring for the rules).

    ``result`` must come from a plan without config errors (``result.config_issues`` empty).
    """
    from ..policies.pools import find_gpu_pools
    from ..policies.runner import policy_resources
    from ..sdk.props import Undecided

    resources = policy_resources(result.resources, stack=result.stack)
    undecided = Undecided()
    pools = find_gpu_pools(resources, undecided)
    by_urn = {r.urn: r for r in resources}
    found = {_pool_name(p, by_urn) for p in pools}
    pools += [p for p in _registered_pools(result) if p.name not in found]
    platform = plan_platform({p.platform for p in pools if not p.problem})
    plugins = None
    if runs_own_api_server(platform) and result.config is not None:
        plugins = list(result.config.cluster.admission_plugins or []) or None

    from ..policies.gpu_agents import discovery_agents

    discovered = discovery_agents(resources, undecided)
    not_judged = [f"{what}: unknown before apply ({err.message})" for what, err in undecided.items]
    columns, names = [], []
    for pool in pools:
        name = _pool_name(pool, by_urn)
        if name in names:
            name = f"{name} ({pool.resource_type} {pool.name})"
        names.append(name)
        labels = tuple(f"{k}={v}" for k, v in sorted((pool.labels or {}).items()) if k != POOL_LABEL_KEY)
        columns.append(MatrixColumn(name, tuple(str(t) for t in pool.taints), 0, labels))
        if pool.problem:
            not_judged.append(f"pool {name}: taints unreadable: {pool.problem}")
        elif pool.labels is None:
            not_judged.append(f"pool {name}: node labels unknown before apply; selections judged without them")

    from ..policies.placement import PoolPlacements, pool_nodes

    placements = {id(p): PoolPlacements(p, pool_nodes(p), discovered=discovered) for p in pools if not p.problem}
    rows = []
    from ..sdk.secrets import judged_inputs

    for rec in (r for r in result.resources if r.type == DAEMONSET):
        inputs = dict(judged_inputs(rec))  # as the pack reads it; the page is cut of secrets when written
        ds = read_daemonset(inputs, platform, plugins, origin="stack")
        label = ds.display + (" (stand-in)" if rec.synthesized else "")
        spec = (inputs.get("spec") or {}) if isinstance(inputs.get("spec"), Mapping) else {}
        if _unknown_in(spec.get("template")):
            why = f"its pod template holds a value unknown before apply ({UNKNOWN})"
            not_judged.append(f"DaemonSet {label}: {why}")
            rows.append(MatrixRow(label, tuple(MatrixCell("notJudged", f"not judged: {why}") for _ in columns)))
            continue
        if ds.problem:
            not_judged.append(f"DaemonSet {label}: {ds.problem}")
        cells = []
        for pool in pools:
            if pool.problem:
                cells.append(MatrixCell("notJudged", f"not judged: the pool's taints are unreadable: {pool.problem}"))
            else:
                cells.append(_cell(ds, placements[id(pool)]))
        rows.append(MatrixRow(label, tuple(cells)))

    stopped = tuple(
        f"{row.label} on {col.id}: " + "; ".join(cell.details)
        for row in rows for cell, col in zip(row.cells, columns, strict=True) if cell.status in ("doesNotRun", "partial")
    )
    pool_lines = tuple(
        f"{c.id}: {p.display}; labels " + _labels_text(p.labels)
        for c, p in zip(columns, pools, strict=True)
    )
    lists = (
        ("DaemonSets that would not run on a GPU pool", stopped),
        ("GPU pools (as declared)", pool_lines),
        ("Not judged", tuple(not_judged)),
        ("Policy violations of the plan", tuple(f"[{v['enforcement']}] {v['policy']}: {v['message']}"
                                                for v in result.violations)),
    )
    subtitle = (f"offline plan of stack {result.stack}; platform {platform}; no cluster and no nodes exist: each cell "
                "judges every kind of new node of the pool with its declared and platform labels and its taints"
                + ("" if rows else "; the plan records no DaemonSet"))
    return Matrix("gpupool plan: DaemonSet x GPU pool", subtitle, tuple(columns), tuple(rows), (), lists)


def write_page(result: PlanResult | CheckResult, out: str | Path) -> Path:
    """Write the page of :func:`plan_matrix` to ``out`` (UTF-8); returns the path.

    Raises:
        FileExistsError: ``out`` is an existing file that is not an HTML page (a stack file, say).
        OSError: ``out`` cannot be written (missing directory, a directory, no permission).
    """
    from ..sdk.files import html_page_head, write_output_text
    from .masking import masked_page

    path = Path(out)
    page = masked_page(render_page(plan_matrix(result)), result.resources)
    write_output_text(path, page, html_page_head, "an HTML page")
    return path
