"""Imperative node taints in commands, scripts and user data: what ``no-imperative-taints`` looks for.

A taint set with ``kubectl taint``, a Node patch or a boot script lives on the nodes that
existed when it ran; nodes an autoscaler creates later come up without it. So the policy
flags any text that would do it:

* ``kubectl [flags] taint ...`` (``kubectl taint nodes``, ``kubectl --context c taint node``),
  and OpenShift's ``oc adm taint``;
* ``kubectl patch|edit|replace node ...`` with ``taints`` on the same command line;
* a raw API call to ``/api/v1/nodes/...`` that mentions ``taints``.

Full-line shell comments are ignored, and so is what ``echo`` or ``printf`` only print (a message such as
``echo 'never run kubectl taint here'``), unless the line pipes into a shell or ``eval``s. User data is
base64/gzip-decoded first, and the parts of a MIME multi-part document are read one by one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..backends._shared.user_data import decode_user_data, mime_parts

__all__ = ["imperative_taint_commands", "user_data_texts"]

_KUBECTL_TAINT = re.compile(r"\b(?:kubectl|oc\s+adm)\b[^\n;&|]*?(?<![\w-])taint\b")
_KUBECTL_NODE_PATCH = re.compile(
    r"\bkubectl\b[^\n;&|]*?\b(?:patch|edit|replace)\s+(?:[^\n;&|]*?\s)?(?:nodes?|no)(?:[\s/]|$)[^\n;&|]*taints"
)
_API_NODE_PATCH = re.compile(r"/api/v1/nodes\b[^\n]*taints|taints[^\n]*/api/v1/nodes\b")


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
    """The lines of ``text`` (a shell script or command) that taint nodes imperatively, stripped."""
    if not isinstance(text, str) or "taint" not in text:
        return []
    found = []
    for line in _uncommented(text).replace("\\\n", " ").splitlines():
        run = _without_printed(line)
        if _KUBECTL_TAINT.search(run) or _KUBECTL_NODE_PATCH.search(run) or _API_NODE_PATCH.search(run):
            found.append(" ".join(line.split()))
    return found


def user_data_texts(value: object) -> Iterator[str]:
    """The readable texts inside EC2/GCE user data: decoded base64/gzip, and each MIME part."""
    text = decode_user_data(value)
    if not text:
        return
    yield text
    for _, body in mime_parts(text) or []:
        yield decode_user_data(body)
