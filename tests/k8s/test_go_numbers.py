"""Go's YAML float and JSON's exponent threshold have one home, ``k8s/go_numbers.py``: the stack file's reader
(``config/pulumi_scalars.py``), the manifests' loader (``sdk/yaml_bounded.py``) and the toleration refusals read
the same rule, and no other module writes ``yamlStyleFloat`` or ``1e21`` again."""

from __future__ import annotations

import ast

import pytest
from conftest import ROOT

from gpu_node_pool.config.pulumi_scalars import plain_kind, plain_number
from gpu_node_pool.k8s.go_numbers import yaml_exponent_float, yaml_float
from gpu_node_pool.k8s.refusals import toleration_refusal
from gpu_node_pool.sdk.yaml_bounded import load_bounded

PACKAGE = ROOT / "components" / "gpu_node_pool"
HOME = "k8s/go_numbers.py"


@pytest.mark.parametrize(("text", "value"), [
    ("1e3", 1000.0), ("5e3", 5000.0), ("1e+26", 1e26), ("-2E-3", -0.002), (".5e1", 5.0), ("1.5e3", 1500.0),
    ("1_0.5", 10.5), ("1_0e3", 10000.0), ("+.5", 0.5), ("1.", 1.0), ("12", 12.0)])
def test_what_go_reads_as_a_float(text, value):
    assert yaml_float(text) == value


@pytest.mark.parametrize("text", [
    "1e", "e3", "1e3.5", "1.2.3", "._5", ".5_0", "1e400", "-1e400", ".inf", ".nan", "0x1F", "abc", "", " 1e3", "1e3 "])
def test_what_go_keeps_a_string(text):
    # ``._5`` and ``.5_0``: a text starting with "." goes to ParseFloat as written, which takes "_" only after a base
    # prefix; ``1e400``: ParseFloat's range error keeps the text
    assert yaml_float(text) is None


@pytest.mark.parametrize(("text", "value"), [("1e+26", 1e26), ("1.5E3", 1500.0), (".5e1", 5.0)])
def test_the_exponent_form_variant(text, value):
    assert yaml_exponent_float(text) == value


@pytest.mark.parametrize("text", ["300", "1.5", "0x1e3", "1e", 300, 1e26, None])
def test_the_exponent_form_variant_takes_only_a_text_with_an_exponent(text):
    assert yaml_exponent_float(text) is None


@pytest.mark.parametrize("text", ["1_0e3", "1e400", "._5", "1e3", "-2E-3"])
def test_the_stack_file_the_manifests_and_the_toleration_refusal_read_alike(text):
    number = yaml_float(text)
    assert (plain_kind(text) == "float") is (number is not None)
    assert (plain_number(text) is not None) is (number is not None)
    assert load_bounded(f"v: {text}")["v"] == (text if number is None else number)


def test_a_big_exponent_text_is_refused_as_the_number_go_reads_unquoted():
    # Kubernetes' YAML reader drops "_" before it reads a number, so "1_0e25" unquoted is 1e+26 too
    refused = toleration_refusal({"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": "1_0e25"})
    assert refused is not None and "it is the number 1e+26 to Kubernetes' YAML readers" in refused, refused


#: The body of ``yamlStyleFloat`` as a Python pattern would spell it, and the exponent threshold as a number.
_FLOAT_BODY = r"[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?"


def copies_in(source: str, where: str) -> list[str]:
    """``where:line`` of each string constant holding :data:`_FLOAT_BODY` and each number equal to 1e21."""
    hits = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _FLOAT_BODY in node.value:
            hits.append(f"{where}:{node.lineno}: {node.value[:60]!r}")
        elif isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value == 1e21:
            hits.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return hits


def test_no_module_but_the_home_writes_the_float_rule_or_the_threshold():
    hits = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).as_posix() != HOME:
            hits += copies_in(path.read_text(), str(path.relative_to(ROOT)))
    assert not hits, "\n".join(hits)


def test_the_copy_check_can_fail():
    assert len(copies_in((PACKAGE / HOME).read_text(), HOME)) == 2
    for source in ('F = re.compile(r"^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$")\n', "X = 1e21\n",
                   "X = 1_000_000_000_000_000_000_000\n", "X = 1.0e+21\n"):
        assert copies_in(source, "made-up.py"), source
    assert not copies_in('"""a float of 1e21 or more."""\nX = 1e20\nY = r"[0-9]+"\n', "made-up.py")
