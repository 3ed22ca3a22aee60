"""The live path: the official kubernetes client against a small local fake API server of ours.

There is no Kubernetes API server on this machine. The fake serves the four list endpoints the
audit calls from a dump, with ``limit``/``continue`` pagination, and can answer 401, 403 or
slowly. The client is pointed at it through a temporary kubeconfig.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest
import yaml
from audit_cluster import acceptance_objects

from gpu_node_pool.audit.report import run_audit
from gpu_node_pool.audit.sources import load_live
from gpu_node_pool.cli.commands import main

PATHS = {"/api/v1/nodes": "Node", "/apis/apps/v1/daemonsets": "DaemonSet", "/api/v1/pods": "Pod", "/api/v1/events": "Event"}


class FakeAPI:
    def __init__(self, objects):
        self.objects = {kind: [o for o in objects if o["kind"] == kind] for kind in PATHS.values()}
        self.status: dict[str, int] = {}  # path -> HTTP status to answer instead
        self.delay: dict[str, float] = {}
        self.requests: list[str] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                url = urlparse(self.path)
                api.requests.append(self.path)
                time.sleep(api.delay.get(url.path, 0))
                kind = PATHS.get(url.path)
                if kind is None or url.path in api.status:
                    code = api.status.get(url.path, 404)
                    body = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code,
                            "reason": {401: "Unauthorized", 403: "Forbidden"}.get(code, "NotFound"),
                            "message": f"{url.path} is {code}"}
                    return self._send(code, body)
                query = parse_qs(url.query)
                limit = int(query.get("limit", ["500"])[0])
                start = int(query.get("continue", ["0"])[0])
                items = api.objects[kind][start:start + limit]
                more = start + limit < len(api.objects[kind])
                self._send(200, {"kind": f"{kind}List", "apiVersion": "v1",
                                 "metadata": {"resourceVersion": "12345", **({"continue": str(start + limit)} if more else {})},
                                 "items": items})

            def _send(self, code, body):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def kubeconfig(self, tmp_path):
        path = tmp_path / "kubeconfig"
        path.write_text(yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": "fake",
            "clusters": [{"name": "fake", "cluster": {"server": self.url}}],
            "users": [{"name": "auditor", "user": {"token": "not-a-real-token"}}],
            "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "auditor"}}],
        }))
        return str(path)


@pytest.fixture
def api():
    fake = FakeAPI(acceptance_objects())
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


def test_live_lists_every_page_and_gives_the_same_verdicts_as_the_dump(api, tmp_path):
    snapshot = load_live(api.kubeconfig(tmp_path), "fake", page_size=2)
    assert len(snapshot.nodes) == 4 and len(snapshot.daemonsets) == 6 and snapshot.forbidden == []
    assert any("continue=2" in r for r in api.requests if r.startswith("/api/v1/nodes"))
    assert all("limit=2" in r for r in api.requests if urlparse(r).path in PATHS)
    report = run_audit(snapshot)
    cells = {r.ds.name: r.cells["GpuNodePool inference"].status for r in report.rows}
    assert cells["nvidia-device-plugin-daemonset"] == "partial" and cells["aws-node"] == "runs"
    assert [s["node"] for s in report.starved] == ["gpu-inf-2"] and report.events_available


def test_a_403_on_one_list_gives_a_partial_report_that_says_which(api, tmp_path, capsys):
    api.status["/api/v1/events"] = 403
    code = main(["audit", "--kubeconfig", api.kubeconfig(tmp_path), "--context", "fake", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1
    assert out["forbiddenLists"] == [
        "GET /api/v1/events: 403 Forbidden (list events in all namespaces); grant it with the ClusterRole of gpupool audit --print-rbac"]
    assert out["eventsAvailable"] is False
    assert out["pendingPods"][0]["reasonSource"] == "condition PodScheduled"
    assert any(n["subject"] == "GET /api/v1/events" for n in out["notJudged"])


@pytest.mark.parametrize(
    ("path", "status", "expected"),
    [("/api/v1/nodes", 401, "401 Unauthorized"), ("/api/v1/nodes", 403, "403 Forbidden; the audit needs to list nodes")],
)
def test_refusals_that_stop_the_audit_are_one_line_and_exit_2(api, tmp_path, capsys, path, status, expected):
    api.status[path] = status
    assert main(["audit", "--kubeconfig", api.kubeconfig(tmp_path), "--context", "fake"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and expected in err and "GET /api/v1/nodes" in err and "Traceback" not in err


def test_a_slow_api_is_a_timeout_not_a_hang(api, tmp_path, capsys):
    api.delay["/api/v1/pods"] = 3
    started = time.monotonic()
    assert main(["audit", "--kubeconfig", api.kubeconfig(tmp_path), "--context", "fake", "--timeout", "0.5"]) == 2
    assert time.monotonic() - started < 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "GET /api/v1/pods" in err and "timed out (limit 0.5 s)" in err


def test_a_kubeconfig_without_the_context_is_one_line_naming_it(api, tmp_path, capsys):
    config = api.kubeconfig(tmp_path)
    assert main(["audit", "--kubeconfig", config, "--context", "prod-eu"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "prod-eu" in err and config in err and "get-contexts" in err


def test_a_kubeconfig_that_does_not_exist_is_one_line(tmp_path, capsys):
    assert main(["audit", "--kubeconfig", str(tmp_path / "nope"), "--context", "x"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "nope" in err
