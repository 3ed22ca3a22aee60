"""One source of truth: no effect spelling appears as a string literal outside k8s/taints.py, the effects it re-exports
(k8s/effects.py) and k8s/effective.py; no int32 or int64 bound is written as a number outside k8s/integers.py.

Docstrings and comments may name effects; code must go through TaintEffect. Messages, docstrings and comments may
spell the integer bounds; code reads INT32_MIN, INT32_MAX, in_int32, INT64_MIN, INT64_MAX or in_int64 (2**31, 1 << 31,
2147483647 or 2147483648 as a number, and 2**63, 2 ** 63, 1 << 63, 9223372036854775807 or 9223372036854775808 as a
number are refused), and imports those names from k8s/integers.py only, never through a module that imported them.
"""

from __future__ import annotations

import ast
import re

import pytest
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


#: Where the int32 and int64 bounds are written as numbers.
INTEGERS_HOME = "k8s/integers.py"


def _int_constant(node: ast.AST, value: int) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value


def _bound_literals_in(source: str, where: str, bits: int) -> list[str]:
    """``where:line`` of each bound of the ``bits + 1``-bit signed range ``source`` writes as a number: ``2**bits``
    (any spacing), ``1 << bits``, or an int literal of ``2**bits - 1`` or ``2**bits`` (decimal, hex, ...)."""
    edges = (2**bits - 1, 2**bits)
    hits = []
    for node in ast.walk(ast.parse(source)):
        power = isinstance(node, ast.BinOp) and (
            (isinstance(node.op, ast.Pow) and _int_constant(node.left, 2) and _int_constant(node.right, bits))
            or (isinstance(node.op, ast.LShift) and _int_constant(node.left, 1) and _int_constant(node.right, bits)))
        edge = isinstance(node, ast.Constant) and type(node.value) is int and node.value in edges
        if power or edge:
            hits.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return hits


def int64_literals_in(source: str, where: str) -> list[str]:
    """``where:line`` of each int64 bound ``source`` writes as a number: ``2**63`` (any spacing), ``1 << 63``, or an
    int literal of 2**63 - 1 or 2**63 (decimal, hex, ...). Strings are not read."""
    return _bound_literals_in(source, where, 63)


def int32_literals_in(source: str, where: str) -> list[str]:
    """``where:line`` of each int32 bound ``source`` writes as a number: ``2**31`` (any spacing), ``1 << 31``, or an
    int literal of 2**31 - 1 or 2**31 (decimal, hex, ...). Strings are not read."""
    return _bound_literals_in(source, where, 31)


@pytest.mark.parametrize("literals_in", [int64_literals_in, int32_literals_in], ids=["int64", "int32"])
def test_no_integer_bound_literal_outside_its_home(literals_in):
    hits = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).as_posix() != INTEGERS_HOME:
            hits += literals_in(path.read_text(), str(path.relative_to(ROOT)))
    assert not hits, "\n".join(hits)


def test_the_int64_check_can_fail():
    assert int64_literals_in((PACKAGE / INTEGERS_HOME).read_text(), INTEGERS_HOME)
    for spelling in ("2**63", "2 ** 63", "-(2**63)", "2**63 - 1", "1 << 63", "9223372036854775807",
                     "9_223_372_036_854_775_807", "0x7FFFFFFFFFFFFFFF", "9223372036854775808"):
        assert int64_literals_in(f"x = {spelling}\n", "made-up.py"), spelling
    prose = '"""at most 9223372036854775807 (2**63 - 1)."""\nm = "past 9223372036854775807"\ny = 2**64\nz = 2**31 - 1\n'
    assert not int64_literals_in(prose, "made-up.py")


def test_the_int32_check_can_fail():
    assert int32_literals_in((PACKAGE / INTEGERS_HOME).read_text(), INTEGERS_HOME)
    for spelling in ("2**31", "2 ** 31", "-(2**31)", "2**31 - 1", "1 << 31", "2147483647", "2_147_483_647",
                     "0x7FFFFFFF", "2147483648", "0x80000000"):
        assert int32_literals_in(f"x = {spelling}\n", "made-up.py"), spelling
    prose = '"""at most 2147483647 (2**31 - 1)."""\nm = "past 2147483647"\ny = 2**32\nz = 2**63 - 1\n'
    assert not int32_literals_in(prose, "made-up.py")


#: The names of the bounds, read only from their home.
BOUND_NAMES = frozenset({"INT32_MIN", "INT32_MAX", "INT64_MIN", "INT64_MAX"})
INTEGERS_MODULE = "gpu_node_pool.k8s.integers"


def _absolute(module: str | None, level: int, package: str) -> str:
    """The module a ``from`` import names, relative ones resolved against ``package`` (the importer's package)."""
    if not level:
        return module or ""
    parts = package.split(".")
    base = parts[:len(parts) - level + 1]
    return ".".join([*base, module] if module else base)


def bound_imports_in(source: str, where: str, package: str) -> list[str]:
    """``where:line`` of each int32 or int64 bound ``source`` reads from another module than k8s/integers.py: a
    ``from ... import INT32_MAX`` (any of the four names, relative ones resolved against ``package``), or
    ``something.INT64_MAX`` where ``something`` is no name of the integers module itself."""
    tree = ast.parse(source)
    homes = {INTEGERS_MODULE}
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = _absolute(node.module, node.level, package)
            for alias in node.names:
                if alias.name in BOUND_NAMES and module != INTEGERS_MODULE:
                    hits.append(f"{where}:{node.lineno}: {alias.name} from {module}")
                if f"{module}.{alias.name}" == INTEGERS_MODULE:
                    homes.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            homes.update(alias.asname for alias in node.names if alias.name == INTEGERS_MODULE and alias.asname)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in BOUND_NAMES and ast.unparse(node.value) not in homes:
            hits.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return hits


def _package_of(path) -> str:
    """The package a module's relative imports start from: its folder's (an ``__init__.py``'s own package too)."""
    return ".".join(path.relative_to(ROOT / "components").parent.parts)


def test_integer_bounds_are_imported_only_from_their_home():
    hits = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).as_posix() != INTEGERS_HOME:
            hits += bound_imports_in(path.read_text(), str(path.relative_to(ROOT)), _package_of(path))
    for path in sorted((ROOT / "tests").rglob("*.py")):
        hits += bound_imports_in(path.read_text(), str(path.relative_to(ROOT)), "tests")
    assert not hits, "\n".join(hits)


def test_the_bound_import_check_can_fail():
    config = "gpu_node_pool.config"
    for source in ("from .common import INT32_MAX\n", "from ..config.common import Model, INT64_MIN\n",
                   "from gpu_node_pool.config.common import INT64_MAX as BIG\n", "from . import INT32_MIN\n",
                   "from ..k8s.quantity import INT32_MAX\n", "from gpu_node_pool.config import common\nx = common.INT32_MAX\n"):
        assert bound_imports_in(source, "made-up.py", config), source
    for source in ("from ..k8s.integers import INT32_MAX, INT32_MIN\n", "from gpu_node_pool.k8s.integers import INT64_MAX\n",
                   "from ..k8s import integers\nx = integers.INT64_MIN\n",
                   "import gpu_node_pool.k8s.integers as ints\nx = ints.INT32_MAX\n",
                   "import gpu_node_pool.k8s.integers\nx = gpu_node_pool.k8s.integers.INT32_MAX\n"):
        assert not bound_imports_in(source, "made-up.py", config), source
    assert bound_imports_in("from .common import INT32_MAX\n", "made-up.py", "gpu_node_pool.config") == [
        "made-up.py:1: INT32_MAX from gpu_node_pool.config.common"]
