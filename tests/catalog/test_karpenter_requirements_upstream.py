"""NodePool requirements against Karpenter's own tables, transcribed as data.

Sources (kubernetes-sigs/karpenter):

* ``pkg/scheduling/requirements_test.go``@0546b80bc9c8 "should be compatible with well-known v1 labels
  undefined": the rows ``doesNotExist``, ``inA``, ``inB``, ``in1``, ``in9`` against every column. A row
  with one value is what one instance type offers for the key, and ``doesNotExist`` a type without the
  label, so the row's verdict is whether :func:`gpu_node_pool.catalog.requirements.evaluate` keeps
  that type under the column's requirement. The columns ``inA``..``lessThan9`` are the table's.
* ``pkg/scheduling/requirement_test.go``@1229d8ff8442 "should normalize labels" and ``pkg/apis/v1/
  labels.go``@046bcdae ``NormalizedLabels``: deprecated keys are read as their stable keys.

The issue said Karpenter's ``NotIn`` differs from node affinity for a value the node never carries;
the table says it does not: ``notInA`` keeps ``inB`` and the type without the label, as node
affinity's NotIn does.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from gpu_node_pool.catalog.model import LabelValue
from gpu_node_pool.catalog.requirements import NORMALIZED_LABELS, evaluate

KEY = "karpenter.k8s.aws/instance-gpu-count"

COLUMNS = {
    "exists": ("Exists", []), "doesNotExist": ("DoesNotExist", []), "inA": ("In", ["A"]), "inB": ("In", ["B"]),
    "inAB": ("In", ["A", "B"]), "notInA": ("NotIn", ["A"]), "in1": ("In", ["1"]), "in9": ("In", ["9"]),
    "in19": ("In", ["1", "9"]), "notIn12": ("NotIn", ["1", "2"]), "greaterThan1": ("Gt", ["1"]),
    "greaterThan9": ("Gt", ["9"]), "lessThan1": ("Lt", ["1"]), "lessThan9": ("Lt", ["9"]),
}
ORDER = list(COLUMNS)
#: row -> Succeed (1) / ToNot(Succeed()) (0) per column in ORDER, as the upstream table has them.
TABLE = {
    "doesNotExist": "0 1 0 0 0 1 0 0 0 1 0 0 0 0",
    "inA":          "1 0 1 0 1 0 0 0 0 1 0 0 0 0",
    "inB":          "1 0 0 1 1 1 0 0 0 1 0 0 0 0",
    "in1":          "1 0 0 0 0 1 1 0 1 0 0 0 0 1",
    "in9":          "1 0 0 0 0 1 0 1 1 1 1 0 0 0",
}  # fmt: skip
ROW_VALUE = {"doesNotExist": LabelValue.ABSENT, "inA": "A", "inB": "B", "in1": "1", "in9": "9"}


@dataclass(frozen=True)
class OneLabelType:
    """An instance type that carries ``KEY`` with ``value`` (or not at all): all a row needs."""

    name: str
    value: str | LabelValue
    architecture: str = "amd64"

    def label(self, suffix: str) -> str | LabelValue:
        return self.value


CASES = [(row, column, bool(int(flag))) for row, flags in TABLE.items() for column, flag in zip(ORDER, flags.split(), strict=True)]


@pytest.mark.parametrize(("row", "column", "compatible"), CASES, ids=[f"{r}-{c}" for r, c, _ in CASES])
def test_requirement_keeps_a_type_as_karpenter_finds_them_compatible(row, column, compatible):
    operator, values = COLUMNS[column]
    kept = evaluate([{"key": KEY, "operator": operator, "values": values}], types=[OneLabelType(row, ROW_VALUE[row])])
    assert bool(kept.candidates) is compatible


def test_the_table_is_complete():
    assert len(CASES) == 5 * 14


@pytest.mark.parametrize(("deprecated", "stable"), sorted(NORMALIZED_LABELS.items()))
def test_deprecated_keys_are_read_as_karpenter_normalises_them(deprecated, stable):
    assert set(NORMALIZED_LABELS) == {
        "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
        "beta.kubernetes.io/arch", "beta.kubernetes.io/os", "beta.kubernetes.io/instance-type"}
    values = {"kubernetes.io/arch": ["arm64"], "node.kubernetes.io/instance-type": ["g5g.xlarge"]}.get(stable, ["x"])
    old = evaluate([{"key": deprecated, "operator": "In", "values": values}])
    new = evaluate([{"key": stable, "operator": "In", "values": values}])
    assert [t.name for t in old.candidates] == [t.name for t in new.candidates]
    assert old.not_evaluated == new.not_evaluated == ()
    assert f"Karpenter reads it as {stable}" in old.steps[0].describe()


def test_beta_arch_selects_arm64_types_only():
    result = evaluate([{"key": "beta.kubernetes.io/arch", "operator": "In", "values": ["arm64"]},
                       {"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]}])
    assert result.candidates and {t.architecture for t in result.candidates} == {"arm64"}
