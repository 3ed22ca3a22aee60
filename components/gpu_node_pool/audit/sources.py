"""Where the audit reads the cluster from: a ``kubectl`` dump, or the API (read-only).

Dump: the JSON (or YAML) of ``kubectl get nodes,daemonsets,pods,events -A -o json``, i.e. a
``List`` (``v1``) whose ``items`` carry ``kind``; typed lists (``NodeList``...) are accepted
too; a YAML file may hold several documents (``---``), each such a list. A directory means every
``*.json``/``*.yaml``/``*.yml`` file in it, the suffix in any case (``ds.JSON``); its other files and its
subdirectories are not read, and the report names them in a note. Events are optional.
A JSON dump is parsed incrementally (:mod:`.jsonstream`), an item at a time; each item is
reduced on arrival to what the verdicts need (:class:`.snapshot.Snapshot`) and dropped.

Live: the official ``kubernetes`` client, with the kubeconfig (``--kubeconfig``, else
``$KUBECONFIG``, else ``~/.kube/config``) and ``--context``, or the in-cluster service
account. Only ``list`` calls, all namespaces, ``limit`` + ``continue`` pagination, raw JSON
(``_preload_content=False``) so that both sources yield the same camelCase objects; each page's
items are reduced as the page arrives, and the page dropped. Each request is bounded as a whole
(:mod:`.paging`: a deadline of ``timeout`` seconds, a size cap, 429/503 retried after
``Retry-After``, a ``continue`` chain that repeats or never ends stopped). A 403 on DaemonSets,
Pods or Events, or one of those lists that fails part-way, gives a partial snapshot that names
the list (:attr:`Snapshot.forbidden`, :attr:`Snapshot.unread`); on Nodes, a 401, a timeout or a
refused connection ends the audit (:class:`SourceError`).
"""

from __future__ import annotations

import codecs
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from ..sdk.files import NotRegularFileError, check_input, open_input, read_input_text
from ..sdk.yaml_bounded import with_tab_cause
from ..text.terminal import shown
from .dump_yaml import load_dump_documents
from .jsonstream import NOT_AN_OBJECT, ListStream
from .paging import PageTooLarge, PagingError, RequestTimeout, pages
from .shapes import json_value
from .snapshot import KINDS, Snapshot, is_admission

__all__ = ["SourceError", "Snapshot", "load_dump", "load_live", "LISTS"]

#: kind -> (snapshot attribute, API call description), in the order the live source lists them.
LISTS: dict[str, tuple[str, str]] = {
    "Node": (KINDS["Node"], "GET /api/v1/nodes"),
    "DaemonSet": (KINDS["DaemonSet"], "GET /apis/apps/v1/daemonsets"),
    "Pod": (KINDS["Pod"], "GET /api/v1/pods"),
    "Event": (KINDS["Event"], "GET /api/v1/events"),
}
_LIST_KINDS = {"List", *(f"{kind}List" for kind in LISTS)}
_HOW = ("write it with kubectl get nodes,daemonsets,pods,events -A -o json (add validatingadmissionpolicies,"
        "validatingadmissionpolicybindings, or constrainttemplates,constraints, for the admission guard)")
#: The fix of a ``--cluster-dump`` that is no regular file (a FIFO would be waited on for a writer).
_DUMP_FIX = ("write the dump to a file first and give that file, e.g. kubectl get nodes,daemonsets,pods,events -A "
             "-o json > cluster.json")
#: Largest YAML dump read (a YAML dump is read whole; a JSON dump is streamed and has no bound).
MAX_YAML_DUMP_BYTES = 512 << 20


class SourceError(Exception):
    """The cluster could not be read at all; the message is one line with the fix (exit 2)."""


# --- dump -----------------------------------------------------------------------------------


def _unreadable(path: Path, err: Exception) -> SourceError:
    return SourceError(f"--cluster-dump {path}: cannot read it ({err.__class__.__name__}: {err}); "
                       "pass the file written by kubectl get nodes,daemonsets,pods,events -A -o json")


