"""Pulumi secrets in recorded inputs: judged by their value, never shown.

A program may wrap any input in ``pulumi.Output.secret(...)`` (a ``command:local:Command``'s ``create``,
a DaemonSet's ``spec``). In a real preview the engine hands a policy pack the secret's plain value
(pulumi-policy ``deserialize.py`` unwraps the secret signature; ``secret.py``'s proxy returns the raw
value), so the rules judge it there. Offline the plan does the same: a record keeps ``inputs`` as shown
(each secret :data:`~gpu_node_pool.k8s.wellknown.SECRET`) and, when the program passed a secret,
``secret_inputs`` with the plain values, which the pack and the reports' verdicts read (:func:`judged_inputs`).
Everything a report shows is then cut of the secrets' texts (:func:`secret_texts`, :func:`mask`,
:func:`mask_tree`), whichever resource's finding or summary quotes them.

A text is cut when it is a string value of a secret, a line of one (stripped, its spaces collapsed, as
a rule quotes a command line; also as Python's ``repr`` escapes it), a line of what ``derive`` finds inside
one (decoded user data), or a key of a secret object that is no field name (a label key such as
``example.com/team``), and is at least :data:`MIN_MASKED` characters long, unless the program also gives that
very text in plain (a resource's name or type, a part of one, a taint a pool declares) or it is a word of
Kubernetes or of the report itself (an effect, an operator, an enforcement level): then it is no secret.
Shorter texts are left: they would cut the report's own words (``Exists``, ``nodes``), and no credential is
that short. A report's identifiers (:data:`IDENTIFIER_FIELDS`) are never cut.

A secret whose value offline holds the placeholder of a stack-file ``secure:`` value (never decrypted
offline, ``config/loading.py``) is not known: in ``secret_inputs`` such a string is the unknown marker,
so the rules that read it say "can't run during preview" and the plan lists it as not judged.

Nothing here imports Pulumi."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..k8s.effective import DAEMONSET_CONTROLLER_TOLERATIONS, HOST_NETWORK_DAEMON_TOLERATIONS
from ..k8s.selection import NODE_SELECTOR_OPERATORS
from ..k8s.taints import TOLERATION_OPERATORS, TaintEffect
from ..k8s.wellknown import SECRET, UNKNOWN

__all__ = ["IDENTIFIER_FIELDS", "MIN_MASKED", "judged_inputs", "mask", "mask_tree", "secret_texts"]

#: The shortest secret text cut from reports (see the module docstring).
MIN_MASKED = 8
#: Kubernetes' own words (taint effects in both spellings, operators): never cut, a secret or not, for every
#: report says them.
_VOCABULARY = frozenset({*(e.value for e in TaintEffect), *(e.provider_spelling for e in TaintEffect),
                         *TOLERATION_OPERATORS, *NODE_SELECTOR_OPERATORS,
                         "mandatory", "advisory", "disabled", "remediate",  # the pack's levels (pulumi_policy)
                         # the taints the cluster itself sets, which messages about tolerations name
                         *(t.key for t in (*DAEMONSET_CONTROLLER_TOLERATIONS, *HOST_NETWORK_DAEMON_TOLERATIONS))})
#: What separates the parts of a type token, a URN or a label key: each part of a plain one is public too.
_PARTS = re.compile(r"[^A-Za-z0-9_-]+")
#: A key of a secret object that is a field name (``tolerations``, ``matchLabels``), not data.
_FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def judged_inputs(resource: Any) -> Any:
    """What the pack judges of ``resource`` (any object with ``inputs``, and optionally ``secret_inputs``):
    the inputs with the plain values of its secrets, or its ``inputs`` when it has none."""
    revealed = getattr(resource, "secret_inputs", None)
    return resource.inputs if revealed is None else revealed


def secret_texts(resources: Iterable[Any], derive: Callable[[str], Iterable[str]] | None = None, *,
                 shortest: int = MIN_MASKED, public: Iterable[Any] | None = None) -> tuple[str, ...]:
    """The texts of every secret in ``resources`` (see the module docstring), longest first, so that
    :func:`mask` cuts a whole secret before a part of it; empty when none has a secret. ``derive(text)``
    gives texts found inside a secret string (decoded user data), whose lines are cut too. ``shortest``: the
    shortest text cut (a summary of one resource's own values cuts them all: 1). ``public``: the resources
    whose plain inputs and names are no secret (default: ``resources``)."""
    resources = list(resources)
    found: set[str] = set()
    for res in resources:
        revealed = getattr(res, "secret_inputs", None)
        if revealed is not None:
            _collect(res.inputs, revealed, found, derive)
    found = {t for t in found if len(t) >= shortest and t not in _VOCABULARY}
    resources = list(public) if public is not None else resources
    if found:  # what the program also gives in plain (a name, a label it sets elsewhere) is no secret
        public: set[str] = set()
        for res in resources:
            for ident in (str(getattr(res, "type", "")), str(getattr(res, "name", "")), str(getattr(res, "urn", ""))):
                public.add(ident)
                public.update(_PARTS.split(ident))
            _public(res.inputs, public)
        found -= public
    return tuple(sorted(found, key=lambda s: (-len(s), s)))


def _public(value: Any, out: set[str]) -> None:
    """Every string of shown inputs (keys included), secrets being :data:`SECRET` there."""
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str):
                out.add(key)
            _public(item, out)
    elif isinstance(value, list):
        for item in value:
            _public(item, out)


def _collect(shown: Any, revealed: Any, found: set[str], derive: Callable[[str], Iterable[str]] | None) -> None:
    if isinstance(shown, str) and shown == SECRET and shown != revealed:
        _texts(revealed, found, derive)
    elif isinstance(shown, Mapping) and isinstance(revealed, Mapping):
        for key, value in shown.items():
            if key in revealed:
                _collect(value, revealed[key], found, derive)
    elif isinstance(shown, list) and isinstance(revealed, list):
        for a, b in zip(shown, revealed, strict=False):
            _collect(a, b, found, derive)


def _texts(value: Any, found: set[str], derive: Callable[[str], Iterable[str]] | None) -> None:
    if isinstance(value, str):
        _add(value, found)
        for inner in (derive(value) if derive is not None else ()):
            if inner != value:
                _add(inner, found)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str) and not _FIELD_NAME.fullmatch(key):
                _add(key, found)
            _texts(item, found, derive)
    elif isinstance(value, list):
        for item in value:
            _texts(item, found, derive)


def _add(text: str, found: set[str]) -> None:
    """``text``, stripped, and each of its lines as a rule quotes them (spaces collapsed, ``\\``-continued lines
    joined, with full-line comments dropped before or after), and each as Python's ``repr`` escapes it."""
    if UNKNOWN in text:
        return
    uncommented = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    for source in (text, uncommented):
        for part in (source, source.strip(),
                     *(" ".join(line.split()) for line in source.replace("\\\n", " ").splitlines())):
            if part:
                found.add(part)
                escaped = repr(part)[1:-1]
                if escaped != part:
                    found.add(escaped)


def mask(text: str, texts: tuple[str, ...]) -> str:
    """``text`` with every occurrence of each of ``texts`` (from :func:`secret_texts`) replaced by :data:`SECRET`."""
    for secret in texts:
        if secret in text:
            text = text.replace(secret, SECRET)
    return text


#: Fields of a report that hold identifiers the program or the pack chose in plain (a resource's type and
#: name, its URN, a policy and its level, a SARIF level): never cut, so the report keeps its shape.
IDENTIFIER_FIELDS = frozenset({"policy", "enforcement", "urn", "resource", "type", "name", "resourceType",
                               "component", "backend", "level", "ruleId", "schemaVersion", "command", "failOn"})


def mask_tree(value: Any, texts: tuple[str, ...]) -> Any:
    """``value`` (a JSON-like report: mappings, lists, tuples, strings, numbers) with :func:`mask` applied to every
    string but those of :data:`IDENTIFIER_FIELDS`, and to every key that is no field name (a label key such as
    ``example.com/team``); ``value`` itself when ``texts`` is empty."""
    if not texts:
        return value
    if isinstance(value, str):
        return mask(value, texts)
    if isinstance(value, Mapping):
        return {(k if not isinstance(k, str) or _FIELD_NAME.fullmatch(k) else mask(k, texts)):
                (v if k in IDENTIFIER_FIELDS and isinstance(v, str) else mask_tree(v, texts))
                for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(mask_tree(v, texts) for v in value)
    return value
