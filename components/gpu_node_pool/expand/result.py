"""The outcomes of expanding a resource: the objects it creates, why they are not judged, or an input a real
``pulumi preview`` fails on.

``NotJudged`` is one item of the report's ``notJudged`` list, ``{resource, type, reason, fix}``
(``cli/report.schema.json``); ``RefusedInput`` becomes one of the report's ``configErrors``. What their reasons
and fixes share: the words for an input unknown at preview (:func:`unknown_input`) and the path a user most
likely meant when the one written names nothing (:func:`similar_path`).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePath
from typing import Any

from ..k8s.wellknown import SECRET
from ..text.suggest import closest

__all__ = ["Expanded", "NotJudged", "RefusedInput", "find_unknown", "similar_path", "unknown_input"]


@dataclass(frozen=True)
class NotJudged:
    """A resource whose Kubernetes objects could not be opened, so no policy judged them.

    Attributes:
        resource: the resource's URN (or its name when no URN is known).
        type: its Pulumi type token, e.g. ``kubernetes:helm.sh/v4:Chart``.
        reason: one sentence: what could not be opened and why (for a failed render, Helm's
            first error line).
        fix: one sentence: what the user can do so it is judged.
        input: empty for an item left unjudged. Set, this is no such item but a :class:`RefusedInput` at that input
            carried in a list of not-judged items (what a program collects while it runs, which ``gpupool check``'s
            child answers as ``notJudged``, read back with ``NotJudged(**item)``): :meth:`refused` gives it back.
        verdict: for a ``helm template`` that failed with an error of a row of
            :data:`~gpu_node_pool.expand.helm_fixes.HELM_ERRORS`, that row's verdict (``"offline"``, ``"values"`` or
            ``"kube-version"``: :data:`~gpu_node_pool.expand.helm_fixes.KUBE_VERSION` when the chart's ``kubeVersion``
            refused the version rendered for); else ``""``. Not part of the report item.
    """

    resource: str
    type: str
    reason: str
    fix: str
    input: str = ""
    verdict: str = ""

    def to_dict(self) -> dict[str, str]:
        """The report item ``{resource, type, reason, fix}`` (JSON key order as in ``cli/report.schema.json``), with
        ``input`` only when it carries a refused input (which never reaches a report's ``notJudged``)."""
        out = {"resource": self.resource, "type": self.type, "reason": self.reason, "fix": self.fix}
        if self.input:
            out["input"] = self.input
        return out

    def noted(self, note: str) -> NotJudged:
        """This item with ``note`` after its reason, in parentheses: ``"<reason> (<note>)"``."""
        return replace(self, reason=f"{self.reason} ({note})")

    def refused(self) -> RefusedInput | None:
        """The :class:`RefusedInput` this item carries (its ``input`` set), else None."""
        return RefusedInput(self.resource, self.type, self.input, self.reason) if self.input else None


@dataclass(frozen=True)
class RefusedInput:
    """An input the provider refuses, so that a real ``pulumi preview`` of the program fails: an error at that
    input, not an item left unjudged.

    Attributes:
        resource: the resource's URN (or its name when no URN is known).
        type: its Pulumi type token.
        input: the input's name, e.g. ``chart``.
        message: one sentence: the value, the rule and its public source, and the fix.
    """

    resource: str
    type: str
    input: str
    message: str

    def to_dict(self) -> dict[str, str]:
        """``{resource, type, reason, fix, input}``: this refusal carried as a :class:`NotJudged` item
        (``reason`` the message, ``fix`` empty: the message names it), which :meth:`NotJudged.refused` gives back."""
        return NotJudged(self.resource, self.type, self.message, "", self.input).to_dict()


@dataclass(frozen=True)
class Expanded:
    """The Kubernetes objects a resource creates, as plain camelCase dicts.

    Attributes:
        resource: the parent resource's URN or name.
        type: the parent's Pulumi type token.
        objects: each object with ``apiVersion``, ``kind`` and ``metadata``; ``List`` kinds are
            flattened into their items.
        source: how the objects were obtained, e.g. ``helm template`` (a real render),
            ``yaml`` (parsed in-process) or ``facts`` (the managed add-on table); a
            ``helm.v3.Release`` is rendered offline only (a real preview never sees inside it),
            so the caller labels its findings ``source: offline-render``.
        notes: warnings that do not stop the judgement (e.g. an UNCONFIRMED fact in a row).
    """

    resource: str
    type: str
    objects: list[dict[str, Any]]
    source: str
    notes: list[str] = field(default_factory=list)


def find_unknown(value: Any, markers: tuple[Any, ...], path: str = "") -> str | None:
    """The dotted path of the first value equal to one of ``markers`` (values unknown at preview), or None.

    ``markers`` are what the caller stores for an unknown (the offline plan's
    ``"(known after apply)"``); lists are walked as ``path[i]``, maps as ``path.key``.
    """
    if not markers:
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            found = find_unknown(item, markers, f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = find_unknown(item, markers, f"{path}[{i}]")
            if found is not None:
                return found
        return None
    try:
        return (path or "(the value)") if any(value is m or (type(value) is type(m) and value == m) for m in markers) else None
    except Exception:  # an object whose == raises is not a marker
        return None


#: The fix for a resource not opened because an input is a Pulumi secret.
SECRET_FIX = ("keep the secret out of what the plan must open (a Kubernetes Secret the chart or manifest reads), "
              "or judge after apply")


def unknown_input(value: Any, markers: tuple[Any, ...]) -> tuple[str, str] | None:
    """``(path, words)`` for the first value of ``value`` that is one of ``markers`` (:func:`find_unknown`):
    ``words`` say why it cannot be read, ``"is a Pulumi secret, which the plan does not open offline"`` for the
    plan's :data:`~gpu_node_pool.k8s.wellknown.SECRET`, else ``"is unknown at preview"``; None when none is."""
    path = find_unknown(value, markers)
    if path is None:
        return None
    return path, ("is a Pulumi secret, which the plan does not open offline" if _at(value, path) == SECRET
                  else "is unknown at preview")


def _at(value: Any, path: str) -> Any:
    """The value at ``path`` (as :func:`find_unknown` writes it) in ``value``, or None."""
    import re

    for key, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", path):
        try:
            value = value[int(index)] if index else value[key]
        except (KeyError, IndexError, TypeError):
            return None
    return value


#: Most entries of one directory compared with a mistyped name (a larger directory is not searched further).
_MAX_ENTRIES = 2000


def similar_path(base: Path, written: str, accept: Callable[[Path], bool] = Path.exists) -> str | None:
    """The path the user most likely meant by ``written`` (relative to ``base``, or absolute) when nothing is
    there: each part that names nothing replaced by the closest name in its directory
    (:func:`~gpu_node_pool.text.suggest.closest`, ratio 0.75 or more), kept only when what it names passes
    ``accept``; written as ``written`` was (same separators, a leading ``./`` kept). None when ``written`` names something, or no such path is found.

    ``similar_path(project, "charts/logshp", is_chart) == "charts/logship"`` when ``charts/logship`` is a chart.
    """
    parts = PurePath(written).parts
    here = Path(parts[0]) if parts and PurePath(written).is_absolute() else base
    out: list[str] = list(parts[:1]) if parts and PurePath(written).is_absolute() else []
    changed = False
    for i, part in enumerate(parts[len(out):], start=len(out)):
        if part in (".", "..") or (here / part).exists():
            here, out = here / part, [*out, part]
            continue
        last = i == len(parts) - 1
        try:
            with os.scandir(here) as entries:
                names = [e.name for e in itertools.islice(entries, _MAX_ENTRIES) if last or e.is_dir()]
        except OSError:
            return None
        close = closest(part, names, cutoff=0.75)
        if close is None:
            return None
        here, out, changed = here / close, [*out, close], True
    if not changed or not accept(here):
        return None
    text = str(PurePath(*out)) if out else written
    return f"./{text}" if written.startswith("./") and not text.startswith(".") else text