def _first_bad_utf8(path: Path) -> tuple[int, int] | None:
    """``(offset, byte)`` of the first byte of ``path`` that is not UTF-8, or None (read in chunks, once)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0  # bytes of the file before the chunk
    with open_input(path) as fh:
        while True:
            chunk = fh.read(1 << 20)
            pending = decoder.getstate()[0]  # an unfinished character carried from the previous chunk
            data = pending + chunk
            try:
                decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as err:
                return offset - len(pending) + err.start, data[err.start]
            if not chunk:
                return None
            offset += len(chunk)


def _not_utf8(path: Path, err: Exception) -> SourceError:
    """The dump is not UTF-8: the file, the first bad byte and its offset, and the fix (as for JSON, so for YAML)."""
    try:
        found = _first_bad_utf8(path)
    except OSError:
        found = None
    where = f"byte 0x{found[1]:02x} at offset {found[0]}" if found else str(err).splitlines()[0]
    return SourceError(f"--cluster-dump {path}: not UTF-8 ({where}); kubectl writes UTF-8: write the dump again "
                       "with kubectl get nodes,daemonsets,pods,events -A -o json, or convert it (iconv -t UTF-8)")


#: What a dump document must be, in the words of the API: the object ``kubectl get ... -o json`` writes.
_EXPECTED = ("a kubectl List is expected (the object kubectl get ... -o json writes: kind List, or a typed list such "
             "as NodeList, with an items array of objects)")
#: How a whole dump is pointed to when the document holds the objects but not the List around them.
_WRAP = "apiVersion: v1, kind: List, items: [...]"


def _is_list_kind(kind: Any) -> bool:
    """Whether ``kind`` (any JSON value) names a kubectl List: ``List`` or a typed list of a kind the audit reads."""
    return isinstance(kind, str) and kind in _LIST_KINDS


def _not_a_list(where: str, doc: Any, what: str = "") -> SourceError:
    """The dump document ``doc`` at ``where`` is no kubectl List: what it is instead (``null``, an array, an object
    of another kind, a List without ``items``), what is expected, and the fix. ``what`` says it instead when the
    document is not one value (a YAML file of no document)."""
    kind = doc.get("kind") if isinstance(doc, Mapping) else None
    hint = ""
    if what:
        pass
    elif not isinstance(doc, Mapping):
        what = json_value(doc)
        if isinstance(doc, list) and doc:
            hint = f" (the items alone: put them in a List: {_WRAP})"
    elif "kind" not in doc:
        what = "an object without kind"
    elif not isinstance(kind, str) or not kind:
        what = f"an object whose kind is {json_value(kind)}"
    elif kind not in _LIST_KINDS:
        what = f"an object of kind {shown(kind)}"
        hint = f" (one object: put it, with the others, in the items of a List: {_WRAP})"
    elif "items" not in doc:
        what = f"an object of kind {kind} without items"
    else:
        what = f"an object of kind {kind} whose items is {json_value(doc['items'])}, not an array"
    return SourceError(f"--cluster-dump {where}: {_EXPECTED}, got {what}{hint}; {_HOW}")


def _add_item(snapshot: Snapshot, item: Any, kind: str | None, where: str, i: int) -> None:
    if not isinstance(item, Mapping):
        snapshot.problems.append(f"{snapshot.item_at(where, i)}: {json_value(item)}, not an object; skipped")
    elif isinstance(kind, str) and kind in LISTS:
        snapshot.add(kind, item, where, i)
    elif is_admission(kind, item):
        snapshot.add_admission(str(kind), item, where, i)
    else:  # other kinds (Deployments, Services...) are not judged: counted, and the report says so
        snapshot.ignore(kind)


def _list_kind(path: Path) -> Any:
    """The top-level ``kind`` of a JSON List whose ``kind`` comes after its ``items`` (a pass that drops the items)."""
    stream = ListStream(path, option="--cluster-dump", fix=_DUMP_FIX)
    for _ in stream.items():
        pass
    return stream.header.get("kind")


def _add_json(snapshot: Snapshot, path: Path) -> None:
    """Stream ``path``'s items into ``snapshot``, one at a time."""
    where = str(path)
    stream = ListStream(path, option="--cluster-dump", fix=_DUMP_FIX)
    typed: Any = None
    try:
        for i, item in enumerate(stream.items()):
            if "kind" not in stream.header and isinstance(item, Mapping) and "kind" not in item and typed is None:
                typed = _list_kind(path)  # an item without kind takes the list's (NodeList...), read first
            if "kind" in stream.header:
                typed = stream.header["kind"]
            if typed is not None and not _is_list_kind(typed):
                raise _not_a_list(where, {"kind": typed})
            item_kind = item.get("kind", _typed(typed)) if isinstance(item, Mapping) else None
            _add_item(snapshot, item, item_kind, where, i)
    except UnicodeDecodeError as err:
        raise _not_utf8(path, err) from None
    except NotRegularFileError as err:
        raise SourceError(str(err)) from None
    except OSError as err:
        raise _unreadable(path, err) from None
    except json.JSONDecodeError as err:
        raise _not_json(path, err) from None
    doc = stream.header.get(NOT_AN_OBJECT, stream.header)
    if not isinstance(doc, Mapping) or not _is_list_kind(doc.get("kind")) or not isinstance(doc.get("items"), list):
        raise _not_a_list(where, doc)


