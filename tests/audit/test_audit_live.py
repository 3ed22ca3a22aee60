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
        self.first: dict[str, list[tuple[int, dict[str, str]]]] = {}  # path -> answers (status, headers) before the real one
        self.endless: set[str] = set()  # paths whose continue token never changes
        self.drip: dict[str, float] = {}  # path -> seconds between bytes of the body
        self.stopped = False
        self.requests: list[str] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                url = urlparse(self.path)
                api.requests.append(self.path)
                time.sleep(api.delay.get(url.path, 0))
                if api.first.get(url.path):
                    code, headers = api.first[url.path].pop(0)
                    return self._send(code, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code,
                                             "message": "try again later"}, headers)
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
                token = {"continue": "0"} if url.path in api.endless else {"continue": str(start + limit)} if more else {}
                self._send(200, {"kind": f"{kind}List", "apiVersion": "v1",
                                 "metadata": {"resourceVersion": "12345", **token}, "items": items},
                           drip=api.drip.get(url.path, 0))

            def _send(self, code, body, headers=None, drip=0):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                try:
                    if drip:
                        for i in range(len(data)):
                            if api.stopped:
                                return
                            self.wfile.write(data[i:i + 1])
                            self.wfile.flush()
                            time.sleep(drip)
                    else:
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
    fake.stopped = True
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


def test_a_403_on_daemonsets_is_a_partial_verdict_never_clean(api, tmp_path, capsys):
    api.objects["Pod"] = []
    api.objects["DaemonSet"] = []
    api.objects["Node"] = [n for n in api.objects["Node"] if not n["spec"].get("taints")][:1]
    api.status["/apis/apps/v1/daemonsets"] = 403
    config = api.kubeconfig(tmp_path)
    for fail_on in ("info", "mandatory"):
        code = main(["audit", "--kubeconfig", config, "--context", "fake", "--json", "--fail-on", fail_on])
        out = json.loads(capsys.readouterr().out)
        assert code == 1 and out["exitCode"] == 1 and out["partial"] is True
        assert [line.split(":")[0] for line in out["listsNotRead"]] == ["GET /apis/apps/v1/daemonsets"]
    assert main(["audit", "--kubeconfig", config, "--context", "fake", "--fail-on", "none"]) == 0
    text = capsys.readouterr().out
    assert "PARTIAL: GET /apis/apps/v1/daemonsets: 403 Forbidden" in text
    assert main(["audit", "--kubeconfig", config, "--context", "fake"]) == 1
    assert "PARTIAL verdict: 1 list(s) not read, no GPU node judged; exit 1" in capsys.readouterr().out  # its one node is a CPU node


