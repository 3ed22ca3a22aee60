"""The DaemonSet x pool matrix that :func:`gpu_node_pool.plan.html.render_page` draws: plain, frozen records.

Cell statuses: ``runs``, ``doesNotRun``, ``keptOff``, ``partial``, ``notJudged``, ``noNodes``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MatrixColumn", "MatrixCell", "MatrixRow", "Matrix"]


@dataclass(frozen=True)
class MatrixColumn:
    """A pool: its id, its taints (kubelet form, ``key=value:Effect``), how many nodes it has, and its
    labels (``key=value``, sorted; the labels every node of the pool carries, or the pool declares, but
    the one that names the pool, such as ``gpu-node-pools/pool``: the id says it)."""

    id: str
    taints: tuple[str, ...] = ()
    nodes: int = 0
    labels: tuple[str, ...] = ()


@dataclass(frozen=True)
class MatrixCell:
    status: str
    summary: str
    details: tuple[str, ...] = ()


@dataclass(frozen=True)
class MatrixRow:
    """A DaemonSet: its label, one cell per column, and one per what-if column."""

    label: str
    cells: tuple[MatrixCell, ...]
    whatif: tuple[MatrixCell, ...] = ()


@dataclass(frozen=True)
class Matrix:
    title: str
    subtitle: str
    columns: tuple[MatrixColumn, ...]
    rows: tuple[MatrixRow, ...]
    whatif_columns: tuple[str, ...] = ()
    #: (heading, items): drift, pending pods, starved nodes... shown under the matrix.
    lists: tuple[tuple[str, tuple[str, ...]], ...] = ()
