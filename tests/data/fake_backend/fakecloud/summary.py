from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import BACKEND


def summarise(pool: Any, entry: dict[str, Any], index: Mapping[tuple[str, str], Any],
              by_type: Mapping[str, list[Any]], outputs: Mapping[str, Any]) -> None:
    record = index.get((BACKEND.child_type("pool"), BACKEND.child_name("pool", pool.name)))
    if record is not None:
        entry["taints"] = list(record.inputs["taints"])
        entry["labels"] = dict(record.inputs["labels"])
        entry["flavor"] = record.inputs["flavor"]


def report(entry: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    return [f"  flavor          {entry.get('flavor')}"], []