#: JSON's decoding errors (Python's ``json`` module's words, at their start) in plain words (RFC 8259's grammar,
#: https://www.rfc-editor.org/rfc/rfc8259).
_JSON_PROBLEMS = (
    ("Expecting value", "a JSON value was expected here"),
    ("Extra data", "text after the end of the JSON document (a dump is one JSON value: a List)"),
    ("Expecting property name enclosed in double quotes", "a key in double quotes was expected here"),
    ("Expecting ',' delimiter", "a ',' or the end of the array or object was expected here"),
    ("Expecting ':' delimiter", "a ':' after the key was expected here"),
    ("Unterminated string", "a string is not closed"),
    ("Invalid control character", "a control character inside a string (JSON writes it as \\uXXXX)"),
    ("Invalid \\escape", "a backslash escape JSON does not have"),
    ("Invalid \\uXXXX escape", "a \\u escape without 4 hexadecimal digits"),
)


def _not_json(path: Path, err: json.JSONDecodeError) -> SourceError:
    """The error of a dump that is no JSON: ``<file>:<line>:<column>: not valid JSON: <plain words>``, or that the
    file is empty."""
    if err.msg == "Expecting value" and not _has_text(path):
        return SourceError(f"--cluster-dump {path}: the file holds no JSON document (it is empty or only white space); {_HOW}")
    said = next((plain for start, plain in _JSON_PROBLEMS if err.msg.startswith(start)), err.msg)
    return SourceError(f"--cluster-dump {path}:{err.lineno}:{err.colno}: not valid JSON: {said}; {_HOW}")


def _has_text(path: Path) -> bool:
    """Whether ``path`` holds anything but white space (and a byte order mark) in its first 64 KiB, or is larger."""
    try:
        with path.open("rb") as f:
            head = f.read(1 << 16)
    except OSError:
        return True
    return len(head) == 1 << 16 or bool(head.removeprefix(codecs.BOM_UTF8).strip())


def _typed(kind: Any) -> str | None:
    return kind[: -len("List")] if isinstance(kind, str) and kind != "List" and kind.endswith("List") else None


