"""Where the audit reads the cluster from: a ``kubectl`` dump, or the API (read-only).

Dump: the JSON (or YAML) of ``kubectl get nodes,daemonsets,pods,events -A -o json``, i.e. a
``List`` (``v1``) whose ``items`` carry ``kind``; typed lists (``NodeList``...) are accepted
too; a directory means every ``*.json``/``*.yaml``/``*.yml`` file in it. Events are optional.

Live: the official ``kubernetes`` client, with the kubeconfig (``--kubeconfig``, else
``$KUBECONFIG``, else ``~/.kube/config``) and ``--context``, or the in-cluster service
account. Only ``list`` calls, all namespaces, ``limit`` + ``continue`` pagination, raw JSON
(``_preload_content=False``) so that both sources yield the same camelCase objects. A 403 on
DaemonSets, Pods or Events gives a partial snapshot that names the forbidden list; a 403 on
Nodes, a 401, a timeout or a refused connection ends the audit (:class:`SourceError`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = ["SourceError", "Snapshot", "load_dump", "load_live", "LISTS"]

#: kind -> (snapshot attribute, API call description), in the order the live source lists them.
LISTS: dict[str, tuple[str, str]] = {
    "Node": ("nodes", "GET /api/v1/nodes"),
    "DaemonSet": ("daemonsets", "GET /apis/apps/v1/daemonsets"),
    "Pod": ("pods", "GET /api/v1/pods"),
    "Event": ("events", "GET /api/v1/events"),
}
_LIST_KINDS = {"List", *(f"{kind}List" for kind in LISTS)}


class SourceError(Exception):
    """The cluster could not be read at all; the message is one line with the fix (exit 2)."""


@dataclass
class Snapshot:
    """What was read. Objects are plain camelCase mappings, as the API serves them."""

    source: str
    nodes: list[dict[str, Any]] = field(default_factory=list)
    daemonsets: list[dict[str, Any]] = field(default_factory=list)
    pods: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    #: kinds that were read (a dump without events has no "Event").
    read: set[str] = field(default_factory=set)
    #: one line per list the API refused (partial RBAC).
    forbidden: list[str] = field(default_factory=list)
    #: one line per object or file part that was skipped.
    problems: list[str] = field(default_factory=list)


# --- dump -----------------------------------------------------------------------------------


def _read_file(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise SourceError(f"--cluster-dump {path}: cannot read it ({err.__class__.__name__}: {err}); "
                          "pass the file written by kubectl get nodes,daemonsets,pods,events -A -o json") from None
    try:
        if path.suffix in (".yaml", ".yml"):
            return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        return json.loads(text)
    except (json.JSONDecodeError, yaml.YAMLError) as err:
        first = str(err).splitlines()[0]
        raise SourceError(f"--cluster-dump {path}: not valid {'YAML' if path.suffix != '.json' else 'JSON'} "
                          f"({first}); write it with kubectl get nodes,daemonsets,pods,events -A -o json") from None


def _add_list(snapshot: Snapshot, doc: Any, where: str) -> None:
    if not isinstance(doc, Mapping) or doc.get("kind") not in _LIST_KINDS or not isinstance(doc.get("items"), list):
        kind = doc.get("kind") if isinstance(doc, Mapping) else type(doc).__name__
        raise SourceError(
            f"--cluster-dump {where}: a kubectl List is expected (kind List with items), got {kind!r}; "
            "write it with kubectl get nodes,daemonsets,pods,events -A -o json"
        )
    typed = doc["kind"][: -len("List")] if doc["kind"] != "List" else None
    for i, item in enumerate(doc["items"]):
        kind = item.get("kind", typed) if isinstance(item, Mapping) else None
        if kind not in LISTS:
            if not isinstance(item, Mapping):
                snapshot.problems.append(f"{where} items[{i}]: not an object; skipped")
            continue  # other kinds (Services...) are not the audit's business
        attr = LISTS[kind][0]
        getattr(snapshot, attr).append(dict(item))
        snapshot.read.add(kind)


def load_dump(path: str | Path) -> Snapshot:
    """Read a dump file or a directory of dump files.

    Raises:
        SourceError: missing/unreadable path, invalid JSON/YAML, a document that is not a
            kubectl ``List``, or no Node at all (nothing to audit).
    """
    root = Path(path)
    if root.is_dir():
        files = sorted(p for p in root.iterdir() if p.suffix in (".json", ".yaml", ".yml") and p.is_file())
        if not files:
            raise SourceError(f"--cluster-dump {root}: the directory has no .json/.yaml files; "
                              "put the output of kubectl get ... -o json there")
    elif root.exists():
        files = [root]
    else:
        raise SourceError(f"--cluster-dump {root}: no such file or directory")
    snapshot = Snapshot(source=f"dump {root}")
    for file in files:
        _add_list(snapshot, _read_file(file), str(file))
    if "Node" not in snapshot.read:
        raise SourceError(f"--cluster-dump {root}: no Node objects in it; the audit needs the nodes "
                          "(kubectl get nodes,daemonsets,pods,events -A -o json)")
    return snapshot


# --- live -----------------------------------------------------------------------------------


def _client(kubeconfig: str | None, context: str | None, in_cluster: bool, timeout: float) -> Any:
    from kubernetes import client, config
    from kubernetes.config.config_exception import ConfigException

    cfg = client.Configuration()
    try:
        if in_cluster:
            config.load_incluster_config(client_configuration=cfg)
        else:
            config.load_kube_config(config_file=kubeconfig, context=context, client_configuration=cfg)
    except ConfigException as err:
        where = "in-cluster config" if in_cluster else f"kubeconfig {kubeconfig or '(default: $KUBECONFIG or ~/.kube/config)'}"
        hint = (f"list the contexts with kubectl config get-contexts{' --kubeconfig ' + kubeconfig if kubeconfig else ''}"
                if context else "pass --kubeconfig FILE and --context NAME")
        raise SourceError(f"{where}: {str(err).splitlines()[0]}; {hint}") from None
    except (OSError, yaml.YAMLError, TypeError, ValueError) as err:
        raise SourceError(f"kubeconfig {kubeconfig}: cannot be read ({str(err).splitlines()[0]}); "
                          "pass a valid kubeconfig with --kubeconfig") from None
    cfg.retries = 0  # one answer per call: a timeout is reported, not retried silently
    return client.ApiClient(cfg)


def _list_all(call: Callable[..., Any], what: str, timeout: float, page: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    token = None
    while True:
        kwargs: dict[str, Any] = {"limit": page, "_preload_content": False, "_request_timeout": timeout}
        if token:
            kwargs["_continue"] = token
        response = call(**kwargs)
        body = json.loads(response.data or b"{}")
        items.extend(dict(i) for i in body.get("items") or [])
        token = (body.get("metadata") or {}).get("continue")
        if not token:
            return items


def load_live(
    kubeconfig: str | None = None,
    context: str | None = None,
    *,
    in_cluster: bool = False,
    timeout: float = 30.0,
    page_size: int = 500,
) -> Snapshot:
    """List Nodes, DaemonSets, Pods and Events (all namespaces) through the API, read-only.

    Raises:
        SourceError: no usable kubeconfig/context, 401, 403 on Nodes, a timeout, no connection.
    """
    import urllib3
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    api = _client(kubeconfig, context, in_cluster, timeout)
    core, apps = client.CoreV1Api(api), client.AppsV1Api(api)
    calls = {
        "Node": core.list_node,
        "DaemonSet": apps.list_daemon_set_for_all_namespaces,
        "Pod": core.list_pod_for_all_namespaces,
        "Event": core.list_event_for_all_namespaces,
    }
    host = api.configuration.host
    where = f"context {context}" if context else ("in-cluster" if in_cluster else "current context")
    snapshot = Snapshot(source=f"API {host} ({where}, read-only)")
    try:
        for kind, call in calls.items():
            attr, what = LISTS[kind]
            try:
                setattr(snapshot, attr, _list_all(call, what, timeout, page_size))
                snapshot.read.add(kind)
            except ApiException as err:
                if err.status == 401:
                    raise SourceError(f"{what} at {host}: 401 Unauthorized; the credentials in the kubeconfig were "
                                      "refused: refresh them (aws eks update-kubeconfig / gcloud container clusters "
                                      "get-credentials)") from None
                if err.status == 403 and kind != "Node":
                    snapshot.forbidden.append(f"{what}: 403 Forbidden (list {attr} in all namespaces); "
                                              "grant it with the ClusterRole of gpupool audit --print-rbac")
                    continue
                if err.status == 403:
                    raise SourceError(f"{what} at {host}: 403 Forbidden; the audit needs to list nodes: "
                                      "bind the ClusterRole of gpupool audit --print-rbac") from None
                raise SourceError(f"{what} at {host}: HTTP {err.status} {err.reason}; check the API server "
                                  "and the kubeconfig") from None
            except json.JSONDecodeError as err:
                raise SourceError(f"{what} at {host}: the answer is not JSON ({err}); is this a Kubernetes API "
                                  "server?") from None
    except urllib3.exceptions.HTTPError as err:
        reason = getattr(err, "reason", None) or err
        text = "timed out" if "timed out" in str(reason).lower() else f"failed ({str(reason).splitlines()[0]})"
        raise SourceError(f"{what} at {host}: {text} (limit {timeout:g} s); check the network path to the "
                          "API server or raise --timeout") from None
    return snapshot
