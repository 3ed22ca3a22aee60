"""Imperative node taints in commands, scripts and user data: what ``no-imperative-taints`` looks for.

A taint set with ``kubectl taint``, a Node patch or a boot script lives on the nodes that
existed when it ran; nodes an autoscaler creates later come up without it. So the policy
flags any text that would do it:

* ``kubectl [flags] taint ...`` (``kubectl taint nodes``, ``kubectl --context c taint node``: ``taint`` as the
  subcommand, not a namespace or a label value), and OpenShift's ``oc adm taint``;
* ``kubectl patch|edit|replace node ...`` with ``taints`` on the same command line;
* a raw API call to ``/api/v1/nodes/...`` that mentions ``taints``;
* ``kubectl apply|create|replace`` of a Node (or a NodeList or List of Nodes) manifest with ``spec.taints``,
  written in a here document (``kubectl apply -f - <<EOF``, ``cat <<EOF | kubectl apply -f -``) or on the line
  itself (``echo '{"kind": "Node", ...}' | kubectl apply -f -``), and ``kubectl patch node`` whose here
  document holds ``taints``.

Full-line shell comments are ignored, and so is what ``echo`` or ``printf`` only print (a message such as
``echo 'never run kubectl taint here'``), unless the line pipes into a shell or ``eval``s; what it pipes into
``kubectl apply`` is read as a manifest only, and a trailing ``# comment`` not at all. User data is
base64/gzip-decoded first, and the parts of a MIME multi-part document are read one by one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import yaml

from ..backends._shared.user_data import decode_user_data, mime_parts
from ..sdk.yaml_bounded import load_all_bounded

__all__ = ["imperative_taint_commands", "user_data_texts"]

#: kubectl (or ``oc adm``) and the rest of its command, up to the next ``;``, ``&`` or ``|``.
#: ``kubectl`` (or ``oc``) as a command word: the last part of a path (``/opt/bitnami/kubectl/bin/kubectl``), an
#: item of a cloud-init ``runcmd`` list (``[kubectl, taint, ...]``); not a directory or ``kubectl.kubernetes.io``.
_KUBECTL = r"(?<![\w.-])kubectl(?=[\s,\"'`)\]]|$)"
_OC = r"(?<![\w.-])oc(?=[\s,\"'`)\]]|$)"
#: How far after kubectl its subcommand and its arguments are looked for: bounded, so that a long line
#: costs time in proportion to its length.
_REACH = 400
#: kubectl (or ``oc adm``) and the rest of its command, up to the next ``;``, ``&`` or ``|``.
_KUBECTL_COMMAND = re.compile(rf"(?:{_KUBECTL}|{_OC}[\s,]+adm)([^\n;&|]{{0,{_REACH}}})")
#: kubectl's global options that take a value as the next word (``kubectl options``): ``-n taint`` is a
#: namespace, not the subcommand.
_VALUE_OPTIONS = frozenset({
    "-n", "--namespace", "-s", "--server", "--context", "--cluster", "--user", "--kubeconfig", "--token", "--as",
    "--as-group", "--as-uid", "--cache-dir", "--certificate-authority", "--client-certificate", "--client-key",
    "--request-timeout", "--tls-server-name", "--profile", "--profile-output", "-v", "--v", "--vmodule",
    "--log-dir", "--log-file", "--password", "--username", "--log-flush-frequency", "--kuberc",
})
_KUBECTL_NODE_PATCH = re.compile(
    rf"{_KUBECTL}[^\n;&|]{{0,{_REACH}}}?\b(?:patch|edit|replace)\s+(?:[^\n;&|]{{0,{_REACH}}}?\s)?(?:nodes?|no)(?:[\s/]|$)"
    r"[^\n;&|]*taints"
)
_API_NODE_PATCH = re.compile(r"/api/v1/nodes\b[^\n]*taints|taints[^\n]*/api/v1/nodes\b")
#: kubectl (or oc) writing objects it reads from a file or stdin.
_KUBECTL_WRITES = re.compile(rf"(?:{_KUBECTL}|{_OC})[^\n;&]{{0,{_REACH}}}?\s(?:apply|create|replace)\b")
_KUBECTL_PATCHES_NODE = re.compile(
    rf"(?:{_KUBECTL}|{_OC})[^\n;&|]{{0,{_REACH}}}?\spatch\s+(?:[^\n;&|]{{0,{_REACH}}}?\s)?(?:nodes?|no)(?:[\s/]|$)")
#: ``kind: Node`` (or ``NodeList``) written on one line (flow YAML or JSON that does not parse).
_INLINE_KIND_NODE = re.compile(r"""["']?kind["']?\s*:\s*["']?Node(?:List)?["']?\s*[,}]""")
#: A here document's operator: ``<<EOF``, ``<<-'EOF'``, ``<< "END"`` (not ``<<<``).
_HEREDOC = re.compile(r"(?<!<)<<(-?)\s*(['\"]?)([A-Za-z_][\w.-]*)\2")


