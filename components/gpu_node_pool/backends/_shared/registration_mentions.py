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
from dataclasses import dataclass, field
from typing import Any

from .registration import REGISTER_WITH_TAINTS_FLAG
from .user_data import _expand_args, decode_user_data, found_in_text, mime_parts

__all__ = ["MENTIONS", "UserDataRegistration", "read_user_data_registration", "unreadable_registration_mentions"]

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
    config_read = found_in_text(text).config_taints is not None
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


@dataclass(frozen=True)
class UserDataRegistration:
    """What user data registers the node with, as the policies read it (:func:`read_user_data_registration`).

    Attributes:
        taints: the taints it registers (:class:`~gpu_node_pool.k8s.taints.Taint`, sorted; the kubelet flag's
            when a ``--register-with-taints`` flag replaces a config file's list).
        labels: the labels it registers (``--node-labels``, Bottlerocket ``node-labels``).
        by_flag: the taints come from a kubelet ``--register-with-taints`` flag (which overrides the
            kubelet config file's ``registerWithTaints``).
        unreadable: why a mention of a registration taint was not read, one sentence each: a line the
            reader cannot follow, or the reader's failure.
    """

    taints: tuple[Any, ...] = ()
    labels: dict[str, str] = field(default_factory=dict)
    by_flag: bool = False
    unreadable: tuple[str, ...] = ()


def read_user_data_registration(user_data: str | bytes | None) -> UserDataRegistration:
    """The taints and labels ``user_data`` (text or base64, gzip and MIME undone) registers, and what in it
    could not be read; never raises for bad user data: a reader failure on user data that mentions a taint
    setting (``register-with-taints``, ``registerWithTaints``, ``node-taints``) is an ``unreadable`` entry,
    on user data that mentions none an empty result."""
    from .user_data import _found

    if not user_data:
        return UserDataRegistration()
    try:
        found = _found(user_data)
        reg = found.registration()
        lines = unreadable_registration_mentions(user_data)
    except (ValueError, TypeError) as err:  # TaintError and UserDataError are ValueErrors
        if any(m in decode_user_data(user_data) for m in (*MENTIONS, "node-taints")):
            return UserDataRegistration(unreadable=(f"the reader failed: {err}",))
        return UserDataRegistration()
    by_flag = any(a.partition("=")[0] == REGISTER_WITH_TAINTS_FLAG for a in found.flags)
    return UserDataRegistration(
        taints=tuple(reg.taints), labels=dict(reg.labels), by_flag=by_flag,
        unreadable=tuple(f"this line is not one the reader can follow: {line}" for line in lines),
    )