def test_a_continue_token_that_never_ends_stops_and_the_list_counts_as_not_read(api, tmp_path, capsys):
    api.endless.add("/api/v1/events")
    code = main(["audit", "--kubeconfig", api.kubeconfig(tmp_path), "--context", "fake", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["partial"] is True and out["eventsAvailable"] is False
    [line] = out["listsNotRead"]
    assert line.startswith("GET /api/v1/events: the server sent the continue token '0' twice")
    assert sum(r.startswith("/api/v1/events") for r in api.requests) == 2


def test_a_never_ending_node_list_ends_the_audit_with_one_line(api, tmp_path, capsys):
    api.endless.add("/api/v1/nodes")
    assert main(["audit", "--kubeconfig", api.kubeconfig(tmp_path), "--context", "fake"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "GET /api/v1/nodes" in err and "twice" in err


def test_a_drip_feeding_server_is_bounded_by_the_whole_request_deadline(api, tmp_path, capsys):
    api.drip["/api/v1/nodes"] = 0.02  # every byte in time for a read timeout, the whole body in minutes
    started = time.monotonic()
    assert main(["audit", "--kubeconfig", api.kubeconfig(tmp_path), "--context", "fake", "--timeout", "1"]) == 2
    assert time.monotonic() - started < 30  # a bound on a hang, not a timing assertion: the body takes ~10 min
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "GET /api/v1/nodes" in err and "timed out (limit 1 s) before the whole answer came" in err


def test_429_and_503_are_retried_after_retry_after(api, tmp_path, monkeypatch):
    from gpu_node_pool.audit import paging

    waits: list[float] = []
    monkeypatch.setattr(paging, "_wait", waits.append)
    api.first["/api/v1/nodes"] = [(429, {"Retry-After": "3"}), (503, {})]
    api.first["/api/v1/pods"] = [(503, {"Retry-After": "120"})]
    snapshot = load_live(api.kubeconfig(tmp_path), "fake")
    assert len(snapshot.nodes) == 4 and snapshot.forbidden == [] and snapshot.unread == []
    assert waits == [3.0, 2.0, paging.MAX_RETRY_WAIT]  # Retry-After; backoff 2^(attempt-1); a long Retry-After cut


def test_a_429_that_never_stops_fails_the_list_after_the_attempts(api, tmp_path, monkeypatch, capsys):
    from gpu_node_pool.audit import paging

    monkeypatch.setattr(paging, "_wait", lambda s: None)
    api.first["/api/v1/events"] = [(429, {"Retry-After": "1"})] * paging.MAX_ATTEMPTS
    code = main(["audit", "--kubeconfig", api.kubeconfig(tmp_path), "--context", "fake", "--json", "--fail-on", "none"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["partial"] is True
    assert out["listsNotRead"] == ["GET /api/v1/events: HTTP 429 Too Many Requests; the list was not read"]


def test_an_empty_cluster_and_an_empty_dump_give_the_same_partial_verdict(api, tmp_path, capsys):
    api.objects = {kind: [] for kind in api.objects}
    assert main(["audit", "--kubeconfig", api.kubeconfig(tmp_path), "--context", "fake", "--json"]) == 1
    live = json.loads(capsys.readouterr().out)
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": []}))
    assert main(["audit", "--cluster-dump", str(dump), "--json"]) == 1
    offline = json.loads(capsys.readouterr().out)
    for out in (live, offline):
        assert out["partial"] is True and out["listsNotRead"][-1].startswith("GET /api/v1/nodes: no Node was read")
    same = ("exitCode", "partial", "summary", "findings", "gpuPools")
    assert {k: live[k] for k in same} == {k: offline[k] for k in same}
    # the empty cluster's DaemonSet and pod lists were read, empty; the dump holds neither, which it says
    assert len(live["listsNotRead"]) == 1
    assert [line.split(":")[:2] for line in offline["listsNotRead"][:2]] == [
        ["GET /apis/apps/v1/daemonsets", " the dump holds no DaemonSets"], ["GET /api/v1/pods", " the dump holds no Pods"]]


@pytest.mark.parametrize("users", [
    [{"name": "auditor", "user": "token-SEKRET-123"}],
    {"name": "auditor", "user": {"token": "token-SEKRET-123"}},
    [{"name": "auditor", "user": {"token": "token-SEKRET-123", "exec": 5}}],
])
def test_a_kubeconfig_of_the_wrong_shape_is_one_line_without_its_credentials(api, tmp_path, capsys, users):
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "fake",
        "clusters": [{"name": "fake", "cluster": {"server": api.url}}], "users": users,
        "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "auditor"}}]}))
    code = main(["audit", "--kubeconfig", str(path), "--timeout", "2"])
    err = capsys.readouterr().err.strip()
    assert "SEKRET" not in err and "Traceback" not in err and len(err.splitlines()) <= 1
    assert code in (0, 1, 2) and code != 70


def test_a_loader_error_quoting_a_credential_is_redacted(tmp_path):
    from gpu_node_pool.audit.sources import _redacted

    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump({"users": [{"name": "u", "user": {"token": "token-SEKRET-123",
                                                                     "exec": {"args": ["--secret", "arg-SEKRET"]}}}]}))
    message = _redacted("invalid token 'token-SEKRET-123' near arg-SEKRET", str(path))
    assert "SEKRET" not in message and message.count("[secret]") == 2


def test_a_malformed_live_item_is_named_by_its_place_in_the_whole_list_not_in_its_page(api, tmp_path):
    pods = api.objects["Pod"]
    pods.insert(3, {"kind": "Pod", "metadata": {"namespace": "ml"}, "spec": {}, "status": {}})  # page 2 of 2 pods
    pods.insert(5, "not an object")
    snapshot = load_live(api.kubeconfig(tmp_path), "fake", page_size=2)
    [nameless] = [line for line in snapshot.skipped if line.startswith("Pod at")]
    assert nameless.startswith("Pod at GET /api/v1/pods item 3 of the list (namespace 'ml'): no metadata.name")
    assert "a hand-made dump" not in nameless and "is it a Kubernetes API server?" in nameless
    assert "GET /api/v1/pods item 5 of the list: a string \"not an object\", not an object; skipped" in snapshot.problems
    assert not any("items[" in line for line in [*snapshot.skipped, *snapshot.problems])


def test_a_live_list_is_not_searched_for_copies(api, tmp_path):
    snapshot = load_live(api.kubeconfig(tmp_path), "fake", page_size=2)
    assert snapshot.live and snapshot.remembered == 0 and len(snapshot.nodes) == 4
