"""helm is run with its time and output bounded: a grandchild holding the pipes, a render that prints
without end, or one that never ends cannot stretch the plan past the render timeout."""

from __future__ import annotations

import os
import shutil
import time

import pytest

from gpu_node_pool.expand import Expanded, NotJudged
from gpu_node_pool.expand.helm import HelmRenderer
from gpu_node_pool.expand.run_bounded import EXIT_GRACE, run_bounded

CHART = "kubernetes:helm.sh/v4:Chart"
ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
needs_setsid = pytest.mark.skipif(shutil.which("setsid") is None, reason="util-linux setsid is not installed")


def alive(pid: int) -> bool:
    """Running (a zombie, killed and waiting for a reaper the container may not have, is not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_output_is_read_whole_when_the_command_ends():
    out = run_bounded(["sh", "-c", "printf 'a%.0s' $(seq 1 100000); echo err >&2; exit 3"], ENV, 10, max_stdout=1 << 20)
    assert (out.code, len(out.stdout), out.stderr, out.timed_out, out.too_large) == (3, 100000, b"err\n", False, "")


def test_output_past_the_cap_stops_the_command_and_its_group(tmp_path):
    pidfile = tmp_path / "pid"
    started = time.monotonic()
    out = run_bounded(["sh", "-c", f"sleep 60 & echo $! > {pidfile}; yes manifest"], ENV, 30, max_stdout=1 << 20)
    assert out.too_large == "stdout" and len(out.stdout) == 1 << 20 and out.code is None
    assert time.monotonic() - started < 25  # a bound on a hang (the cap is reached in milliseconds)
    time.sleep(0.2)
    assert not alive(int(pidfile.read_text()))  # the group's sleeping child was killed too


def test_the_deadline_kills_the_group_with_its_grandchildren(tmp_path):
    pidfile = tmp_path / "pid"
    out = run_bounded(["sh", "-c", f"sleep 60 & echo $! > {pidfile}; sleep 60"], ENV, 0.5, max_stdout=1 << 20)
    assert out.timed_out and out.code is None
    time.sleep(0.2)
    assert not alive(int(pidfile.read_text()))


@needs_setsid
def test_a_grandchild_in_its_own_session_holding_the_pipes_does_not_stretch_the_wait(tmp_path):
    pidfile = tmp_path / "pid"
    started = time.monotonic()
    out = run_bounded(["sh", "-c", f"setsid sleep 30 & echo $! > {pidfile}; echo done"], ENV, 20, max_stdout=1 << 20)
    assert out.code == 0 and out.stdout == b"done\n" and not out.timed_out
    assert time.monotonic() - started < 15  # helm's exit + EXIT_GRACE, not the grandchild's 30 s
    os.kill(int(pidfile.read_text()), 9)


@needs_setsid
def test_a_hung_render_whose_grandchild_holds_the_pipes_ends_at_the_timeout(tmp_path):
    chart = tmp_path / "chart"
    chart.mkdir()
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    helm = tmp_path / "helm"
    helm.write_text(f"#!/bin/sh\nsetsid sleep 30 &\necho $! > {tmp_path / 'pid'}\nsleep 30\n")
    helm.chmod(0o755)
    started = time.monotonic()
    with HelmRenderer(helm, timeout=1) as r:
        result = r.render(CHART, "c", {"chart": str(chart)})
    assert isinstance(result, NotJudged) and "did not finish within 1 s and was killed" in result.reason
    assert time.monotonic() - started < 1 + EXIT_GRACE + 10  # a bound on a hang, far below the 30 s
    time.sleep(0.2)
    assert not alive(int((tmp_path / "pid").read_text()))  # killed too, though it left for a session of its own


def test_a_render_that_prints_without_end_is_not_judged_with_the_cap(tmp_path, monkeypatch):
    from gpu_node_pool.expand import helm as helm_module

    monkeypatch.setattr(helm_module, "MAX_MANIFEST_BYTES", 1 << 20)
    chart = tmp_path / "chart"
    chart.mkdir()
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    helm = tmp_path / "helm"
    helm.write_text("#!/bin/sh\nyes 'a: b'\n")
    helm.chmod(0o755)
    with HelmRenderer(helm, timeout=20) as r:
        result = r.render(CHART, "c", {"chart": str(chart)})
    assert isinstance(result, NotJudged) and "printed more than 1 MiB of manifests and was stopped" in result.reason


def test_a_chart_fail_message_that_is_not_utf8_is_one_line_not_an_error(tmp_path):
    chart = tmp_path / "chart"
    chart.mkdir()
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    helm = tmp_path / "helm"
    helm.write_text("#!/bin/sh\nprintf 'Error: execution error at (c/templates/x.yaml:1:3): caf\\351\\n' >&2\nexit 1\n")
    helm.chmod(0o755)
    with HelmRenderer(helm) as r:
        result = r.render(CHART, "c", {"chart": str(chart)})
    assert isinstance(result, NotJudged) and not isinstance(result, Expanded)
    assert result.reason.endswith("failed: Error: execution error at (c/templates/x.yaml:1:3): caf\ufffd")