def _add_yaml(snapshot: Snapshot, path: Path) -> None:
    """A YAML dump is read whole (PyYAML has no incremental loader of plain objects); its items
    then go to ``snapshot`` one at a time like a JSON dump's. A file of several documents (``---``: dumps
    put one after the other) holds a List in each (named ``<file> document N`` in what the report says); an empty
    document is passed over."""
    try:
        text, not_utf8 = read_input_text(path, max_bytes=MAX_YAML_DUMP_BYTES, option="--cluster-dump", fix=_DUMP_FIX)
        if not_utf8:  # refused as a JSON dump is: bytes read as U+FFFD would be judged as names and values
            raise _not_utf8(path, UnicodeError(not_utf8))
        docs = list(enumerate(load_dump_documents(text), 1))
    except NotRegularFileError as err:
        raise SourceError(str(err)) from None
    except (OSError, UnicodeDecodeError) as err:
        raise _unreadable(path, err) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)  # where PyYAML stopped, counted from 0
        place = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise SourceError(with_tab_cause(f"--cluster-dump {place}: not valid YAML ({problem}); {_HOW}", err, text)) from None
    del text
    if all(doc is None for _, doc in docs):
        raise _not_a_list(str(path), None, "no document (an empty YAML file, or only null documents)")
    for n, doc in docs:
        where = str(path) if len(docs) == 1 else f"{path} document {n}"
        if doc is None:
            continue
        if not isinstance(doc, Mapping) or not _is_list_kind(doc.get("kind")) or not isinstance(doc.get("items"), list):
            raise _not_a_list(where, doc)
        typed = _typed(doc["kind"])
        items = doc["items"]
        for i in range(len(items)):
            item, items[i] = items[i], None  # dropped once read
            _add_item(snapshot, item, item.get("kind", typed) if isinstance(item, Mapping) else None, where, i)


def load_dump(path: str | Path) -> Snapshot:
    """Read a dump file or a directory of dump files, one object at a time (JSON is parsed
    incrementally: memory holds one item, not the file).

    Raises:
        SourceError: missing/unreadable path, one that is neither a regular file nor a directory (a FIFO is
            refused at once, not waited on), invalid JSON/YAML, or a document that is not a kubectl ``List``. A dump without Nodes is read (as a live cluster without nodes is): the
            report says no Node was read and its verdict is partial.
    """
    root = Path(path)
    others: list[str] = []  # a directory's entries not read
    if root.is_dir():
        try:
            entries = sorted(root.iterdir())
            files = [p for p in entries if p.suffix.lower() in DUMP_SUFFIXES and p.is_file()]
            others = [p.name + ("/" if p.is_dir() else "") for p in entries if p not in files]
        except OSError as err:
            raise SourceError(f"--cluster-dump {root}: cannot list the directory ({err.strerror or err}); give a "
                              "directory you can read (ls -ld it), or the dump file itself") from None
        if not files:
            holds = f" (it holds {_names(others)})" if others else ""
            raise SourceError(f"--cluster-dump {root}: the directory has no .json/.yaml/.yml files{holds}; "
                              "put the output of kubectl get ... -o json there")
    elif root.exists():  # a FIFO, socket or device too: its open refuses it (sdk.files.open_input), never waits
        files = [root]
    else:
        raise SourceError(f"--cluster-dump {root}: no such file or directory")
    snapshot = Snapshot(source=f"dump {root}")
    if others:
        snapshot.files_not_read.append(
            f"not read in {root}: {_names(others)} (the audit reads the directory's .json, .yaml and .yml files, "
            "not its other files or its subdirectories)")
    for file in files:
        (_add_yaml if file.suffix.lower() in (".yaml", ".yml") else _add_json)(snapshot, file)
    return snapshot


#: The suffixes of the files of a dump directory that are read, compared in lower case (``ds.JSON`` is read).
DUMP_SUFFIXES = (".json", ".yaml", ".yml")


def _names(names: list[str], most: int = 20) -> str:
    """``names`` joined, the first ``most`` of them and how many more."""
    shown_names = ", ".join(shown(n, quote=False, limit=120) for n in names[:most])
    return shown_names + (f" and {len(names) - most} more" if len(names) > most else "")


# --- live -----------------------------------------------------------------------------------


def _user_strings(value: Any) -> set[str]:
    out: set[str] = set()
    if isinstance(value, Mapping):
        for v in value.values():
            out |= _user_strings(v)
    elif isinstance(value, list):
        for v in value:
            out |= _user_strings(v)
    elif isinstance(value, str | int | float) and not isinstance(value, bool) and len(str(value)) >= 4:
        out.add(str(value))
    return out


