"""A YAML error found at a tab names the tab as its cause, in one wording, wherever the product reads YAML: the stack
file, Pulumi.yaml, manifests, values files and Chart.yaml (``sdk.yaml_bounded.with_tab_cause``)."""

from __future__ import annotations

import pytest
import yaml

from gpu_node_pool.config import ConfigError
from gpu_node_pool.config.loading import read_stack_file
from gpu_node_pool.sdk.yaml_bounded import TAB_CAUSE, with_tab_cause


def _error(text: str) -> yaml.YAMLError:
    with pytest.raises(yaml.YAMLError) as caught:
        yaml.safe_load(text)
    return caught.value


def test_the_cause_goes_before_the_fix_when_the_error_is_at_a_tab():
    err = _error("a:\n\tb: 1\n")
    assert with_tab_cause("is not valid YAML: x; fix the syntax there", err, "a:\n\tb: 1\n") == (
        f"is not valid YAML: x{TAB_CAUSE}; fix the syntax there")
    assert with_tab_cause("is not valid YAML: x", err, "a:\n\tb: 1\n") == f"is not valid YAML: x{TAB_CAUSE}"


def test_an_error_elsewhere_is_left_as_it_is():
    text = "a: [1, 2\n"
    assert with_tab_cause("is not valid YAML: x; fix it", _error(text), text) == "is not valid YAML: x; fix it"


def test_a_stack_file_indented_with_a_tab_is_told_so():
    with pytest.raises(ConfigError) as caught:
        read_stack_file(b"config:\n  aws:region: us-west-2\n\tfoo: 1\n", "Pulumi.dev.yaml")
    [issue] = caught.value.issues
    assert TAB_CAUSE in issue.message and issue.message.endswith("; fix the syntax there")
