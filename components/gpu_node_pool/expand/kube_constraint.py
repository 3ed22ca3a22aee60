"""Whether a chart's ``kubeVersion`` is a version constraint Helm can read at all.

Helm checks a chart's ``kubeVersion`` (Chart.yaml, https://helm.sh/docs/topics/charts/#the-kubeversion-field) before
it renders (helm/helm ``pkg/action/action.go@v4.1.4``, ``renderResources``) with ``IsCompatibleRange``
(``pkg/chart/v2/util/compatible.go@v4.1.4``), which returns false when Masterminds/semver's ``NewConstraint`` cannot
parse the constraint: Helm then prints the same "chart requires kubeVersion: ... which is incompatible with
Kubernetes ..." as for a constraint the version fails, whatever the version. Loading the chart does not check it
(``Metadata.Validate``, ``pkg/chart/v2/metadata.go@v4.1.4``, and ``helm lint`` pass such a chart), so the constraint
is judged here, as ``NewConstraint`` of Masterminds/semver ``constraints.go@v3.4.0`` (the version Helm v4.1.4 and the
Kubernetes provider's Helm v3.20.2 both pin) parses it:

1. each ``<v1> - <v2>`` range is rewritten to ``>= <v1>, <= <v2>`` (``rewriteRange``);
2. the text is split at ``||``; each part must match ``validConstraintRegex`` (else "improper constraint: <part>");
3. each constraint found in it (``findConstraintRegex``) must match ``constraintRegex`` (``parseConstraint``, else
   "improper constraint: <constraint>") and gives a version, its ``x``/``*`` parts made ``0``, that ``NewVersion``
   must read (else the bare "constraint parser error", which names no constraint).

``validConstraintRegex`` is written here in an equivalent form that a backtracking matcher checks in linear time
(``tests/expand/test_kube_constraint.py`` compares the two on generated texts).
"""

from __future__ import annotations

import re

from .chart_load import is_loose_semver

__all__ = ["CONSTRAINT_SOURCE", "constraint_problem"]

#: Where the rules of a constraint are (named in every message about one).
CONSTRAINT_SOURCE = "Masterminds/semver constraints.go@v3.4.0, NewConstraint"

_W = r"[\t\n\f\r ]"  # Go RE2's \s
_CV = (r"v?([0-9|xX*]+)(\.[0-9|xX*]+)?(\.[0-9|xX*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
       r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?")
_CV_PLAIN = re.sub(r"\((?!\?)", "(?:", _CV)  # the same, without groups
_OPS = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^"
_OPS_SET = r"(?:!=|>=|=>|<=|=<|~>|=|>|<|~|\^)"  # the non-empty operators, longest first

_CONSTRAINT = re.compile(rf"{_W}*({_OPS}){_W}*({_CV}){_W}*")
_RANGE = re.compile(rf"{_W}*({_CV}){_W}+-{_W}+({_CV}){_W}*")
_FIND = re.compile(rf"({_OPS}){_W}*({_CV})")
#: ``^(\s*(ops)\s*(cv)\s*)((?:\s+|,\s*)(ops)\s*(cv)\s*)*$``, each run of spaces matched one way only.
_VALID = re.compile(rf"{_W}*(?:{_OPS_SET}{_W}*)?{_CV_PLAIN}(?:(?:{_W}+|{_W}*,{_W}*)(?:{_OPS_SET}{_W}*)?{_CV_PLAIN})*"
                    rf"{_W}*")


def _rewrite_range(text: str) -> str:
    """``rewriteRange``: each ``a - b`` becomes ``>= a, <= b `` (its first occurrence, match by match)."""
    out = text
    for m in _RANGE.finditer(text):
        out = out.replace(m.group(0), f">= {m.group(1)}, <= {m.group(11)} ", 1)
    return out


def _is_x(part: str) -> bool:
    return part in ("x", "X", "*")


def _constraint_version(piece: str) -> str | None:
    """The version ``parseConstraint`` builds from one constraint ``piece`` (``x`` parts made ``0``), or None when
    ``constraintRegex`` does not match it."""
    m = _CONSTRAINT.fullmatch(piece)
    if m is None:
        return None
    major, minor, patch, pre = m.group(3), m.group(4) or "", m.group(5) or "", m.group(6) or ""
    if _is_x(major):
        return f"0.0.0{pre}"
    if _is_x(minor.removeprefix(".")) or not minor:
        return f"{major}.0.0{pre}"
    if _is_x(patch.removeprefix(".")) or not patch:
        return f"{major}{minor}.0{pre}"
    return m.group(2)


def constraint_problem(constraint: str) -> str | None:
    """The error Masterminds/semver ``NewConstraint`` (``constraints.go@v3.4.0``) returns for ``constraint``, word for
    word, or None when it reads it: ``improper constraint: <part>`` (a part between ``||`` that
    ``validConstraintRegex`` refuses, or a constraint found in it that ``constraintRegex`` refuses) or the bare
    ``constraint parser error`` (a version ``NewVersion`` refuses; the library names no constraint).

    ``">=1.28.0-0"``, ``"~1.30"``, ``">=1.25 <1.35 || 1.x"`` and ``"1.28 - 1.33"`` are read; ``"not a constraint!!"``
    and ``">= 1.2 &&"`` give ``improper constraint: ...``, ``"1|2"`` gives ``constraint parser error``."""
    for part in _rewrite_range(constraint).split("||"):
        if _VALID.fullmatch(part) is None:
            return f"improper constraint: {part}"
        for found in _FIND.finditer(part):
            version = _constraint_version(found.group(0))
            if version is None:
                return f"improper constraint: {found.group(0)}"
            if not is_loose_semver(version):
                return "constraint parser error"
    return None
