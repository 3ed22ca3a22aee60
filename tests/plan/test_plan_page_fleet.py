"""The plan page at fleet size: a real plan of a 100-pool stack (five teams, twenty identical pools
each), with two DaemonSets a program of such a fleet has, drawn and then opened in headless Chromium.

Checked from the DOM Chromium builds: the header row and the DaemonSet column stay in view while
the matrix box is scrolled (their boxes sit at its edges), the 100 pools are five columns listing
their pool names, the summary row counts each column's problems, and checking "show problems
only" hides the DaemonSet with no problem and the columns without one. A probe script is added to
a copy of the page for that (the page itself carries no script and its CSP allows none); a
screenshot of the page is taken and decoded. Skipped with the reason when Chromium is absent.
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
from html.parser import HTMLParser

import pytest
from conftest import ROOT

from gpu_node_pool.k8s.wellknown import DAEMONSET
from gpu_node_pool.plan import Recorded, plan_stack
from gpu_node_pool.plan.html import render_page
from gpu_node_pool.plan.page import plan_matrix

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-headless-shell")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make browser installs it, as root)")

TEAMS = ("vision", "speech", "search", "ads", "research")  # research pools: NoExecute GPU taint
POOLS = 100
DEVICE_PLUGIN = "nvidia-device-plugin/nvidia-device-plugin-chart (stand-in)"


def _team(i: int) -> str:
    return TEAMS[i % len(TEAMS)]


def _fleet_stack() -> str:
    head = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text().split("  gpu-node-pools:pools:")[0]
    pools = []
    for i in range(POOLS):
        effect = "NoExecute" if _team(i) == "research" else "NoSchedule"
        pools.append(f"""    - name: {_team(i)}-{i:03d}
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      amiType: AL2023_x86_64_NVIDIA
      scaling: {{minSize: 0, maxSize: 4}}
      taints: [nvidia.com/gpu=present:{effect}, team={_team(i)}:NoSchedule]
      labels: {{example.com/team: {_team(i)}}}
""")
    # an account whose managed-node-group quota was raised (the default 30 gives a config warning)
    return head + "  gpu-node-pools:limits: {eksNodeGroupsPerCluster: 100}\n  gpu-node-pools:pools:\n" + "".join(pools)


def _daemonset(namespace: str, name: str, pod: dict) -> Recorded:
    return Recorded(type=DAEMONSET, name=f"{namespace}-{name}", inputs={
        "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": namespace},
        "spec": {"template": {"spec": {"containers": [{"name": name, "image": "busybox"}], **pod}}}})


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    project = tmp_path_factory.mktemp("fleet")
    shutil.copy(ROOT / "Pulumi.yaml", project / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", project / "__main__.py")
    (project / "stacks").mkdir()
    (project / "stacks" / "Pulumi.fleet.yaml").write_text(_fleet_stack())
    result = plan_stack("fleet", project)
    assert not result.config_issues and len(result.pools) == POOLS
    # a program of such a fleet also has its agents: a vision-only log shipper that tolerates nothing,
    # and a node exporter that tolerates every NoSchedule taint (not the research pools' NoExecute one)
    result.resources += [
        _daemonset("logging", "log-agent", {"nodeSelector": {"example.com/team": "vision"}}),
        _daemonset("monitoring", "node-exporter", {"tolerations": [{"operator": "Exists", "effect": "NoSchedule"}]}),
    ]
    html = project / "fleet.html"
    html.write_text(render_page(plan_matrix(result)), encoding="utf-8")
    return html


class Head(HTMLParser):
    """The header's pool groups (``data-pools``), the rows' classes and the summary row's counts."""

    def __init__(self, text: str):
        super().__init__()
        self.groups: list[list[str]] = []
        self.clean_columns: list[str] = []
        self.rows: dict[str, str] = {}
        self.summary: dict[str, str] = {}
        self._row_class, self._th, self._summary = "", False, None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "th" and "data-pools" in a:
            self.groups.append(json.loads(a["data-pools"]))
            if "col-clean" in (a.get("class") or ""):
                self.clean_columns.append(a["data-column"])
        if tag == "tr" and "data-row" in a:
            self._row_class = a.get("class") or ""
        self._th = tag == "th" and a.get("scope") == "row"
        self._summary = a["data-summary"] if tag == "td" and "data-summary" in a else None

    def handle_data(self, data):
        if self._th:
            self.rows[data] = self._row_class
            self._th = False
        if self._summary is not None:
            self.summary[self._summary] = data
            self._summary = None


