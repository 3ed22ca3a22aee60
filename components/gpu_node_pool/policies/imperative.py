"""Imperative node taints in commands, scripts and user data: what ``no-imperative-taints`` looks for.

A taint set with ``kubectl taint``, a Node patch or a boot script lives on the nodes that
existed when it ran; nodes an autoscaler creates later come up without it. So the policy
flags any text that would do it:

* ``kubectl [flags] taint ...`` (``kubectl taint nodes``, ``kubectl --context c taint node``),
  and OpenShift's ``oc adm taint``;
* ``kubectl patch|edit|replace node ...`` with ``taints`` on the same command line;
* a raw API call to ``/api/v1/nodes/...`` that mentions ``taints``;
* ``kubectl apply|create|replace`` of a Node (or NodeList) manifest with ``spec.taints``, written in a here
  document (``kubectl apply -f - <<EOF``, ``cat <<EOF | kubectl apply -f -``) or on the line itself
  (``echo '{"kind": "Node", ...}' | kubectl apply -f -``), and ``kubectl patch node`` whose here document
  holds ``taints``.

Full-line shell comments are ignored, and so is what ``echo`` or ``printf`` only print (a message such as
``echo 'never run kubectl taint here'``), unless the line pipes into a shell, into ``kubectl`` or ``eval``s. User data is
base64/gzip-decoded first, and the parts of a MIME multi-part document are read one by one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import yaml

from ..backends._shared.user_data import decode_user_data, mime_parts
from ..sdk.yaml_bounded import load_all_bounded

__all__ = ["imperative_taint_commands", "user_data_texts"]

#: ``taint`` as kubectl's subcommand: a word of its own (not ``-l taint=ok`` or ``--taint-file``).
_KUBECTL_TAINT = re.compile(r"\b(?:kubectl|oc\s+adm)\b[^\n;&|]*?(?<![\w-])taint(?![\w=./-])")
_KUBECTL_NODE_PATCH = re.compile(
    r"\bkubectl\b[^\n;&|]*?\b(?:patch|edit|replace)\s+(?:[^\n;&|]*?\s)?(?:nodes?|no)(?:[\s/]|$)[^\n;&|]*taints"
)
_API_NODE_PATCH = re.compile(r"/api/v1/nodes\b[^\n]*taints|taints[^\n]*/api/v1/nodes\b")
#: kubectl (or oc) writing objects it reads from a file or stdin.
_KUBECTL_WRITES = re.compile(r"\b(?:kubectl|oc)\b[^\n;&]*?\s(?:apply|create|replace)\b")
_KUBECTL_PATCHES_NODE = re.compile(r"\b(?:kubectl|oc)\b[^\n;&|]*?\spatch\s+(?:[^\n;&|]*?\s)?(?:nodes?|no)(?:[\s/]|$)")
#: A Node manifest written on one line (JSON or flow YAML) that sets taints.
_INLINE_NODE_TAINTS = re.compile(r"""["']?kind["']?\s*:\s*["']?Node(?:List)?\b(?!-)[^\n]*\btaints\b""")
#: A here document's operator: ``<<EOF``, ``<<-'EOF'``, ``<< "END"`` (not ``<<<``).
_HEREDOC = re.compile(r"(?<!<)<<(-?)\s*(['\"]?)([A-Za-z_][\w.-]*)\2")


def _uncommented(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


#: A command segment that only prints its arguments.
_PRINTS = re.compile(r"^\s*(?:echo|printf)\b")
#: A line that runs what it prints: piped into a shell, or eval'd.
_RUNS_PRINTED = re.compile(r"\|\s*(?:(?:ba|da|z|k)?sh|kubectl|oc)\b|\beval\b")


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
            what = _heredoc_taints(run, body)
            if what:
                found.append(f"{shown} ({what})")
                i = after
                continue
        if (_KUBECTL_TAINT.search(run) or _KUBECTL_NODE_PATCH.search(run) or _API_NODE_PATCH.search(run)
                or (_KUBECTL_WRITES.search(run) and _INLINE_NODE_TAINTS.search(run))):
            found.append(shown)
    return found


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
        docs = [doc for doc in load_all_bounded(body) if isinstance(doc, dict)]
    except yaml.YAMLError:  # not YAML: the words decide
        return "a Node manifest with spec.taints" if re.search(r"(?m)^\s*kind:\s*[\"']?Node(?:List)?[\"']?\s*$", body) else ""
    nodes = [doc for doc in docs if doc.get("kind") == "Node"]
    nodes += [item for doc in docs if doc.get("kind") == "NodeList" for item in (doc.get("items") or [])
              if isinstance(item, dict)]
    if any(isinstance(node.get("spec"), dict) and node["spec"].get("taints") for node in nodes):
        return "a Node manifest with spec.taints"
    return ""


def user_data_texts(value: object) -> Iterator[str]:
    """The readable texts inside EC2/GCE user data: decoded base64/gzip, and each MIME part."""
    text = decode_user_data(value)
    if not text:
        return
    yield text
    for _, body in mime_parts(text) or []:
        yield decode_user_data(body)
