"""A new-user trial's findings on config messages: YAML 1.1 numbers, "did you mean" hints, pydantic's raw text.

Every message names the path, the bad value, the rule in words and the fix, on one line.
"""

from __future__ import annotations

import pytest
from conftest import ROOT

from gpu_node_pool.config import ConfigError, load_stack_config, read_stack_file

DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
GKE = (ROOT / "stacks" / "Pulumi.gke-dev.yaml").read_text()


def issues(text: str) -> list[str]:
    """The one-line issues a stack file gives (read, then validated), or [] when it is accepted."""
    try:
        config, _ = read_stack_file(text.encode(), "Pulumi.mine.yaml")
        load_stack_config(config, "Pulumi.mine.yaml")
    except ConfigError as err:
        lines = [str(i) for i in err.issues]
        assert all("\n" not in line for line in lines), lines
        return lines
    return []


YAML11 = [
    ("maxSize: 010", "maxSize: 4", "pools[0].scaling.maxSize: 010 is read by YAML 1.1 as the octal number 8; write 10"),
    ("maxSize: 0x10", "maxSize: 4", "pools[0].scaling.maxSize: 0x10 is read by YAML 1.1 as the hexadecimal number 16; write 16"),
    ("maxSize: 1_0", "maxSize: 4", "pools[0].scaling.maxSize: 1_0 is read by YAML 1.1 as 10 (YAML 1.1 drops '_'); write 10"),
    ("maxSize: 1:20", "maxSize: 4", "pools[0].scaling.maxSize: 1:20 is read by YAML 1.1 as the base-60 number 80; write 80"),
    ("name: 0123", "name: inference", "pools[0].name: 0123 is read by YAML 1.1 as the octal number 83;"),
]


@pytest.mark.parametrize("new, old, expected", YAML11, ids=[c[0] for c in YAML11])
def test_yaml11_number_forms_are_refused_with_the_path_and_the_fix(new, old, expected):
    lines = issues(DEV.replace(old, new))
    assert len(lines) == 1 and lines[0].startswith(expected), lines
    assert "quote it" in lines[0]


def test_plain_decimals_and_quoted_forms_still_pass():
    assert issues(DEV.replace("maxSize: 4", "maxSize: 10").replace("minSize: 0", "minSize: 0")) == []
    assert issues(DEV.replace("env: dev", "env: '010'")) == []


def test_a_yaml11_number_as_a_key_is_called_a_number():
    lines = issues(DEV.replace("        example.com/team: ml-platform", "        0x1f: z"))
    assert lines == ["pools[0].labels: key 0x1f is read by YAML as a number, not a string "
                     "(yes/no/on/off, numbers and dates are not strings); quote it"]