def test_a_hundred_pools_are_five_columns_naming_their_pools(fleet):
    head = Head(fleet.read_text(encoding="utf-8"))
    by_team = {names[0].split("-")[0]: names for names in head.groups}
    assert len(head.groups) == len(by_team) == len(TEAMS)
    for team, names in by_team.items():
        assert sorted(names) == [f"{team}-{i:03d}" for i in range(POOLS) if _team(i) == team]
    assert sorted(head.rows) == sorted([DEVICE_PLUGIN, "logging/log-agent", "monitoring/node-exporter"])
    assert head.rows[DEVICE_PLUGIN] == "clean" and head.rows["logging/log-agent"] == ""
    column = {team: ", ".join(names) for team, names in by_team.items()}
    assert head.summary[column["vision"]] == "1 does not run" and head.summary[column["research"]] == "1 does not run"
    assert set(head.clean_columns) == {column[t] for t in ("speech", "search", "ads")}
    assert all(head.summary[c] == "no problems" for c in head.clean_columns)
    assert "100 GPU pool(s) in 5 column(s)" in fleet.read_text(encoding="utf-8")


PROBE = """<pre id="probe"></pre><script>
const box = document.getElementById('matrix-box');
const corner = document.querySelector('#matrix thead th');
const head = document.querySelectorAll('#matrix thead th')[3];
const rowHead = document.querySelectorAll('#matrix tbody th')[2];
const shown = sel => [...document.querySelectorAll(sel)].filter(e => getComputedStyle(e).display !== 'none');
const out = {before: {rows: shown('#matrix tbody tr').length, columns: shown('#matrix thead th[data-pools]').length}};
out.position = [getComputedStyle(head).position, getComputedStyle(rowHead).position];
box.scrollTop = box.scrollHeight; box.scrollLeft = box.scrollWidth;
const b = box.getBoundingClientRect();
out.scrolled = {top: box.scrollTop, left: box.scrollLeft};
out.headTop = head.getBoundingClientRect().top - b.top;
out.rowHeadLeft = rowHead.getBoundingClientRect().left - b.left;
out.cornerAt = [corner.getBoundingClientRect().top - b.top, corner.getBoundingClientRect().left - b.left];
document.getElementById('problems-only').checked = true;
out.after = {rows: shown('#matrix tbody tr').map(e => e.querySelector('th').textContent),
             columns: shown('#matrix thead th[data-pools]').map(e => JSON.parse(e.dataset.pools)[0])};
document.getElementById('probe').textContent = JSON.stringify(out);
</script>"""


def _chromium(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args],
                          capture_output=True, text=True, timeout=180, check=True)


@needs_chromium
def test_chromium_keeps_the_header_and_first_column_in_view_and_the_toggle_shows_problems_only(fleet, tmp_path):
    text = fleet.read_text(encoding="utf-8")
    probed = tmp_path / "probed.html"
    probed.write_text(text.replace("default-src 'none'; style-src 'unsafe-inline'",
                                   "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'")
                      .replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom = _chromium(tmp_path, "--window-size=1000,400", "--dump-dom", probed.as_uri()).stdout
    found = json.loads(re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S).group(1).replace("&quot;", '"'))
    assert found["position"] == ["sticky", "sticky"]
    assert found["scrolled"]["top"] > 0 and found["scrolled"]["left"] > 0, found  # scrolled both ways
    assert abs(found["headTop"]) <= 1 and abs(found["rowHeadLeft"]) <= 1, found  # ...the headers stayed at its edges
    assert [abs(v) <= 1 for v in found["cornerAt"]] == [True, True]
    assert found["before"] == {"rows": 3, "columns": 5}
    assert sorted(found["after"]["rows"]) == ["logging/log-agent", "monitoring/node-exporter"]
    assert sorted(name.split("-")[0] for name in found["after"]["columns"]) == ["research", "vision"]


@needs_chromium
def test_a_screenshot_of_the_fleet_page_is_taken(fleet, tmp_path):
    shot = tmp_path / "fleet.png"
    _chromium(tmp_path, "--window-size=1280,900", f"--screenshot={shot}", fleet.as_uri())
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (1280, 900)
    assert len(data) > 20_000  # a page of text and coloured cells, not one flat colour