def _uncommented(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


#: A command segment that only prints its arguments.
_PRINTS = re.compile(r"^\s*(?:echo|printf)\b")
#: A line that runs what it prints: piped into a shell, or eval'd.
_RUNS_PRINTED = re.compile(r"\|\s*(?:ba|da|z|k)?sh\b|\beval\b")


def _without_printed(line: str) -> str:
    """``line`` with each ``echo``/``printf`` command segment blanked, unless the line runs what it prints."""
    if _RUNS_PRINTED.search(line):
        return line
    parts = re.split(r"([;&|]+)", line)
    return "".join(" " if i % 2 == 0 and _PRINTS.match(part) else part for i, part in enumerate(parts))


def imperative_taint_commands(text: str) -> list[str]:
    """The lines of ``text`` (a shell script or command) that taint nodes imperatively, stripped; a command
    whose here document is the Node manifest or patch is followed by what the document sets."""
    if not isinstance(text, str) or "taint" not in text:
        return []
    found = []
    lines = _uncommented(text).replace("\\\n", " ").splitlines()
    i = 0
    while i < len(lines):
        line, i = lines[i], i + 1
        run = _without_printed(line)
        shown = " ".join(line.split())
        heredoc = _HEREDOC.search(run)
        if heredoc:  # a document kubectl reads is judged whole; any other (a script written out) line by line
            body, after = _heredoc_body(lines, i, heredoc.group(3), bool(heredoc.group(1)))
            command = run
            if run.rstrip().endswith("|") and after < len(lines):  # `cat <<EOF |` ... EOF, then `kubectl apply -f -`
                command, after = f"{run} {_without_printed(lines[after])}", after + 1
            what = _heredoc_taints(command, body)
            if what:
                found.append(f"{shown} ({what})")
                i = after
                continue
        code = _code(run)
        if (_runs_kubectl_taint(code) or _KUBECTL_NODE_PATCH.search(code) or _API_NODE_PATCH.search(code)
                or (_KUBECTL_WRITES.search(line) and _inline_node_taints(_code(line)))):
            found.append(shown)
    return found


def _runs_kubectl_taint(run: str) -> bool:
    """Whether a kubectl (or ``oc adm``) command of ``run`` has ``taint`` as its subcommand: the first word after
    its global options and their values (``kubectl --context c taint``; not ``kubectl -n taint get pods`` or
    ``kubectl get pods -l app=taint``)."""
    for match in _KUBECTL_COMMAND.finditer(run):
        words = [w.strip("\"'`()[],") for w in match.group(1).split(None, 64)[:64]]
        skip = False
        for word in words:
            if skip or not word:
                skip = False
                continue
            if word.startswith("-"):
                skip = "=" not in word and word in _VALUE_OPTIONS
                continue
            if word == "taint":
                return True
            break
    return False


def _code(line: str) -> str:
    """``line`` without a trailing shell comment (a ``#`` after a space, outside quotes)."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def _inline_node_taints(line: str) -> bool:
    """Whether ``line`` holds a Node (or NodeList, List of Nodes) manifest with ``spec.taints`` written on it:
    read as JSON when its ``{...}`` is JSON, else by its words (``kind: Node`` and ``taints``, in any order)."""
    start, end = line.find("{"), line.rfind("}")
    if 0 <= start < end:
        try:
            doc = json.loads(line[start:end + 1])
        except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth: the words decide
            pass
        else:
            return _sets_node_taints([doc])
    return bool(_INLINE_KIND_NODE.search(line)) and "taints" in line


def _sets_node_taints(docs: list[object]) -> bool:
    """Whether any of ``docs`` (manifests) is a Node with ``spec.taints``, or a NodeList/List holding one."""
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        kind = doc.get("kind")
        if kind == "Node":
            spec = doc.get("spec")
            if isinstance(spec, dict) and spec.get("taints"):
                return True
        elif kind in ("NodeList", "List") and isinstance(doc.get("items"), list):
            if _sets_node_taints(doc["items"]):
                return True
    return False


def _heredoc_body(lines: list[str], start: int, delimiter: str, tabs: bool) -> tuple[str, int]:
    """The here document from ``lines[start]`` up to the line that is ``delimiter`` (after leading tabs with
    ``<<-``), and the index after it; to the end of the text when the delimiter never comes (as bash reads it)."""
    body = []
    for j in range(start, len(lines)):
        end = lines[j].lstrip("\t") if tabs else lines[j]
        if end == delimiter:
            return "\n".join(body), j + 1
        body.append(lines[j])
    return "\n".join(body), len(lines)


def _heredoc_taints(command: str, body: str) -> str:
    """What the here document ``body`` of the line ``command`` sets on nodes, or ``""``: a Node (or NodeList)
    manifest with ``spec.taints`` that kubectl applies, creates or replaces, or a node patch with ``taints``."""
    if "taints" not in body:
        return ""
    if _KUBECTL_PATCHES_NODE.search(command):
        return "its here document patches taints"
    if not _KUBECTL_WRITES.search(command):
        return ""
    try:
        docs = list(load_all_bounded(body))
    except (yaml.YAMLError, ValueError, TypeError):  # not YAML, or a value PyYAML cannot build: the words decide
        return "a Node manifest with spec.taints" if re.search(r"(?m)^\s*kind:\s*[\"']?Node(?:List)?[\"']?\s*$", body) else ""
    return "a Node manifest with spec.taints" if _sets_node_taints(docs) else ""


def user_data_texts(value: object) -> Iterator[str]:
    """The readable texts inside EC2/GCE user data: decoded base64/gzip, and each MIME part."""
    text = decode_user_data(value)
    if not text:
        return
    yield text
    for _, body in mime_parts(text) or []:
        yield decode_user_data(body)
