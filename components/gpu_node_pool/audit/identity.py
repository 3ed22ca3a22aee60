"""Which objects a dump holds twice, and whether the copies agree.

A dump directory may hold the same object in two files (two dumps of one cluster, a file copied
beside itself). An object's identity is

* for a cluster-scoped kind (Node, the admission policies), its kind and name: the API server never
  holds two Nodes of one name at once, so two copies with different ``metadata.uid`` are one node at
  two times (deleted and created again between two dumps), and the uid is one more field they differ in;
* for a namespaced kind, its kind and namespace/name and, when both copies have a ``metadata.uid``,
  its uid: a copy of a kept one's name with another uid is the other object it is.

The audit keeps the first copy read (files in name order, items in file order) and

* notes a later copy that agrees with the kept one in everything the verdicts read (a *repeat*), one
  note per pair of files counting the repeats by kind (:meth:`Repeats.notes`);
* describes a later copy that differs in what the verdicts read, or a cluster-scoped one whose uid
  differs, as a *conflict* (:meth:`Repeats.see`): the verdict is about the kept copy only, while the
  other may be the cluster's present state, so the snapshot lists it among the objects left out (a
  partial verdict);
* judges a namespaced object whose name a kept one has but whose uid differs as the other object it
  is, and notes it, counted by kind.

What a copy is compared on is its *parts*: the API field paths the verdicts read of it, each with
its value as read (:mod:`.snapshot` gives them per kind); fields the verdicts do not read (a
``resourceVersion``, a heartbeat time) may differ between two dumps of one cluster without conflict.

Only what the snapshot keeps is remembered (its caller does not show the rest), and each object
without a Python object of its own (:class:`_Table`): a 16-byte digest of its identity, and where
its kept copy was read with a 64-bit digest of its uid and of each part, packed in two byte arrays.
A copy found again is described from those digests; the names a note shows are taken when the copy
is read.
"""

from __future__ import annotations

import hashlib
import json
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Repeats", "display"]

#: Names shown per note; the others are counted.
_SHOWN = 5
#: A kept copy: the index of the file it was read from, the index of its part paths, its uid's digest
#: (0: none), then one digest per part.
_HEAD = struct.Struct("<IHq")
_PART = struct.Struct("<q")


def display(kind: str, namespace: Any, name: Any) -> str:
    """``Node gpu-1``, ``DaemonSet kube-system/aws-node``: how the report names an object."""
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def _digest(value: Any) -> int:
    return hash(json.dumps(value, sort_keys=True, default=repr))


def _key(*identity: str) -> bytes:
    text = "\0".join(identity).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=16).digest()


