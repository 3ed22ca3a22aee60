"""Pulumi secrets in recorded inputs: judged by their value, never shown.

A program may wrap any input in ``pulumi.Output.secret(...)`` (a ``command:local:Command``'s ``create``,
a DaemonSet's ``spec``). In a real preview the engine hands a policy pack the secret's plain value
(pulumi-policy ``deserialize.py`` unwraps the secret signature; ``secret.py``'s proxy returns the raw
value), so the rules judge it there. Offline the plan does the same: a record keeps ``inputs`` as shown
(each secret :data:`~gpu_node_pool.k8s.wellknown.SECRET`) and, when the program passed a secret,
``secret_inputs`` with the plain values, which only the pack reads (:func:`judged_inputs`). What the
pack reports of a resource with a secret (and of the stack) is cut of the secret's texts (:func:`mask`)
before anyone sees it. A rule's message about *another* resource may still quote a secret it read across
resources (the device plugin's tolerations in a pool's finding); a real preview shows every message as the
rule wrote it, secret or not.

A secret whose value offline is only the placeholder of a stack-file ``secure:`` value (which is never
decrypted offline, ``config/loading.py``) is not known: in ``secret_inputs`` it is the unknown marker,
so the rules that read it say "can't run during preview" and the plan lists it as not judged.

Nothing here imports Pulumi."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..k8s.wellknown import SECRET, UNKNOWN

__all__ = ["MIN_MASKED", "judged_inputs", "mask", "secret_texts"]


def judged_inputs(resource: Any) -> Any:
    """What the pack judges of ``resource`` (any object with ``inputs``, and optionally ``secret_inputs``):
    the inputs with the plain values of its secrets, or its ``inputs`` when it has none."""
    revealed = getattr(resource, "secret_inputs", None)
    return resource.inputs if revealed is None else revealed


#: Secret texts shorter than this are not cut from messages: they would cut the message's own words
#: ("a", "key"), and no credential is that short.
MIN_MASKED = 4


def secret_texts(resource: Any) -> tuple[str, ...]:
    """Every string value of at least :data:`MIN_MASKED` characters in a secret's plain value of ``resource``
    (its ``secret_inputs`` where the shown ``inputs`` hold :data:`SECRET`), longest first, so that :func:`mask`
    cuts a whole secret before a part of it. Empty when it has no secret. Keys of a secret object are field
    names (``tolerations``, ``operator``), not the secret, and are not collected."""
    revealed = getattr(resource, "secret_inputs", None)
    if revealed is None:
        return ()
    found: set[str] = set()
    _collect(resource.inputs, revealed, found)
    return tuple(sorted(found, key=lambda s: (-len(s), s)))


def _collect(shown: Any, revealed: Any, found: set[str]) -> None:
    if isinstance(shown, str) and shown == SECRET and shown != revealed:
        _strings(revealed, found)
    elif isinstance(shown, Mapping) and isinstance(revealed, Mapping):
        for key, value in shown.items():
            if key in revealed:
                _collect(value, revealed[key], found)
    elif isinstance(shown, list) and isinstance(revealed, list):
        for a, b in zip(shown, revealed, strict=False):
            _collect(a, b, found)


def _strings(value: Any, found: set[str]) -> None:
    if isinstance(value, str):
        if len(value) >= MIN_MASKED and value != UNKNOWN:
            found.add(value)
    elif isinstance(value, Mapping):
        for item in value.values():
            _strings(item, found)
    elif isinstance(value, list):
        for item in value:
            _strings(item, found)


def mask(text: str, texts: tuple[str, ...]) -> str:
    """``text`` with every occurrence of each of ``texts`` (from :func:`secret_texts`) replaced by :data:`SECRET`."""
    for secret in texts:
        if secret in text:
            text = text.replace(secret, SECRET)
    return text
