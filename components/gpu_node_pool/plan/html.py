"""The DaemonSet x pool page: one self-contained HTML file (no script, no network, no external asset).

:func:`render_page` is a pure function of a :class:`Matrix` (:mod:`.html_model`), so any command that
can say, per DaemonSet and pool, "runs / does not run / kept off" draws the same page: the audit
builds its matrix from a cluster (``AuditReport.matrix``), ``gpupool plan --html`` from the plan's
DaemonSets and declared pools (:mod:`.page`).

At fleet size:

- identical pools are one column listing their names (:func:`.matrix_groups.group_columns`: same
  taints, labels and verdicts);
- the header row and the DaemonSet column stay in view while the matrix scrolls (CSS
  ``position: sticky`` inside the scrolling box ``#matrix-box``);
- a "show problems only" checkbox hides the DaemonSet rows and the pool columns without a problem
  (``doesNotRun``, ``partial``, ``notJudged``), in CSS alone (``:checked ~``): the page needs no script
  and its Content-Security-Policy allows none;
- a summary row (``tfoot``) counts the problems per column, and a line above the table the whole.

Every text the page shows or carries in an attribute is escaped by :func:`_text`: first its control characters as the
text reports escape them (:func:`gpu_node_pool.text.terminal.escape_control`: C0 and C1 controls, U+2028/U+2029, the
bidirectional formatting characters such as U+202E that reorder what follows, CVE-2021-42574, as kubectl since
CVE-2021-25743), then for HTML (:func:`html.escape`), so a name or message from a cluster shows as the text report
shows it.

Each cell carries its details in a ``<details>`` element (the toleration to add). The
``data-status``/``data-row``/``data-column``/``data-pools`` attributes let tests read the matrix from
the DOM; ``data-column`` is the group's id (its pool names, comma-separated).
"""

from __future__ import annotations

import json
from collections import Counter
from html import escape