class _Table:
    """Packed records by 16-byte digest, with no Python object per record (a dump's hundred thousand pods
    would each pin a few small objects among the parser's freed ones): an open-addressing hash table of
    ``(digest, offset + 1)`` slots in one byte array (an offset 0 marks a free slot), at most 2/3 full,
    and the records, each after its length, in another."""

    _SLOT = struct.Struct("<16sI")
    _LENGTH = struct.Struct("<H")

    def __init__(self) -> None:
        self._capacity = 1024  # slots, a power of 2
        self._slots = bytearray(self._SLOT.size * self._capacity)
        self._records = bytearray()
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def _find(self, key: bytes) -> tuple[int, int]:
        """``(slot, offset + 1)`` of ``key``, or of the free slot where it would go and 0."""
        mask = self._capacity - 1
        slot = int.from_bytes(key[:8], "little") & mask
        while True:
            found, offset = self._SLOT.unpack_from(self._slots, slot * self._SLOT.size)
            if not offset or found == key:
                return slot, offset
            slot = (slot + 1) & mask

    def get(self, key: bytes) -> bytes | None:
        """The record put under ``key``, or None."""
        _, offset = self._find(key)
        if not offset:
            return None
        (length,) = self._LENGTH.unpack_from(self._records, offset - 1)
        start = offset - 1 + self._LENGTH.size
        return bytes(self._records[start:start + length])

    def put(self, key: bytes, record: bytes) -> None:
        """Put ``record`` under ``key`` (which holds none yet)."""
        if (self._count + 1) * 3 > self._capacity * 2:
            self._grow()
        slot, _ = self._find(key)
        self._SLOT.pack_into(self._slots, slot * self._SLOT.size, key, len(self._records) + 1)
        self._records += self._LENGTH.pack(len(record)) + record
        self._count += 1

    def _grow(self) -> None:
        old, size = self._slots, self._SLOT.size
        self._capacity *= 2
        self._slots = bytearray(size * self._capacity)
        for i in range(0, len(old), size):
            key, offset = self._SLOT.unpack_from(old, i)
            if offset:
                slot, _ = self._find(key)
                self._SLOT.pack_into(self._slots, slot * size, key, offset)


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
    """The objects kept so far, by identity (module docstring), each with where its kept copy came from."""

    #: identity digest -> the kept copy, packed (:data:`_HEAD`, then :data:`_PART` per part).
    _kept: _Table = field(default_factory=_Table)
    #: the files copies were read from, in the order first met (a kept copy holds the index), and each one's index.
    _files: list[str] = field(default_factory=list)
    _file_index: dict[str, int] = field(default_factory=dict)
    #: the same for the part paths of each shape of copy (a Node's, a Pending pod's...).
    _shapes: list[tuple[str, ...]] = field(default_factory=list)
    _shape_index: dict[tuple[str, ...], int] = field(default_factory=dict)
    #: (where the later copy was read, where the kept copy was) -> what it repeated.
    _pairs: dict[tuple[str, str], _Pair] = field(default_factory=dict)
    #: the same, for namespaced objects of a kept one's name with another uid.
    _renamed: dict[tuple[str, str], _Pair] = field(default_factory=dict)

    def __len__(self) -> int:
        """How many objects are remembered."""
        return len(self._kept)

    def see(self, kind: str, meta: Mapping[str, Any], where: str, parts: Mapping[str, Any], *,
            cluster_scoped: bool = False) -> tuple[bool, str]:
        """Record a copy of the object ``meta`` names, read from ``where`` (a file).

        ``cluster_scoped``: the kind has no namespace (a Node); its name alone is its identity.
        Returns ``(first, conflict)``: ``first`` is True for the first copy of the object (keep it)
        and False for any later copy (drop it); ``conflict`` is "" unless the later copy differs from
        the kept one, and then one line saying which copies differ and in which fields.
        """
        namespace = "" if cluster_scoped else str(meta.get("namespace") or "")
        name = str(meta.get("name"))
        uid = str(meta.get("uid") or "")
        copy = self._pack(where, parts, uid)
        key = _key(kind, namespace, name)
        kept = self._kept.get(key)
        if kept is None:
            self._kept.put(key, copy)
            return True, ""
        kept_where, kept_paths, kept_uid, kept_digests = self._unpack(kept)
        _, paths, uid_digest, digests = self._unpack(copy)
        if not cluster_scoped and uid_digest and kept_uid and uid_digest != kept_uid:  # another object, same name
            other = _key(kind, namespace, name, uid)
            again = self._kept.get(other)
            if again is None:
                self._kept.put(other, copy)
                _count(self._renamed.setdefault((where, kept_where), _Pair()), kind, namespace, name)
                return True, ""
            kept_where, kept_paths, kept_uid, kept_digests = self._unpack(again)
        now, before = dict(zip(paths, digests, strict=True)), dict(zip(kept_paths, kept_digests, strict=True))
        differ = sorted(path for path in {*now, *before} if now.get(path) != before.get(path))
        other_uid = bool(uid_digest and kept_uid and uid_digest != kept_uid)
        if differ or other_uid:
            copies = f"{kept_where} holds two copies" if kept_where == where else f"{kept_where} and {where} hold copies"
            fields = ", ".join(["metadata.uid"] * other_uid + differ)
            why = (f" (one {kind} name, two uids: it was deleted and created again between the two copies)"
                   if other_uid else "")
            return False, (f"{display(kind, namespace, name)}: {copies} that differ in {fields}{why}; the verdict "
                           f"is about the first copy ({kept_where}), the other was left out and may be the cluster's "
                           "present state: audit one dump of the cluster, or remove the stale file")
        _count(self._pairs.setdefault((where, kept_where), _Pair()), kind, namespace, name)
        return False, ""

    def _pack(self, where: str, parts: Mapping[str, Any], uid: str) -> bytes:
        file, shape = _index_of(self._file_index, self._files, where), _index_of(self._shape_index, self._shapes, tuple(parts))
        head = _HEAD.pack(file, shape, (hash(uid) or 1) if uid else 0)
        return head + b"".join(_PART.pack(_digest(value)) for value in parts.values())

    def _unpack(self, copy: bytes) -> tuple[str, tuple[str, ...], int, list[int]]:
        """``(where it was read, its part paths, its uid's digest, its parts' digests)``."""
        file, shape, uid = _HEAD.unpack_from(copy)
        digests = [d for (d,) in _PART.iter_unpack(copy[_HEAD.size:])]
        return self._files[file], self._shapes[shape], uid, digests

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


def _index_of(index: dict[Any, int], values: list[Any], value: Any) -> int:
    """``value``'s place in ``values``, appended when new."""
    if value not in index:
        index[value] = len(values)
        values.append(value)
    return index[value]


def _count(pair: _Pair, kind: str, namespace: str, name: str) -> None:
    pair.counts[kind] = pair.counts.get(kind, 0) + 1
    if len(pair.shown) < _SHOWN:
        pair.shown.append(display(kind, namespace, name))
