"""What the plan keeps of a resource the mock engine recorded: its inputs as plain JSON-like values, each
value unknown at preview as :data:`UNKNOWN` and each Pulumi secret as :data:`SECRET`, and beside them, only when
the program passed a secret, the secrets' plain values the pack judges (:mod:`gpu_node_pool.sdk.secrets`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..k8s.wellknown import SECRET, UNKNOWN
from ..sdk.record import Resource as Recorded

__all__ = ["plain", "plain_record"]


def plain(value: Any, *, reveal: bool = False, secrets: list[bool] | None = None) -> Any:
    """Mock inputs -> JSON-able plain values; preview unknowns become :data:`UNKNOWN`.

    A Pulumi secret becomes :data:`SECRET`, or with ``reveal`` its plain value (what the pack judges,
    :mod:`gpu_node_pool.sdk.secrets`), where a string holding the placeholder of a stack-file ``secure:``
    value, never decrypted offline (``"set -e; [secret]"``), is :data:`UNKNOWN`. ``secrets``, when given, gets an item for each secret met."""
    from pulumi.output import Unknown
    from pulumi.runtime import rpc

    return _to_plain(value, Unknown, rpc._special_sig_key, rpc._special_secret_sig, reveal, secrets)


def _to_plain(value: Any, unknown: type, sig_key: str, secret_sig: str, reveal: bool = False,
              secrets: list[bool] | None = None) -> Any:
    kind = type(value)
    if kind is str:  # most values: leaves, first
        if SECRET in value:  # the placeholder of a secure: value of the stack file, or a text made with it
            if secrets is not None:
                secrets.append(True)
            return UNKNOWN if reveal else value
        if reveal and _made_with_placeholder(value):  # a secret's text made from it another way
            return UNKNOWN
        return value
    if kind is int or kind is bool or value is None:
        return value
    if kind is dict or (kind is not list and kind is not tuple and isinstance(value, Mapping)):
        if value.get(sig_key) == secret_sig:
            if secrets is not None:
                secrets.append(True)
            if reveal:
                return _to_plain(value.get("value"), unknown, sig_key, secret_sig, reveal)
            return SECRET  # a Pulumi secret: never shown, never stored in the plan
        return {k: _to_plain(v, unknown, sig_key, secret_sig, reveal, secrets) for k, v in value.items()}
    if kind is list or kind is tuple or isinstance(value, (list, tuple)):
        return [_to_plain(v, unknown, sig_key, secret_sig, reveal, secrets) for v in value]
    if isinstance(value, unknown):
        return UNKNOWN
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _placeholder_forms() -> tuple[str, ...]:
    """How :data:`SECRET` reads once a program transformed the text holding it: upper case, and the base64 of it
    at each of the three byte alignments (the characters that encode only its bytes)."""
    import base64

    forms = [SECRET.upper()]
    raw = SECRET.encode()
    for k in range(3):
        encoded = base64.b64encode(b"A" * k + raw + b"AAA").decode()
        forms.append(encoded[(k * 8 + 5) // 6:((k + len(raw)) * 8) // 6])
    return tuple(forms)


_PLACEHOLDER_FORMS = _placeholder_forms()


def _made_with_placeholder(text: str) -> bool:
    """Whether ``text`` (a secret's plain value) holds :data:`SECRET` upper-cased or base64-encoded: made from a
    stack-file ``secure:`` value the plan cannot decrypt, so not known."""
    return any(form in text for form in _PLACEHOLDER_FORMS)


def plain_record(resource: Recorded) -> Recorded:
    """``resource`` with plain inputs (secrets shown as :data:`SECRET`) and, when the program passed a
    secret, ``secret_inputs`` with their plain values for the pack."""
    secrets: list[bool] = []
    shown = plain(resource.inputs, secrets=secrets)
    if not secrets:
        return dataclasses.replace(resource, inputs=shown)
    return dataclasses.replace(resource, inputs=shown, secret_inputs=plain(resource.inputs, reveal=True))
