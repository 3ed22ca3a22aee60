"""ARCHITECTURE.md cannot drift from the package, and no docstring points at a module that is gone.

* The rooms table has one row per top-level room of ``components/gpu_node_pool`` (package or
  module) and per folder of ``backends/`` and ``gpu_agents/``; no row names a room that does not
  exist; each layered room's layer number is its place in pyproject.toml's ``layers`` contract.
* Every file path the page names in backticks exists (a bare file name: some file of the package
  has it; the checklist's example backend `aks` is skipped).
* Every ``:mod:``, ``:func:``, ``:class:`` and ``:data:`` target and every dotted ``gpu_node_pool.x.y`` name in
  the package's sources resolves: the module imports, and for a function or class the attribute
  exists.

Each check has a ``test_the_check_can_fail`` beside it that feeds it a made-up row or reference.
"""

from __future__ import annotations

import importlib
import re
import tomllib
from pathlib import Path

import pytest
from conftest import ROOT

PACKAGE = ROOT / "components" / "gpu_node_pool"
DOC = ROOT / "ARCHITECTURE.md"
FOLDER_ROOMS = ("backends", "gpu_agents")  # rooms whose folders each get a row

_ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|(.*)\|\s*$")
_ROLE = re.compile(r":(mod|func|class|data):`([^`]+)`")
_DOTTED = re.compile(r"\bgpu_node_pool(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_DOC_PATH = re.compile(r"`([A-Za-z0-9_./-]+(?:\.py|\.toml|\.md|/))`")


# --- the rooms table -------------------------------------------------------------------------


def rooms_on_disk(package: Path = PACKAGE) -> set[str]:
    """``k8s/``, ``registry.py``, ``backends/karpenter/``, ...: what needs a row."""
    rooms: set[str] = set()
    for entry in package.iterdir():
        if entry.is_dir() and (entry / "__init__.py").is_file():
            rooms.add(f"{entry.name}/")
        elif entry.suffix == ".py" and entry.name != "__init__.py":
            rooms.add(entry.name)
    for room in FOLDER_ROOMS:
        for entry in (package / room).iterdir():
            if entry.is_dir() and (entry / "__init__.py").is_file():
                rooms.add(f"{room}/{entry.name}/")
    return rooms


def layers() -> list[list[str]]:
    """The ``layers`` contract, top first: each layer's rooms (``"cli | provider"`` is two siblings)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (contract,) = [c for c in config if c["type"] == "layers"]
    return [[room.strip() for room in re.split(r"[|:]", layer)] for layer in contract["layers"]]


def table_rows(markdown: str) -> dict[str, list[str]]:
    """The rooms table (the one whose header begins ``| room``): room -> its other cells."""
    rows: dict[str, list[str]] = {}
    inside = False
    for line in markdown.splitlines():
        if line.startswith("| room"):
            inside = True
            continue
        if inside and not line.startswith("|"):
            break
        match = _ROW.match(line) if inside else None
        if match:
            rows[match.group(1)] = [cell.strip() for cell in match.group(2).split("|")]
    return rows


def room_problems(rows: dict[str, list[str]], disk: set[str], order: list[list[str]]) -> list[str]:
    problems = [f"room {room} has no row in ARCHITECTURE.md's rooms table" for room in sorted(disk - rows.keys())]
    problems += [f"ARCHITECTURE.md has a row for {room}, which does not exist" for room in sorted(rows.keys() - disk)]
    for room, cells in rows.items():
        if len(cells) != 2 or not cells[0]:
            problems.append(f"row {room}: want | `room` | what it is | layer |, got {cells}")
            continue
        top = room.split("/")[0].removesuffix(".py")
        place = [i for i, layer in enumerate(order) if top in layer]
        if place:
            want = str(place[0] + 1)
            if not cells[1].startswith(want + " ") and cells[1] != want:
                problems.append(f"row {room}: layer {cells[1]!r}, but {top} is layer {want} of {len(order)} in pyproject.toml")
    return problems


class TestRooms:
    def test_every_room_has_one_row_and_every_row_a_room(self):
        assert room_problems(table_rows(DOC.read_text()), rooms_on_disk(), layers()) == []

    def test_the_check_can_fail(self):
        rows = table_rows(DOC.read_text())
        made_up = dict(rows)
        made_up["nosuch/"] = ["A room that is not there.", "1 (top)"]
        del made_up["k8s/"]
        made_up["cli/"] = ["The CLI.", "7"]
        problems = room_problems(made_up, rooms_on_disk(), layers())
        assert any("k8s/ has no row" in p for p in problems)
        assert any("row for nosuch/" in p for p in problems)
        assert any("row cli/: layer '7'" in p for p in problems)


# --- file paths the page names ---------------------------------------------------------------


EXAMPLE_BACKEND = "aks"  # the backend the checklist adds: its paths are examples, not files


def doc_path_problems(markdown: str) -> list[str]:
    """Backticked paths (``plan/render.py``, ``backends/_shared/``, ``pyproject.toml``) that exist
    neither in the package nor from the repository root, and bare file names (``detect.py``)
    that no file of the package has."""
    names = {p.name for p in PACKAGE.rglob("*")} | {p.name for p in ROOT.iterdir()}
    problems = []
    for path in sorted(set(_DOC_PATH.findall(markdown))):
        if f"{EXAMPLE_BACKEND}/" in path:
            continue
        found = path in names if "/" not in path else any(
            (base / path).exists() for base in (PACKAGE, ROOT, ROOT / "components"))
        if not found:
            problems.append(f"ARCHITECTURE.md names {path}, which does not exist")
    return problems


class TestDocPaths:
    def test_every_path_the_page_names_exists(self):
        assert doc_path_problems(DOC.read_text()) == []

    def test_the_check_can_fail(self):
        assert doc_path_problems("see `plan/report.py`, `taints/effective.py`, `detect.py` and `_nodepool.py`") == [
            "ARCHITECTURE.md names _nodepool.py, which does not exist",
            "ARCHITECTURE.md names taints/effective.py, which does not exist",
        ]


# --- references in the sources ---------------------------------------------------------------


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(dotted: str, kind: str) -> bool:
    """Whether ``dotted`` names a module (``mod``) or a module's attribute (``func``, ``class``,
    ``data``; a dotted name in prose may be either)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        rest = parts[cut:]
        if kind == "mod" and rest:
            return False
        for name in rest:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def _candidates(module: str, target: str) -> list[str]:
    """Where a role target may live, as Sphinx looks: absolute, or relative to the module and each
    package above it; a leading dot means only the latter, never a top-level module such as ``html``."""
    ancestors = module.split(".")
    scopes = [".".join(ancestors[:i]) for i in range(len(ancestors), 0, -1)]
    relative = target.startswith(".")
    target = target.lstrip(".")
    return ([] if relative else [target]) + [f"{scope}.{target}" for scope in scopes]


