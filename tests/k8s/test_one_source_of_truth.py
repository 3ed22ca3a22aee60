"""One source of truth: no effect spelling appears as a string literal outside k8s/taints.py, the effects it re-exports
(k8s/effects.py) and k8s/effective.py.

Docstrings and comments may name effects; code must go through TaintEffect.
"""

from __future__ import annotations

import ast
import re

from conftest import ROOT

EFFECT = re.compile(r"\b(NoSchedule|PreferNoSchedule|NoExecute|NO_SCHEDULE|PREFER_NO_SCHEDULE|NO_EXECUTE)\b")
PACKAGE = ROOT / "components" / "gpu_node_pool"
#: Where taint semantics live: parsing and matching, the effects' spellings, and what admission and the DaemonSet
#: controller add.
TAINT_MODULES = ("k8s/taints.py", "k8s/effects.py", "k8s/effective.py")


def _docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def effect_literals(path) -> list[str]:
    tree = ast.parse(path.read_text())
    docs = _docstring_nodes(tree)
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            if EFFECT.search(node.value):
                hits.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value[:60]!r}")
    return hits


def test_no_effect_literal_outside_taints_py():
    hits = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).as_posix() in TAINT_MODULES:
            continue
        hits += effect_literals(path)
    assert not hits, "\n".join(hits)


def test_the_check_can_fail():
    assert effect_literals(PACKAGE / "k8s" / "taints.py") and effect_literals(PACKAGE / "k8s" / "effects.py")
