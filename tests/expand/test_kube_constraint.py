"""A chart's ``kubeVersion`` is judged as Masterminds/semver v3.4.0 ``NewConstraint`` reads it: the linear-time form
of ``validConstraintRegex`` accepts what the library's own pattern does, and what it refuses Helm refuses to render
for every version, while what it reads renders on a version inside it."""

from __future__ import annotations

import random
import re
import subprocess

import pytest

from gpu_node_pool.expand.kube_constraint import _VALID, constraint_problem
from gpu_node_pool.plan.expand import locate_helm

HELM = locate_helm()
needs_helm = pytest.mark.skipif(HELM is None, reason="no helm on PATH or in venv/bin (make setup installs it)")

# constraints.go@v3.4.0, init(): validConstraintRegex as the library writes it (\s as Go's RE2 reads it)
_S = r"[\t\n\f\r ]"
_CV = (r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
       r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?")
_OPS = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^"
LIBRARY_VALID = re.compile(rf"^({_S}*({_OPS}){_S}*({_CV}){_S}*)((?:{_S}+|,{_S}*)({_OPS}){_S}*({_CV}){_S}*)*$")


def test_the_linear_form_accepts_exactly_what_the_librarys_pattern_accepts():
    rng = random.Random(20240611)
    alphabet = ["1", "2", "0", ".", "x", "*", "v", "-", "+", "a", " ", "  ", ",", ">", "<", "=", "!", "~", "^", "|",
                "\t", "1.2", ">=", "~>"]
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 9)))
        assert (_VALID.fullmatch(text) is not None) == (LIBRARY_VALID.fullmatch(text) is not None), repr(text)


def test_a_long_text_that_is_no_constraint_is_judged_at_once():
    import time

    start = time.monotonic()
    assert constraint_problem("1  " * 5000 + "!") is not None
    assert time.monotonic() - start < 2


@pytest.mark.parametrize("constraint", [">=1.28.0-0", "~1.33", ">=1.25 <1.35 || 1.x", "1.28 - 1.34", "^1.30",
                                        ">1.2, <2", "1.33.x", "v1.x.x", ">= 1.33.0-0 , <= 1.40"])
def test_a_constraint_the_library_reads_has_no_problem(constraint):
    assert constraint_problem(constraint) is None


@pytest.mark.parametrize(("constraint", "problem"), [
    ("not a constraint!!", "improper constraint: not a constraint!!"),
    (">= 1.2 &&", "improper constraint: >= 1.2 &&"),
    ("1.2.3.4", "improper constraint: 1.2.3.4"),
    (">=1.2 ||", "improper constraint: "),
    # parseConstraint: NewVersion refuses "1|2.0.0" and "1x.2.0", and the library returns its bare words
    ("1|2", "constraint parser error"),
    ("1x.2", "constraint parser error"),
    (">=1.28 || 1|2", "constraint parser error"),
])
def test_what_the_library_refuses_is_named_in_its_words(constraint, problem):
    assert constraint_problem(constraint) == problem


def _render(tmp_path, constraint: str, version: str) -> subprocess.CompletedProcess[str]:
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True, exist_ok=True)
    (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: c\nversion: 0.1.0\nkubeVersion: {constraint!r}\n")
    env = {"HELM_CACHE_HOME": str(tmp_path / "h" / "c"), "HELM_CONFIG_HOME": str(tmp_path / "h" / "cf"),
           "HELM_DATA_HOME": str(tmp_path / "h" / "d"), "PATH": "/usr/bin:/bin"}
    return subprocess.run([str(HELM), "template", "r", str(chart), "--kube-version", version], capture_output=True,
                          text=True, timeout=60, check=False, env=env)


@needs_helm
@pytest.mark.parametrize("constraint", ["not a constraint!!", ">= 1.2 &&", "1|2", "1.2.3.4"])
def test_helm_refuses_a_constraint_the_library_refuses_on_every_version(tmp_path, constraint):
    assert constraint_problem(constraint) is not None
    for version in ("1.20", "1.33", "1.99"):
        run = _render(tmp_path, constraint, version)
        assert run.returncode != 0 and "chart requires kubeVersion" in run.stderr, (version, run.stderr)


@needs_helm
@pytest.mark.parametrize("constraint", [">=1.28.0-0", "~1.33", ">=1.25 <1.35 || 1.x", "1.28 - 1.34", "1.33.x"])
def test_helm_renders_a_constraint_the_library_reads_on_a_version_inside_it(tmp_path, constraint):
    assert constraint_problem(constraint) is None
    run = _render(tmp_path, constraint, "1.33")
    assert run.returncode == 0, run.stderr
