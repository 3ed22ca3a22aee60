"""Each instance type a pool refuses is its own error at its own item (``instanceTypes[i]``, with its line and
column), in every backend that takes instance types: a wrong type, a wrong case, a repeat, and (a later stage, after
the types' form is right) each type the catalog does not know."""

from __future__ import annotations

import pytest
from conftest import ROOT, base, plan_stack_text

from gpu_node_pool.config import ConfigError, validate_stack_config


def _issues(cfg: dict) -> list[tuple[str, str]]:
    with pytest.raises(ConfigError) as caught:
        validate_stack_config(cfg)
    return [(i.path, i.message) for i in caught.value.issues]


def test_each_wrong_type_is_refused_at_its_item():
    cfg = base()
    cfg["pools"][0]["instanceTypes"] = ["g6.xlarge", "G6.XLARGE", "m5.large", "g6.xlarge"]
    issues = _issues(cfg)
    assert [p for p, _ in issues] == ["pools[0].instanceTypes[1]", "pools[0].instanceTypes[2]",
                                      "pools[0].instanceTypes[3]"]
    assert "lower case" in issues[0][1] and "not an NVIDIA GPU instance type" in issues[1][1]
    assert issues[2][1] == "'g6.xlarge' is listed more than once (first at [0]); remove the repeat"


def test_each_type_the_catalog_does_not_know_is_refused_at_its_item():
    cfg = base()
    cfg["pools"][0]["instanceTypes"] = ["g6.xlarge", "p2.xlarge", "g6.xlarg"]
    issues = _issues(cfg)
    assert [p for p, _ in issues] == ["pools[0].instanceTypes[1]", "pools[0].instanceTypes[2]"]
    assert "retired p2 family" in issues[0][1] and "did you mean g6.xlarge" in issues[1][1]


def test_the_plan_names_each_types_line_and_column(capsys, temp_project):
    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text().replace(
        "instanceTypes: [g6.xlarge]", "instanceTypes: [g6.xlarge, p2.xlarge, g6.xlarg]")
    code, out = plan_stack_text(capsys, temp_project, text)
    line = next(i for i, s in enumerate(text.splitlines(), 1) if "p2.xlarge" in s)
    assert code == 2 and "2 errors in Pulumi.mine.yaml" in out
    assert f"Pulumi.mine.yaml:{line}:34: pools[0].instanceTypes[1]: instance type 'p2.xlarge'" in out
    assert f"Pulumi.mine.yaml:{line}:45: pools[0].instanceTypes[2]: instance type 'g6.xlarg'" in out


def test_each_wrong_family_of_a_nodepool_is_refused_at_its_item():
    cfg = base()
    cfg["pools"][0] = {"name": "train", "backend": "karpenter", "instanceFamilies": ["g6", "m5", "g6.xlarge"],
                       "limits": {"nvidia.com/gpu": 8}, "nodeClass": {}}
    paths = [p for p, _ in _issues(cfg)]
    assert "pools[0].instanceFamilies[1]" in paths and "pools[0].instanceFamilies[2]" in paths
