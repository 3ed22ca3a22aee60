"""The DaemonSet x pool page: one self-contained HTML file (no script, no network, no external asset).

:func:`render_page` is a pure function of a :class:`Matrix`, so any command that can say,
per DaemonSet and pool, "runs / does not run / kept off" can draw the same page: the audit
builds its matrix from a cluster (``AuditReport.matrix``); ``gpupool plan --html`` can build
one from the plan's DaemonSets and declared pools (``daemonsets.judge`` with each pool's
declared labels and taints, ``complete=False``) and call this function unchanged.

Cell statuses: ``runs``, ``doesNotRun``, ``keptOff``, ``partial``, ``notJudged``, ``noNodes``.
Each cell carries its details in a ``<details>`` element (the toleration to add). The
``data-status``/``data-row``/``data-column`` attributes let tests read the matrix from the DOM.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

__all__ = ["MatrixColumn", "MatrixCell", "MatrixRow", "Matrix", "render_page", "STATUS_TEXT"]

#: status -> (label shown, background colour).
STATUS_TEXT: dict[str, tuple[str, str]] = {
    "runs": ("runs", "#c8ecc8"),
    "doesNotRun": ("does not run", "#f6b8b8"),
    "keptOff": ("kept off", "#dde3ea"),
    "partial": ("partial", "#f9dca0"),
    "notJudged": ("not judged", "#eeeeee"),
    "noNodes": ("no nodes", "#f4f4f4"),
}


@dataclass(frozen=True)
class MatrixColumn:
    """A pool: its id, its taints (kubelet form) and how many nodes it has."""

    id: str
    taints: tuple[str, ...] = ()
    nodes: int = 0


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


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1d232a;background:#fff}
h1{font-size:22px;margin:0 0 4px}p.sub{color:#55606b;margin:0 0 18px}
table{border-collapse:collapse;margin-bottom:24px}
th,td{border:1px solid #b9c2cc;padding:6px 8px;vertical-align:top;font-size:13px;text-align:left}
th{background:#f0f3f6}th small{display:block;font-weight:normal;color:#55606b}
td.cell{min-width:150px}td.cell summary{cursor:pointer;font-weight:600}
td.cell ul{margin:6px 0 0 16px;padding:0}th.whatif{background:#e8e0f5}
.legend span{display:inline-block;padding:2px 8px;margin-right:6px;border:1px solid #b9c2cc;font-size:12px}
h2{font-size:17px;margin:18px 0 6px}ul.list li{margin:3px 0;font-size:13px}
"""


def _cell(cell: MatrixCell, row: int, column: str, whatif: bool) -> str:
    label, colour = STATUS_TEXT.get(cell.status, (cell.status, "#ffffff"))
    items = "".join(f"<li>{escape(d)}</li>" for d in cell.details)
    body = f"<details><summary>{escape(label)}</summary><div>{escape(cell.summary)}</div><ul>{items}</ul></details>"
    kind = "whatif" if whatif else "pool"
    return (f'<td class="cell" style="background:{colour}" data-status="{escape(cell.status)}" data-row="{row}" '
            f'data-column="{escape(column)}" data-kind="{kind}" title="{escape(cell.summary)}">{body}</td>')


def render_page(matrix: Matrix) -> str:
    """The whole page as a string (UTF-8 HTML5, inline CSS, no scripts, no links out)."""
    head = "".join(
        f'<th data-column="{escape(c.id)}">{escape(c.id)}<small>{c.nodes} node(s)</small>'
        f"<small>{escape(', '.join(c.taints) or 'no taints')}</small></th>"
        for c in matrix.columns
    )
    head += "".join(f'<th class="whatif" data-column="{escape(w)}">what-if: {escape(w)}</th>' for w in matrix.whatif_columns)
    body = []
    for i, row in enumerate(matrix.rows):
        cells = "".join(_cell(c, i, col.id, False) for c, col in zip(row.cells, matrix.columns, strict=False))
        cells += "".join(_cell(c, i, w, True) for c, w in zip(row.whatif, matrix.whatif_columns, strict=False))
        body.append(f'<tr data-row="{i}"><th scope="row">{escape(row.label)}</th>{cells}</tr>')
    legend = "".join(f'<span style="background:{colour}">{escape(text)}</span>' for text, colour in STATUS_TEXT.values())
    lists = []
    for heading, items in matrix.lists:
        content = "".join(f"<li>{escape(i)}</li>" for i in items) or "<li>none</li>"
        lists.append(f'<h2>{escape(heading)}</h2><ul class="list" data-list="{escape(heading)}">{content}</ul>')
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>{escape(matrix.title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{escape(matrix.title)}</h1><p class=\"sub\">{escape(matrix.subtitle)}</p>"
        f'<p class="legend">{legend}</p>'
        f'<table id="matrix"><thead><tr><th>DaemonSet</th>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
        f"{''.join(lists)}</body></html>\n"
    )
