"""Which objects the audit read twice, and whether the copies agree.

A dump directory may hold the same object in two files (two dumps of one cluster, a file copied
beside itself). Two objects are the same object when they have the same kind and namespace/name and,
when both have a ``metadata.uid``, the same uid. The audit keeps the first copy read (files in name
order, items in file order) and

* notes a later copy that agrees with the kept one in everything the verdicts read (a *repeat*), one
  note per pair of files counting the repeats by kind (:meth:`Repeats.notes`);
* describes a later copy that differs in what the verdicts read as a *conflict* (:meth:`Repeats.see`):
  the verdict is about the kept copy only, while the other may be the cluster's present state, so the
  snapshot lists it among the objects left out (a partial verdict);
* judges an object whose name a kept one has but whose uid differs (deleted and created again between
  two dumps, or two clusters' dumps) as the other object it is, and notes it, counted by kind.

What a copy is compared on is its *parts*: the API field paths the verdicts read of it, each with
its value as read (:mod:`.snapshot` gives them per kind); fields the verdicts do not read (a
``resourceVersion``, a heartbeat time) may differ between two dumps of one cluster without conflict.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Repeats", "display"]

#: Names shown per note; the others are counted.
_SHOWN = 5


def display(kind: str, namespace: Any, name: Any) -> str:
    """``Node gpu-1``, ``DaemonSet kube-system/aws-node``: how the report names an object."""
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def _digest(value: Any) -> int:
    return hash(json.dumps(value, sort_keys=True, default=repr))


@dataclass
class _Pair:
    """The repeats one file holds of objects first read from another (or the same) file."""

    counts: dict[str, int] = field(default_factory=dict)
    shown: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """``3 Node, 12 Pod``."""
        return ", ".join(f"{n} {kind}" for kind, n in self.counts.items())

    @property
    def names(self) -> str:
        """The first names, and how many more."""
        more = sum(self.counts.values()) - len(self.shown)
        return ", ".join(self.shown) + (f" and {more} more" if more else "")


@dataclass
class Repeats:
    """The objects read so far, by kind and namespace/name, each with where its kept copy came from."""

    #: (kind, namespace, name) -> per object of that name (one, unless uids differ): where its kept copy was
    #: read, its uid or "", and a digest of each part.
    _kept: dict[tuple[str, str, str], list[tuple[str, str, dict[str, int]]]] = field(default_factory=dict)
    #: (where the later copy was read, where the kept copy was) -> what it repeated.
    _pairs: dict[tuple[str, str], _Pair] = field(default_factory=dict)
    #: the same, for objects of a kept one's name with another uid.
    _renamed: dict[tuple[str, str], _Pair] = field(default_factory=dict)

    def see(self, kind: str, meta: Mapping[str, Any], where: str, parts: Mapping[str, Any]) -> tuple[bool, str]:
        """Record a copy of the object ``meta`` names, read from ``where`` (a file, or an API list).

        Returns ``(first, conflict)``: ``first`` is True for the first copy of the object (keep it)
        and False for any later copy (drop it); ``conflict`` is "" unless the later copy differs from
        the kept one, and then one line saying which copies differ and in which fields.
        """
        namespace, name = str(meta.get("namespace") or ""), str(meta.get("name"))
        uid = str(meta.get("uid") or "")
        digests = {path: _digest(value) for path, value in parts.items()}
        same_name = self._kept.setdefault((kind, namespace, name), [])
        kept = next((k for k in same_name if not uid or not k[1] or k[1] == uid), None)
        if kept is None:
            if same_name:
                _count(self._renamed.setdefault((where, same_name[0][0]), _Pair()), kind, namespace, name)
            same_name.append((where, uid, digests))
            return True, ""
        kept_where, _, kept_digests = kept
        differ = sorted(path for path in {*digests, *kept_digests} if digests.get(path) != kept_digests.get(path))
        if differ:
            copies = f"{kept_where} holds two copies" if kept_where == where else f"{kept_where} and {where} hold copies"
            return False, (f"{display(kind, namespace, name)}: {copies} that differ in {', '.join(differ)}; the verdict "
                           f"is about the first copy ({kept_where}), the other was left out and may be the cluster's "
                           "present state: audit one dump of the cluster, or remove the stale file")
        _count(self._pairs.setdefault((where, kept_where), _Pair()), kind, namespace, name)
        return False, ""

    def notes(self) -> list[str]:
        """One line per file that repeated objects already read (which, counted by kind, and of which file),
        and one per file that holds objects named as others already read but with another uid."""
        lines = []
        for (where, kept_where), pair in self._pairs.items():
            what = f"holds {pair.text} twice" if where == kept_where else f"repeats {pair.text} already read from {kept_where}"
            lines.append(f"{where} {what} (the same kind, namespace/name and uid, alike in what the audit reads); "
                         f"each was judged once: {pair.names}")
        for (where, kept_where), pair in self._renamed.items():
            others = "other objects it holds" if where == kept_where else f"objects of {kept_where}"
            lines.append(f"{where} holds {pair.text} named as {others} but with another metadata.uid (deleted and "
                         f"created again between two dumps?); each was judged as the other object its uid says it "
                         f"is: {pair.names}")
        return lines


def _count(pair: _Pair, kind: str, namespace: str, name: str) -> None:
    pair.counts[kind] = pair.counts.get(kind, 0) + 1
    if len(pair.shown) < _SHOWN:
        pair.shown.append(display(kind, namespace, name))
