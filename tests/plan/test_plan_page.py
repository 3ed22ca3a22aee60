"""``gpupool plan --html OUT``: the audit's DaemonSet x GPU pool page drawn from a plan.

The matrix is read back from the HTML file, and (when Debian's chromium is installed) from the
DOM headless Chromium builds of it, with the flags the audit page test uses.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main
from gpu_node_pool.k8s.wellknown import DAEMONSET, UNKNOWN
from gpu_node_pool.plan import plan_stack
from gpu_node_pool.plan.page import plan_matrix
from gpu_node_pool.sdk.record import Resource

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-headless-shell")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make browser installs it, as root)")
DEVICE_PLUGIN = "nvidia-device-plugin/nvidia-device-plugin-chart (stand-in)"
LOG_AGENT = "logging/log-agent"


class Page(HTMLParser):
    """{(row label, column): status} of the matrix, and every URL the page would load."""

    def __init__(self, text: str):
        super().__init__()
        self.rows: list[str] = []
        self.cells: list[tuple[int, str, str]] = []
        self.urls: list[str] = []
        self._row_th = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "td" and "data-status" in a:
            self.cells.append((int(a["data-row"]), a["data-column"], a["data-status"]))
        self.urls += [a[k] for k in ("src", "href") if k in a]
        self._row_th = tag == "th" and a.get("scope") == "row"

    def handle_data(self, data):
        if self._row_th:
            self.rows.append(data)
            self._row_th = False

    @property
    def matrix(self) -> dict[tuple[str, str], str]:
        return {(self.rows[r], col): status for r, col, status in self.cells}


def plan_page(capsys, out: Path, *args: str) -> tuple[int, str, str]:
    code = main(["plan", *args, "--html", str(out)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def dev_page(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dev") / "dev.html"
    assert main(["plan", "--stack", "dev", "--project-dir", str(ROOT), "--html", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def violating_page(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("violating") / "violating.html"
    code = main(["plan", "--stack", "demo", "--project-dir", str(ROOT / "examples" / "violating"), "--html", str(out)])
    assert code == 1  # the example violates mandatory policies; the page is written anyway
    return out


def test_dev_page_is_self_contained_and_shows_the_device_plugin_running_on_inference(dev_page):
    text = dev_page.read_text(encoding="utf-8")
    page = Page(text)
    assert page.urls == [] and not re.search(r"<script|<link|@import|url\(", text)
    assert page.matrix == {(DEVICE_PLUGIN, "inference"): "runs"}
    assert "nvidia.com/gpu=present:NoSchedule" in text  # the column's taint, in its header


def test_violating_page_shows_the_log_agent_stopped_by_gpu_taints(violating_page):
    text = violating_page.read_text(encoding="utf-8")
    matrix = Page(text).matrix
    # every GPU pool the pack sees: the GpuNodePool and the hand-written ones
    assert {col for _, col in matrix} == {"training", "hidden-taint-gpu", "legacy-gpu", "burst-gpu"}
    assert {col: s for (row, col), s in matrix.items() if row == LOG_AGENT} == {
        "training": "doesNotRun", "hidden-taint-gpu": "doesNotRun", "burst-gpu": "doesNotRun",
        "legacy-gpu": "runs",  # the one GPU pool without a taint
    }
    assert matrix[(DEVICE_PLUGIN, "training")] == "runs"
    # not one of the plugin's pools (no gpu-node-pools/pool label): kept off by its selection, as the pack says
    assert matrix[(DEVICE_PLUGIN, "hidden-taint-gpu")] == "keptOff"
    # the cell names the toleration to add
    assert re.search(r"add toleration [^<]*\{key: workload, operator: Exists, effect: NoExecute\}", text)


def test_the_page_matrix_is_the_audit_verdict_of_the_policy(violating_page):
    """The page and the pack agree: each DaemonSet the pack's daemonsets-tolerate-gpu-taints policy
    flags has a doesNotRun cell, and one with no such cell is not flagged."""
    result = plan_stack("demo", ROOT / "examples" / "violating")
    flagged = {m.group(1) for v in result.violations if v["policy"] == "daemonsets-tolerate-gpu-taints"
               for m in [re.match(r"DaemonSet (\S+) ", v["message"])] if m}
    matrix = plan_matrix(result)
    # a taint not tolerated: doesNotRun, or kept off by its selection and naming the toleration it lacks too
    stopped = {row.label.removesuffix(" (stand-in)") for row in matrix.rows for cell in row.cells
               if cell.status == "doesNotRun" or any(d.startswith("add toleration") for d in cell.details)}
    assert LOG_AGENT in flagged
    assert flagged <= stopped


def test_pools_the_pack_cannot_see_come_from_the_plan_entries(tmp_path):
    """onprem's kubeadm/kubelet pools join through bootstrap files (no Pulumi pool resource):
    their columns come from the plan's pool entries, judged on a self-managed (kubeadm) cluster."""
    out = tmp_path / "onprem.html"
    assert main(["plan", "--stack", "onprem", "--project-dir", str(ROOT), "--html", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert Page(text).matrix == {(DEVICE_PLUGIN, "dgx"): "runs", (DEVICE_PLUGIN, "workstations"): "runs"}
    assert "example.com/dgx:NoSchedule" in text and "platform self-managed" in text


@needs_chromium
@pytest.mark.parametrize("which", ["dev", "violating"])
def test_chromium_builds_the_same_matrix(request, tmp_path, which):
    html = request.getfixturevalue(f"{which}_page")
    dom = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", html.as_uri()],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert 'id="matrix"' in dom
    from_dom = Page(dom).matrix
    assert from_dom == Page(html.read_text(encoding="utf-8")).matrix
    if which == "dev":
        assert from_dom[(DEVICE_PLUGIN, "inference")] == "runs"
    else:
        assert from_dom[(LOG_AGENT, "training")] == "doesNotRun"


def test_json_stays_one_document_and_the_page_is_announced_on_stderr(capsys, tmp_path):
    out = tmp_path / "p.html"
    code, stdout, stderr = plan_page(capsys, out, "--stack", "dev", "--project-dir", str(ROOT), "--json")
    assert code == 0 and json.loads(stdout)["command"] == "plan"
    assert f"wrote   {out}" in stderr and out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_an_unwritable_path_is_one_line_and_exit_2(capsys, tmp_path):
    out = tmp_path / "missing-dir" / "p.html"
    code, stdout, stderr = plan_page(capsys, out, "--stack", "dev", "--project-dir", str(ROOT))
    assert code == 2 and not out.exists()
    assert stderr.strip().count("\n") == 0 and str(out) in stderr and "--html" in stderr and "Traceback" not in stderr


def test_a_daemonset_unknown_before_apply_is_not_judged_never_passed():
    result = plan_stack("dev", ROOT)
    result.resources.append(Resource(DAEMONSET, "agent", {
        "metadata": {"name": "agent", "namespace": "ops"},
        "spec": {"template": {"spec": {"tolerations": UNKNOWN, "containers": [{"name": "a", "image": "a"}]}}},
    }))
    matrix = plan_matrix(result)
    row = next(r for r in matrix.rows if r.label == "ops/agent")
    assert [c.status for c in row.cells] == ["notJudged"]
    assert any(item.startswith("DaemonSet ops/agent: ") for item in dict(matrix.lists)["Not judged"])


@pytest.mark.parametrize("fmt", [["--json"], ["--format", "json"], ["--format", "sarif"]])
def test_with_a_machine_format_stdout_stays_one_document_and_the_page_note_goes_to_stderr(capsys, tmp_path, fmt):
    import json

    code, out, err = plan_page(capsys, tmp_path / "p.html", "--stack", "dev", "--project-dir", str(ROOT), *fmt)
    assert code == 0
    json.loads(out)  # a CI step pipes this into jq or a SARIF upload
    assert "DaemonSet x GPU pool page" in err and (tmp_path / "p.html").is_file()