def _redacted(message: str, kubeconfig: str | None) -> str:
    """``message`` with every value of the kubeconfig's ``users`` (tokens, passwords, keys, exec
    arguments) replaced by ``[secret]``: a loader's error may quote the value it choked on."""
    try:
        path = Path(kubeconfig).expanduser() if kubeconfig else Path("~/.kube/config").expanduser()
        doc = yaml.safe_load(read_input_text(path, max_bytes=16 << 20)[0])
    except (OSError, yaml.YAMLError, ValueError):
        return "[not shown: the kubeconfig could not be read to hide its credentials]" if message else message
    users = doc.get("users") if isinstance(doc, Mapping) else None
    for value in sorted(_user_strings(users), key=len, reverse=True):
        message = message.replace(value, "[secret]")
    return message


def _require_client() -> None:
    """Raises SourceError naming the extra when the Kubernetes client (``gpu-node-pool[audit]``) is missing."""
    import importlib.util

    if importlib.util.find_spec("kubernetes") is None:
        raise SourceError("gpupool audit of a live cluster reads it through the kubernetes client, which is not "
                          "installed: pip install 'gpu-node-pool[audit]' (or [all]); or audit a dump with "
                          "--cluster-dump (kubectl get nodes,daemonsets,pods,events -A -o json)")


def _check_kubeconfig_files(kubeconfig: str | None) -> None:
    """Refuse a kubeconfig file that is no regular file before the client opens it (it would wait forever on a
    FIFO): each existing file of ``kubeconfig``, else of ``$KUBECONFIG``, else ``~/.kube/config``, ``:``-separated
    as the client reads them (kubernetes-client/python ``config/kube_config.py`` ``KubeConfigMerger``).

    Raises:
        SourceError: one is a FIFO, a directory, a socket or a device; the message names where it was given, the
            path, what it is and the fix.
    """
    given = kubeconfig if kubeconfig is not None else os.environ.get("KUBECONFIG")
    option = "--kubeconfig" if kubeconfig is not None else "$KUBECONFIG" if given is not None else "kubeconfig"
    for part in (given if given is not None else "~/.kube/config").split(os.pathsep):
        path = os.path.expanduser(part)
        if part and os.path.exists(path):
            try:
                check_input(path, option, "give the path of a kubeconfig file (e.g. ~/.kube/config)")
            except NotRegularFileError as err:
                raise SourceError(str(err)) from None
            except OSError:  # unreadable: the client's own error names it
                pass


def _client(kubeconfig: str | None, context: str | None, in_cluster: bool, timeout: float) -> Any:
    _require_client()
    if not in_cluster:
        _check_kubeconfig_files(kubeconfig)
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
    except (OSError, yaml.YAMLError, TypeError, ValueError, AttributeError, KeyError, IndexError) as err:
        first = _redacted(str(err).splitlines()[0] if str(err) else "", kubeconfig)
        raise SourceError(f"kubeconfig {kubeconfig or '(default)'}: cannot be read ({type(err).__name__}: "
                          f"{shown(first, quote=False, limit=160)}); pass a valid kubeconfig with --kubeconfig") from None
    cfg.retries = 0  # one answer per call: a timeout is reported, not retried silently
    return client.ApiClient(cfg)