from ..text.terminal import escape_control
from .html_model import Matrix, MatrixCell, MatrixColumn, MatrixRow
from .matrix_groups import ColumnGroup, group_columns, is_problem

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

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1d232a;background:#fff}
h1{font-size:22px;margin:0 0 4px}p.sub{color:#55606b;margin:0 0 18px}
#matrix-box{overflow:auto;max-height:85vh;max-width:100%;border:1px solid #b9c2cc;margin-bottom:24px}
table{border-collapse:separate;border-spacing:0}
th,td{border-right:1px solid #b9c2cc;border-bottom:1px solid #b9c2cc;padding:6px 8px;vertical-align:top;
font-size:13px;text-align:left}
th{background:#f0f3f6}th small{display:block;font-weight:normal;color:#55606b}
thead th{position:sticky;top:0;z-index:2}
tbody th,tfoot th{position:sticky;left:0;z-index:1}
thead th:first-child{left:0;z-index:3}
tfoot th,tfoot td{background:#f7f9fb;font-weight:600}
td.cell{min-width:150px}td.cell summary{cursor:pointer;font-weight:600}
td.cell ul{margin:6px 0 0 16px;padding:0}th.whatif{background:#e8e0f5}
.legend span{display:inline-block;padding:2px 8px;margin-right:6px;border:1px solid #b9c2cc;font-size:12px}
label.toggle{display:inline-block;margin:0 0 10px;font-size:14px;cursor:pointer}
#problems-only:checked ~ #matrix-box tr.clean,#problems-only:checked ~ #matrix-box .col-clean{display:none}
h2{font-size:17px;margin:18px 0 6px}ul.list li{margin:3px 0;font-size:13px}
"""


def _text(value: object) -> str:
    """``value`` as the page shows it: its control characters escaped as the text reports escape them
    (:func:`~gpu_node_pool.text.terminal.escape_control`), then escaped for HTML text and quoted attributes."""
    return escape(escape_control(value))


def _clean_class(clean: bool, name: str = "col-clean") -> str:
    """`` class="..."`` marking what the problems-only view hides, or ``""``."""
    return f' class="{name}"' if clean else ""


def _cell(cell: MatrixCell, row: int, column: str, whatif: bool, clean_column: bool) -> str:
    label, colour = STATUS_TEXT.get(cell.status, (cell.status, "#ffffff"))
    items = "".join(f"<li>{_text(d)}</li>" for d in cell.details)
    body = f"<details><summary>{_text(label)}</summary><div>{_text(cell.summary)}</div><ul>{items}</ul></details>"
    kind = "whatif" if whatif else "pool"
    classes = "cell col-clean" if clean_column else "cell"
    return (f'<td class="{classes}" style="background:{colour}" data-status="{_text(cell.status)}" data-row="{row}" '
            f'data-column="{_text(column)}" data-kind="{kind}" title="{_text(cell.summary)}">{body}</td>')


def _group_head(group: ColumnGroup, clean: bool) -> str:
    names = [p.id for p in group.pools]
    title = _text(names[0]) if len(names) == 1 else (  # the names fold away: a short header row at fleet size
        f"<details><summary>{len(names)} identical pools</summary><small>{_text(', '.join(names))}</small></details>")
    return (f'<th data-column="{_text(group.id)}" data-pools="{_text(json.dumps(names))}"'
            f'{_clean_class(clean)}>{title}<small>{group.nodes} node(s)</small>'
            f"<small>{_text(', '.join(group.taints) or 'no taints')}</small>"
            + (f"<small>labels {_text(', '.join(group.labels))}</small>" if group.labels else "") + "</th>")


def _count(cells: list[MatrixCell]) -> str:
    counts = Counter(c.status for c in cells if is_problem(c))
    if not counts:
        return "no problems"
    return ", ".join(f"{n} {STATUS_TEXT.get(s, (s,))[0]}" for s, n in sorted(counts.items()))


def render_page(matrix: Matrix) -> str:
    """The whole page as a string (UTF-8 HTML5, inline CSS, no scripts, no links out)."""
    groups = group_columns(matrix)
    first = [g.indexes[0] for g in groups]  # a group shows its first pool's cells (identical verdicts)
    columns = [[row.cells[i] for row in matrix.rows if i < len(row.cells)] for i in first]
    whatif_columns = [[row.whatif[j] for row in matrix.rows if j < len(row.whatif)]
                      for j in range(len(matrix.whatif_columns))]
    clean = [not any(map(is_problem, cells)) for cells in columns]
    clean_whatif = [not any(map(is_problem, cells)) for cells in whatif_columns]
    head = "".join(_group_head(g, c) for g, c in zip(groups, clean, strict=True))
    head += "".join(f'<th class="whatif{" col-clean" if c else ""}" data-column="{_text(w)}">what-if: {_text(w)}</th>'
                    for w, c in zip(matrix.whatif_columns, clean_whatif, strict=True))
    body, problem_rows = [], 0
    for r, row in enumerate(matrix.rows):
        shown = [row.cells[i] for i in first if i < len(row.cells)]
        problem = any(map(is_problem, [*shown, *row.whatif]))
        problem_rows += problem
        cells = "".join(_cell(c, r, g.id, False, cl) for c, g, cl in zip(shown, groups, clean, strict=False))
        cells += "".join(_cell(c, r, w, True, cl)
                         for c, w, cl in zip(row.whatif, matrix.whatif_columns, clean_whatif, strict=False))
        body.append(f'<tr data-row="{r}"{_clean_class(not problem, "clean")}>'
                    f'<th scope="row">{_text(row.label)}</th>{cells}</tr>')
    foot = "".join(f'<td data-summary="{_text(g.id)}"{_clean_class(c)}>{_text(_count(cells))}</td>'
                   for g, c, cells in zip(groups, clean, columns, strict=True))
    foot += "".join(f'<td data-summary="{_text(w)}"{_clean_class(c)}>{_text(_count(cells))}</td>'
                    for w, c, cells in zip(matrix.whatif_columns, clean_whatif, whatif_columns, strict=True))
    summary = (f"{len(matrix.rows)} DaemonSet(s) x {len(matrix.columns)} GPU pool(s) in {len(groups)} column(s) "
               f"(identical pools grouped); {problem_rows} DaemonSet(s) with a problem "
               f"(does not run, partial or not judged) on {sum(not c for c in clean)} column(s)")
    legend = "".join(f'<span style="background:{colour}">{_text(text)}</span>' for text, colour in STATUS_TEXT.values())
    lists = []
    for heading, items in matrix.lists:
        content = "".join(f"<li>{_text(i)}</li>" for i in items) or "<li>none</li>"
        lists.append(f'<h2>{_text(heading)}</h2><ul class="list" data-list="{_text(heading)}">{content}</ul>')
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>{_text(matrix.title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{_text(matrix.title)}</h1><p class=\"sub\">{_text(matrix.subtitle)}</p>"
        f'<p class="legend">{legend}</p><p class="summary" id="summary">{_text(summary)}</p>'
        '<input type="checkbox" id="problems-only"><label class="toggle" for="problems-only"> show problems only</label>'
        f'<div id="matrix-box"><table id="matrix"><thead><tr><th>DaemonSet</th>{head}</tr></thead>'
        f'<tbody>{"".join(body)}</tbody><tfoot><tr class="summary"><th>problems</th>{foot}</tr></tfoot></table></div>'
        f"{''.join(lists)}</body></html>\n"
    )
