"""The audit page in a real headless Chromium (Debian's ``chromium``): the DOM it builds holds the
matrix, and a screenshot is not blank. Skipped, with the reason, when chromium is absent
(``make``/``.ci/run`` install it)."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest
from audit_cluster import acceptance_objects, as_list

from gpu_node_pool.audit.report import run_audit
from gpu_node_pool.audit.sources import load_dump
from gpu_node_pool.plan.html import Matrix, MatrixCell, MatrixColumn, MatrixRow, render_page

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-headless-shell")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make browser installs it, as root)")


class Cells(HTMLParser):
    """(row, column, status) of every matrix cell, and every URL the page would load."""

    def __init__(self):
        super().__init__()
        self.cells, self.urls, self.row_labels, self._in_row_th = [], [], [], False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "td" and "data-status" in a:
            self.cells.append((int(a["data-row"]), a["data-column"], a["data-status"], a["data-kind"]))
        for key in ("src", "href"):
            if key in a:
                self.urls.append(a[key])
        self._in_row_th = tag == "th" and a.get("scope") == "row"

    def handle_data(self, data):
        if self._in_row_th:
            self.row_labels.append(data)
            self._in_row_th = False


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args],
                          capture_output=True, text=True, timeout=120, check=True)


def png_pixels(path: Path) -> tuple[int, int, set[bytes]]:
    """Decode an 8-bit RGB/RGBA non-interlaced PNG (what Chromium writes): (width, height, colours)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and colour in (2, 6) and interlace == 0
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw, stride, prev, colours = zlib.decompress(idat), width * bpp, bytearray(width * bpp), set()
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 4 == 0:
            colours.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp * 4))
        prev = line
    return width, height, colours


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("page")
    dump = tmp / "dump.json"
    import json

    dump.write_text(json.dumps(as_list(acceptance_objects())))
    report = run_audit(load_dump(dump))
    html = tmp / "audit.html"
    html.write_text(render_page(report.matrix()), encoding="utf-8")
    return report, html, tmp


def test_the_page_is_self_contained(page):
    _, html, _ = page
    parser = Cells()
    parser.feed(html.read_text())
    assert parser.urls == []
    assert not re.search(r"<script|<link|@import|url\(", html.read_text())


@needs_chromium
def test_chromium_renders_the_same_matrix_as_the_report(page):
    report, html, tmp = page
    dom = chromium(tmp, "--dump-dom", html.as_uri()).stdout
    parser = Cells()
    parser.feed(dom)
    assert "<table" in dom and 'id="matrix"' in dom  # the DOM Chromium built, not our text
    from_dom = {(parser.row_labels[r], col): status for r, col, status, kind in parser.cells if kind == "pool"}
    expected = {(r.ds.display, pid): c.status for r in report.rows for pid, c in r.cells.items()}
    assert from_dom == expected
    assert from_dom[("kube-system/nvidia-device-plugin-daemonset", "GpuNodePool inference")] == "partial"
    assert "maintenance, operator: Exists" in dom  # the missing toleration is in the cell's details


@needs_chromium
def test_the_screenshot_is_not_blank(page):
    _, html, tmp = page
    shot = tmp / "shot.png"
    chromium(tmp, "--window-size=1280,900", f"--screenshot={shot}", html.as_uri())
    width, height, colours = png_pixels(shot)
    assert (width, height) == (1280, 900)
    assert len(colours) > 20  # text, the red/green/amber cells, borders: far from one flat colour


def test_the_renderer_is_a_pure_function_of_a_matrix():
    m = Matrix("t", "s", (MatrixColumn("pool a", ("k=v:Eff",), 1),),
               (MatrixRow("ns/ds <x>", (MatrixCell("doesNotRun", "stopped", ("add {key: k}",)),)),))
    html = render_page(m)
    assert html == render_page(m) and "ns/ds &lt;x&gt;" in html and 'data-status="doesNotRun"' in html