def reference_problems(module: str, text: str) -> list[str]:
    problems = []
    for kind, raw in _ROLE.findall(text):
        target = raw.split("<")[-1].rstrip(">").lstrip("~!").removesuffix("()")
        if not any(_resolve(c, kind) for c in _candidates(module, target)):
            problems.append(f"{module}: :{kind}:`{raw}` points at nothing")
    for dotted in sorted(set(_DOTTED.findall(text))):
        if not _resolve(dotted, "any"):
            problems.append(f"{module}: {dotted} points at nothing")
    return problems


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


class TestReferences:
    def test_every_module_reference_in_the_package_resolves(self):
        problems = [p for path in _sources() for p in reference_problems(_module_name(path), path.read_text())]
        assert problems == []

    @pytest.mark.parametrize(
        "text",
        [
            "Taints live in :mod:`gpu_node_pool.taints`.",  # the module before it moved to k8s/
            "See :mod:`.analysis`.",
            "Parsed by :func:`~gpu_node_pool.k8s.taints.no_such_function`.",
            "Built by :class:`NoSuchModel`.",
            "# read by gpu_node_pool.plan.no_such_module",
        ],
    )
    def test_the_check_can_fail(self, text):
        assert reference_problems("gpu_node_pool.plan.render", text) != []

    def test_a_reference_that_exists_passes(self):
        text = (
            ":mod:`gpu_node_pool.k8s.taints`, :func:`~gpu_node_pool.k8s.taints.tolerates`, "
            ":func:`write_files`, :class:`.Recorded`, gpu_node_pool.plan.render.write_files"
        )
        assert reference_problems("gpu_node_pool.plan.render", text) == []
