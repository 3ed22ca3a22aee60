"""Identical pools of a DaemonSet x pool matrix as one column: what lets the page read at fleet size.

Pools are identical when they have the same taints, the same labels and the same verdict (status
and summary) for every DaemonSet row, what-if columns aside: such pools differ only by name and
node count, so one column lists their names and adds up their nodes. Pools with the same taints and
labels but another verdict anywhere (a partial pool of the audit, a pool with no nodes) stay in
columns of their own: grouping never hides a difference. Pure: a :class:`~.html.Matrix` in, the
groups out, in the order of the group's first pool.
"""

from __future__ import annotations

from dataclasses import dataclass

from .html_model import Matrix, MatrixCell, MatrixColumn

__all__ = ["PROBLEMS", "ColumnGroup", "group_columns", "is_problem"]

#: Cell statuses that need someone's attention: the "problems only" view keeps these.
PROBLEMS = frozenset({"doesNotRun", "partial", "notJudged"})


def is_problem(cell: MatrixCell) -> bool:
    """Whether ``cell`` is a problem (:data:`PROBLEMS`): a DaemonSet that does not (or not everywhere, or
    maybe not) run on the pool."""
    return cell.status in PROBLEMS


@dataclass(frozen=True)
class ColumnGroup:
    """Pools drawn as one column: ``indexes`` into ``Matrix.columns``, ``pools`` the columns themselves."""

    indexes: tuple[int, ...]
    pools: tuple[MatrixColumn, ...]

    @property
    def id(self) -> str:
        """The pool names, comma-separated (one name for a pool of its own)."""
        return ", ".join(p.id for p in self.pools)

    @property
    def nodes(self) -> int:
        return sum(p.nodes for p in self.pools)

    @property
    def taints(self) -> tuple[str, ...]:
        return self.pools[0].taints

    @property
    def labels(self) -> tuple[str, ...]:
        return self.pools[0].labels


def group_columns(matrix: Matrix) -> tuple[ColumnGroup, ...]:
    """The columns of ``matrix`` with identical pools grouped (see the module docstring)."""
    groups: dict[tuple, list[int]] = {}
    for i, column in enumerate(matrix.columns):
        verdicts = tuple((row.cells[i].status, row.cells[i].summary) if i < len(row.cells) else None
                         for row in matrix.rows)
        groups.setdefault((column.taints, column.labels, verdicts), []).append(i)
    return tuple(ColumnGroup(tuple(ix), tuple(matrix.columns[i] for i in ix)) for ix in groups.values())
