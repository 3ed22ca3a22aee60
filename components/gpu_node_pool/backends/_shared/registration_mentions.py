"""User data that mentions registration taints where the reader cannot read them.

:func:`~.user_data.read_registration` reads ``--register-with-taints`` where the kubelet takes it
(``bootstrap.sh --kubelet-extra-args``, ``KUBELET_EXTRA_ARGS=``, a ``kubelet`` command line,
nodeadm ``kubelet.flags``) and ``registerWithTaints`` in a ``NodeConfig`` or
``KubeletConfiguration``. A script can also inject the flag in ways no reader can follow, e.g.
``sed -i '/^KUBELET_EXTRA_ARGS=/a KUBELET_EXTRA_ARGS+=" --register-with-taints=..."' /etc/eks/bootstrap.sh``:
the nodes then carry a taint nothing declared. :func:`unreadable_registration_mentions` finds each
such line so that the policy reports it as not judged instead of passing it silently.
"""

from __future__ import annotations

import shlex

from .registration import REGISTER_WITH_TAINTS_FLAG
from .user_data import _expand_args, _found_in_text, decode_user_data, mime_parts

__all__ = ["MENTIONS", "unreadable_registration_mentions"]

#: The spellings of a registration-taint setting: the kubelet flag and the KubeletConfiguration field.
MENTIONS = ("register-with-taints", "registerWithTaints")
#: How much of a line a finding quotes.
SHOWN = 160


def _texts(text: str) -> list[str]:
    """``text``, or the bodies of its MIME parts (nested parts opened)."""
    parts = mime_parts(text)
    if parts is None:
        return [text]
    return [body for _, part in parts for body in _texts(part)]


def _line_reads_the_flag(line: str) -> bool:
    try:
        args = _expand_args(shlex.split(line, comments=True))
    except ValueError:
        return False
    return any(a.partition("=")[0] == REGISTER_WITH_TAINTS_FLAG for a in args)


def unreadable_registration_mentions(user_data: str | bytes | None) -> list[str]:
    """The lines of ``user_data`` (base64, gzip and MIME undone) that mention ``register-with-taints``
    or ``registerWithTaints`` but from which the reader gets no taint setting, each cut to 160
    characters; empty when every mention is read (or there is none). Comment lines (``#`` first)
    are skipped. A ``registerWithTaints:`` key counts as read when the reader found a
    configuration-file taint list.

    Raises:
        TaintError, ValueError: as :func:`~.user_data.read_registration` when the reader itself fails
            (callers report that failure instead).
    """
    if not user_data:
        return []
    text = decode_user_data(user_data)
    if not any(m in text for m in MENTIONS):
        return []
    config_read = _found_in_text(text).config_taints is not None
    out = []
    for body in _texts(text):
        for line in body.replace("\\\n", " ").splitlines():
            stripped = line.strip()
            if stripped.startswith("#") or not any(m in stripped for m in MENTIONS):
                continue
            if stripped.lstrip("- ").startswith("registerWithTaints") and config_read:
                continue
            if _line_reads_the_flag(stripped):
                continue
            out.append(stripped if len(stripped) <= SHOWN else stripped[:SHOWN] + f"... ({len(stripped)} characters)")
    return out