def load_live(
    kubeconfig: str | None = None,
    context: str | None = None,
    *,
    in_cluster: bool = False,
    timeout: float = 30.0,
    page_size: int = 500,
) -> Snapshot:
    """List Nodes, DaemonSets, Pods and Events (all namespaces) through the API, read-only.

    ``timeout``: seconds for each request as a whole (connection, headers and body; a 429/503
    retry is a new request). ``page_size``: objects per page (``limit``).

    Raises:
        SourceError: no usable kubeconfig/context, 401, 403 on Nodes, a timeout, no connection.
    """
    _require_client()
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
    snapshot = Snapshot(source=f"API {host} ({where}, read-only)", live=True)
    try:
        for kind, call in calls.items():
            attr, what = LISTS[kind]
            try:
                snapshot.read.add(kind)  # an empty list was read too
                position = 0  # an item's place in the whole list, over all its pages
                for items in pages(call, timeout, page_size):  # each page reduced as it arrives, then dropped
                    for item in items:
                        _add_item(snapshot, item, kind, what, position)
                        position += 1
            except ApiException as err:
                snapshot.drop(kind)
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
                failed = f"HTTP {err.status} {shown(err.reason, quote=False)}"  # escaped where the text report prints it
                if kind != "Node":
                    snapshot.unread.append(f"{what}: {failed}; the list was not read")
                    continue
                raise SourceError(f"{what} at {host}: {failed}; check the API server and the kubeconfig") from None
            except (PagingError, PageTooLarge) as err:
                snapshot.drop(kind)
                if kind != "Node":
                    snapshot.unread.append(f"{what}: {err}; the list was not read")
                    continue
                raise SourceError(f"{what} at {host}: {err}; check the API server (is it a Kubernetes API "
                                  "server?)") from None
            except json.JSONDecodeError as err:
                snapshot.drop(kind)
                raise SourceError(f"{what} at {host}: the answer is not JSON ({err}); is this a Kubernetes API "
                                  "server?") from None
        _load_admission(snapshot, api, timeout)
    except RequestTimeout:
        raise SourceError(f"{what} at {host}: timed out (limit {timeout:g} s) before the whole answer came; check the "
                          "network path to the API server or raise --timeout") from None
    except urllib3.exceptions.HTTPError as err:
        reason = getattr(err, "reason", None) or err
        text = "timed out" if "timed out" in str(reason).lower() else f"failed ({str(reason).splitlines()[0]})"
        raise SourceError(f"{what} at {host}: {text} (limit {timeout:g} s); check the network path to the "
                          "API server or raise --timeout") from None
    return snapshot


def _load_admission(snapshot: Snapshot, api: Any, timeout: float) -> None:
    """The admission guard's objects, read-only: ValidatingAdmissionPolicies and bindings, Gatekeeper
    ConstraintTemplates and their Constraints. A 404 (Gatekeeper not installed, or an API server without
    ``admissionregistration.k8s.io/v1`` policies) reads as none; a 403 is listed as forbidden."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    admission, custom = client.AdmissionregistrationV1Api(api), client.CustomObjectsApi(api)
    calls = [
        ("ValidatingAdmissionPolicy", "GET /apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
         lambda: admission.list_validating_admission_policy(_request_timeout=timeout)),
        ("ValidatingAdmissionPolicyBinding", "GET /apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings",
         lambda: admission.list_validating_admission_policy_binding(_request_timeout=timeout)),
        ("ConstraintTemplate", "GET /apis/templates.gatekeeper.sh/v1/constrainttemplates",
         lambda: custom.list_cluster_custom_object("templates.gatekeeper.sh", "v1", "constrainttemplates", _request_timeout=timeout)),
    ]
    sanitize = client.ApiClient().sanitize_for_serialization
    snapshot.read.add("admission")
    i = 0
    while i < len(calls):
        kind, what, call = calls[i]
        i += 1
        try:
            answer = call()
        except ApiException as err:
            if err.status == 403:
                snapshot.forbidden.append(f"{what}: 403 Forbidden; grant it with the ClusterRole of gpupool audit --print-rbac")
            elif err.status != 404:
                snapshot.problems.append(f"{what}: HTTP {err.status} {err.reason}; the admission guard is not judged")
            continue
        items = answer.get("items", []) if isinstance(answer, Mapping) else sanitize(answer).get("items", [])
        for position, item in enumerate(items):
            if not isinstance(item, Mapping):
                continue
            item_kind = item.get("kind") or kind
            snapshot.add_admission(str(item_kind), {**item, "kind": item_kind}, what, position)
            if kind == "ConstraintTemplate":  # its Constraints, one kind per template
                names = ((item.get("spec") or {}).get("crd") or {}).get("spec", {}).get("names", {})
                if isinstance(names.get("kind"), str):
                    ck = names["kind"]
                    calls.append((ck, f"GET /apis/constraints.gatekeeper.sh/v1beta1/{ck.lower()}",
                                  lambda ck=ck: custom.list_cluster_custom_object("constraints.gatekeeper.sh", "v1beta1", ck.lower(), _request_timeout=timeout)))
