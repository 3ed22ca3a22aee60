"""The product stands alone: nothing it ships points at notes a user cannot read.

Every string, comment and docstring in ``components/gpu_node_pool/**`` (``.py``, ``.json``,
``.yaml``) and in ``README.md`` names its sources publicly (a URL, or ``upstream-repo/path@tag``).
A pointer to the project's working notes (a ``facts/`` sheet, a ``shared/`` folder, a row or
section number of such a sheet, an internal issue number) reaches neither the wheel's users nor
the repo's readers, so the check fails on any of them and lists each hit as ``file:line: text``.
"""

from __future__ import annotations

import re
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "components" / "gpu_node_pool"
SUFFIXES = (".py", ".json", ".yaml", ".yml")

#: Pointers to internal notes: a notes sheet or folder, a row or section of one, an issue number.
INTERNAL_POINTER = re.compile(r"facts/|(?<![\w])shared/|\brows? \d|§ ?\d|\bissues? \d+", re.IGNORECASE)

#: Files allowed to match, each with its reason: only a loader of test data would qualify, and the
#: package has none.
ALLOWED: dict[str, str] = {}


def shipped_files() -> list[Path]:
    """The package's py/json/yaml files and README.md, sorted."""
    files = [p for p in PACKAGE.rglob("*") if p.is_file() and p.suffix in SUFFIXES and "__pycache__" not in p.parts]
    return sorted(files) + [ROOT / "README.md"]


def internal_pointers(text: str, name: str) -> list[str]:
    """``name:line: text`` for every line of ``text`` that matches :data:`INTERNAL_POINTER`."""
    return [f"{name}:{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1) if INTERNAL_POINTER.search(line)]


def test_nothing_shipped_points_at_internal_notes():
    hits = []
    for path in shipped_files():
        name = path.relative_to(ROOT).as_posix()
        if name not in ALLOWED:
            hits += internal_pointers(path.read_text(encoding="utf-8"), name)
    assert not hits, (
        f"{len(hits)} line(s) point at notes a user cannot read; cite the public source instead "
        "(URL or upstream-repo/path@tag), or state the fact plainly:\n" + "\n".join(hits)
    )


def test_the_check_can_fail():
    sample = "\n".join(
        [
            "ok: NVIDIA/k8s-device-plugin@v0.20.0 deployments/helm/nvidia-device-plugin/values.yaml",
            "# see ../shared/facts/aws-gpu-capacity.md",
            'msg = "refused (facts row 4.4)"',
            "Sources: the sheet's §3 and Rows 2.1-2.4",
            "added for Issue 13 item 4",
            "ok: https://github.com/NVIDIA/dcgm-exporter/issues/731 and aws/karpenter-provider-aws#6355",
            "ok: the readers in backends/_shared/user_data.py (a package folder, not the notes)",
        ]
    )
    hits = internal_pointers(sample, "sample.py")
    assert [h.split(":")[1] for h in hits] == ["2", "3", "4", "5"]
    assert hits[0] == "sample.py:2: # see ../shared/facts/aws-gpu-capacity.md"
